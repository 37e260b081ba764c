// Lookup jobs over GraphQL: createLookupJob and cancelLookupJob (mutations, now served; a GET cannot run
// one), job(id) with its results paged, jobs paged; the same job, fields and results as REST's
// /v1/portal/jobs; an Idempotency-Key makes one job; bad arguments are coded errors, never a 500.
import { randomUUID } from 'node:crypto';
import { ClientError } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelLookupJobDocument,
  CreateLookupJobDocument,
  LookupJobDocument,
  LookupJobsDocument,
} from '../../src/graphql/operations/generated/graphql.js';
import { toGraphqlName } from '../../src/graphql/typebox.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { endpoint, gql, postGql } from './client.js';

const JOBS = '/v1/portal/jobs';
const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const ITEMS = [
  { url: HOME },
  { zpid: '114303858' },
  { zpid: '2146993218' },
  { address: '661 Lakeview Ave, San Francisco, CA 94112' },
  { zpid: '999999999' },
  { zpid: 'nope' },
];
const CREATE =
  'mutation($items: [LookupItem!]!, $webhookUrl: String, $maxAge: Int) { createLookupJob(items: $items, webhookUrl: $webhookUrl, maxAge: $maxAge) { id status count } }';

/** A REST job (snake_case) in GraphQL's names and enum values. */
const asGraphql = (view: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(view).map(([k, v]) => [toGraphqlName(k), k === 'status' ? String(v).toUpperCase() : v]),
  );

async function finalRest(svc: TestService, id: string, key = svc.keys.free!): Promise<any> {
  for (let i = 0; i < 1500; i++) {
    const r = await svc.get(`${JOBS}/${id}`, key);
    if (['completed', 'cancelled', 'failed'].includes(r.body.data?.status)) return r.body.data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${id} did not finish`);
}

const ndjsonOf = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe('lookup jobs over GraphQL', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
    await svc.app.background.startWorkers();
  });
  afterAll(() => svc?.close());

  let jobId: string;

  it('createLookupJob queues the job; job(id) shows what REST shows, results paged in item order equal REST NDJSON', async () => {
    const created = await gql(svc).request(CreateLookupJobDocument, { items: ITEMS });
    expect(created.createLookupJob).toMatchObject({ status: 'QUEUED', count: 6, done: 0, credits: 0 });
    jobId = created.createLookupJob!.id;
    const rest = await finalRest(svc, jobId);
    expect(rest).toMatchObject({ status: 'completed', succeeded: 4, failed: 2, credits: 3 });

    const { job } = await gql(svc).request(LookupJobDocument, { id: jobId, first: 4 });
    const { results: page, ...fields } = job!;
    const results = page!;
    expect(fields).toEqual(asGraphql(rest));
    expect(results.items.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(results).toMatchObject({ endCursor: '3', hasNextPage: true });
    const next = await gql(svc).request(LookupJobDocument, { id: jobId, first: 4, after: results.endCursor });
    expect(next.job!.results!.items.map((r) => r.index)).toEqual([4, 5]);
    expect(next.job!.results!).toMatchObject({ endCursor: '5', hasNextPage: false });

    const lines = ndjsonOf(
      await svc
        .fetch(`${svc.url}${JOBS}/${jobId}/results`, { headers: { 'x-api-key': svc.keys.free! } })
        .then((r) => r.text()),
    );
    const graph = [...results.items, ...next.job!.results!.items];
    expect(
      graph.map((r) => ({
        index: r.index,
        ok: r.ok,
        zpid: r.data?.zpid ?? null,
        price: r.data?.price ?? null,
        credits: r.meta?.credits ?? null,
        code: r.error?.code ?? null,
      })),
    ).toEqual(
      lines.map((r) => ({
        index: r.index,
        ok: r.ok,
        zpid: r.data?.zpid ?? null,
        price: r.data?.price ?? null,
        credits: r.meta?.credits ?? null,
        code: r.error?.code ?? null,
      })),
    );
    expect(graph[0]!.data).toMatchObject({
      zpid: lines[0].data.zpid,
      address: lines[0].data.address,
      homeStatus: lines[0].data.homeStatus,
    });
  });

  it('a REST job is the same job over GraphQL, and jobs pages newest first', async () => {
    const key = svc.keys.tiny!;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await svc.post(JOBS, { items: [{ zpid: 'nope' }] }, key);
      expect(r.status).toBe(202);
      ids.push(r.body.data.id);
    }
    const client = gql(svc, key);
    const first = await client.request(LookupJobsDocument, { first: 2 });
    expect(first.jobs.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect(first.jobs.hasNextPage).toBe(true);
    const second = await client.request(LookupJobsDocument, { first: 2, after: first.jobs.endCursor });
    expect(second.jobs.jobs.map((j) => j.id)).toEqual([ids[0]]);
    expect(second.jobs).toMatchObject({ endCursor: null, hasNextPage: false });
    const rest = (await svc.get(`${JOBS}?limit=100`, key)).body.data;
    expect([...first.jobs.jobs, ...second.jobs.jobs]).toEqual(rest.map(asGraphql));
  });

  it("another account's job is not_found, with REST's message; the operation's other fields stand", async () => {
    const r = await postGql(
      svc,
      { query: `query($id: ID!) { job(id: $id) { id } account { used } }`, variables: { id: jobId } },
      { key: svc.keys.paid! },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.job).toBeNull();
    expect(r.body.data.account).toEqual({ used: expect.any(Number) });
    expect(r.body.errors[0].extensions.code).toBe('not_found');
    expect(r.body.errors[0].message).toBe('No such job.');
    const cancel = await postGql(
      svc,
      { query: 'mutation($id: ID!) { cancelLookupJob(id: $id) { id } }', variables: { id: jobId } },
      { key: svc.keys.paid! },
    );
    expect(cancel.body.errors[0].extensions.code).toBe('not_found');
  });

  it('an Idempotency-Key: a retried createLookupJob gets the same job, replayed, and no second job is made', async () => {
    const key = svc.keys.paid!;
    const headers = { 'idempotency-key': `gql-job-${randomUUID()}` };
    const count = async () => (await svc.get(`${JOBS}?limit=100`, key)).body.data.length;
    const before = await count();
    const body = { query: CREATE, variables: { items: [{ zpid: '114303858' }] } };
    const a = await postGql(svc, body, { key, headers });
    const b = await postGql(svc, body, { key, headers });
    expect(a.body.data.createLookupJob.id).toEqual(expect.any(String));
    expect(b.body.data.createLookupJob.id).toBe(a.body.data.createLookupJob.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await count()).toBe(before + 1);
  });

  it.each([
    ['no items', { items: [] }, 'bad_body', undefined],
    ['a bad maxAge', { items: [{ zpid: '1' }], maxAge: -1 }, 'bad_param', 'max_age'],
    ['a webhookUrl that is no URL', { items: [{ zpid: '1' }], webhookUrl: 'nope' }, 'bad_param', 'webhook_url'],
    [
      'a webhookUrl on loopback',
      { items: [{ zpid: '1' }], webhookUrl: 'http://127.0.0.1:9/' },
      'bad_param',
      'webhook_url',
    ],
  ])('createLookupJob with %s: %s, no job', async (_name, variables, code, param) => {
    const before = (await svc.get(`${JOBS}?limit=100`)).body.data.length;
    const r = await postGql(svc, { query: CREATE, variables });
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors[0].extensions.code).toBe(code);
    if (param) expect(r.body.errors[0].extensions.details.param).toBe(param);
    expect((await svc.get(`${JOBS}?limit=100`)).body.data.length).toBe(before);
  });

  it('10,001 items: too_many_items with the job limit in the message', async () => {
    const items = Array.from({ length: 10_001 }, (_, i) => ({ zpid: String(i + 1) }));
    const r = await postGql(svc, { query: CREATE, variables: { items } });
    expect(r.body.errors[0].extensions.code).toBe('too_many_items');
    expect(r.body.errors[0].message).toBe('At most 10,000 items per job.');
  });

  it('page sizes and cursors out of range are bad_param', async () => {
    for (const [query, param] of [
      [`{ job(id: "${jobId}") { results(first: 0) { endCursor } } }`, 'first'],
      [`{ job(id: "${jobId}") { results(first: 501) { endCursor } } }`, 'first'],
      [`{ job(id: "${jobId}") { results(after: "x") { endCursor } } }`, 'after'],
      ['{ jobs(first: 101) { endCursor } }', 'first'],
    ] as const) {
      const r = await postGql(svc, { query });
      expect(r.body.errors[0].extensions, query).toMatchObject({ code: 'bad_param', details: { param } });
    }
  });

  it('a mutation sent by GET, as a document or a persisted hash, is 405 method_not_allowed; nothing is made', async () => {
    const before = (await svc.get(`${JOBS}?limit=100`)).body.data.length;
    const query = encodeURIComponent('mutation { createLookupJob(items: [{ zpid: "1" }]) { id } }');
    const res = await svc.fetch(`${endpoint(svc)}?query=${query}`, {
      headers: { 'x-api-key': svc.keys.free!, accept: 'application/graphql-response+json' },
    });
    expect(res.status).toBe(405);
    expect((await res.json()).errors[0].extensions.code).toBe('method_not_allowed');
    // The persisted CreateLookupJob too.
    const hash = (CreateLookupJobDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }));
    const variables = encodeURIComponent(JSON.stringify({ items: [{ zpid: '1' }] }));
    const persisted = await svc.fetch(`${endpoint(svc)}?extensions=${extensions}&variables=${variables}`, {
      headers: { 'x-api-key': svc.keys.free!, accept: 'application/graphql-response+json' },
    });
    expect(persisted.status).toBe(405);
    expect((await persisted.json()).errors[0].extensions.code).toBe('method_not_allowed');
    expect((await svc.get(`${JOBS}?limit=100`)).body.data.length).toBe(before);
  });
});

describe('cancelLookupJob', () => {
  let svc: TestService;
  let proxy: GatedProxy;
  // One chunk at a time, and the site behind a gate: a job whose read is held keeps the next one queued.
  beforeAll(async () => {
    const site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    svc = await startTestService({
      replayServer: site,
      env: { PORTAL_ORIGIN: proxy.origin, JOB_CONCURRENCY: '1' },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await svc?.replay.close();
  });

  it('cancels a queued job: CANCELLED, nothing billed, no results; REST shows the same; another account cannot', async () => {
    const release = proxy.hold('114303858');
    const held = await gql(svc).request(CreateLookupJobDocument, { items: [{ zpid: '114303858' }] });
    await proxy.received('114303858');
    const created = await gql(svc).request(CreateLookupJobDocument, { items: [{ zpid: '15192198' }] });
    await expect(
      gql(svc, svc.keys.paid!).request(CancelLookupJobDocument, { id: created.createLookupJob!.id }),
    ).rejects.toBeInstanceOf(ClientError);
    const { cancelLookupJob } = await gql(svc).request(CancelLookupJobDocument, { id: created.createLookupJob!.id });
    expect(cancelLookupJob).toMatchObject({
      id: created.createLookupJob!.id,
      status: 'CANCELLED',
      credits: 0,
      done: 0,
    });
    const rest = await svc.get(`${JOBS}/${cancelLookupJob.id}`);
    expect(cancelLookupJob).toEqual(asGraphql(rest.body.data));
    release();
    expect((await finalRest(svc, held.createLookupJob!.id)).status).toBe('completed');
    const { job } = await gql(svc).request(LookupJobDocument, { id: cancelLookupJob.id });
    expect(job!.results).toEqual({ items: [], endCursor: null, hasNextPage: false });
  });
});

// Lookup jobs over REST (/v1/portal/jobs): made from JSON, CSV and NDJSON bodies; every bad body a clear
// 4xx before anything is queued; results as NDJSON and CSV equal to what the same items give in a batch;
// progress as server-sent events to `done`; cancel; the account's list paged newest first; another
// account's job 404; Idempotency-Key makes one job. On the memory store and on a real Redis (BullMQ).
import { randomUUID } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_SCHEMAS, PortalProperty } from '../../src/contract/index.js';
import { parseCsvRows } from '../../src/contract/job-input.js';
import {
  JOB_CSV_COLUMNS,
  JOB_SCHEMAS,
  JobCreated,
  JobListResponse,
  JobResponse,
  MAX_JOB_BODY_BYTES,
} from '../../src/contract/jobs.js';
import { MAX_JOB_ITEMS } from '../../src/jobs/types.js';
import { RedisStore } from '../../src/store/redis.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import '../helpers/schema.js';
import { DEFAULT_ACCOUNTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';

const JOBS = '/v1/portal/jobs';
const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
/** Found homes, a duplicate, an address, a home the site does not have, an invalid zpid. */
const ITEMS: unknown[] = [
  HOME,
  { zpid: '114303858' },
  { zpid: '2146993218' },
  '661 Lakeview Ave, San Francisco, CA 94112',
  { zpid: '999999999' },
  { zpid: 'nope' },
];
const CSV =
  'url,zpid,address,note\r\n' +
  `${HOME},,,first\r\n` +
  ',114303858,,\r\n' +
  ',2146993218,,dup\r\n' +
  ',,"661 Lakeview Ave, San Francisco, CA 94112",\r\n' +
  ',999999999,,\r\n' +
  ',nope,,"a ""quoted"" note"\r\n';
const NDJSON = ITEMS.map((i) => JSON.stringify(i)).join('\n') + '\n';

const refs = [...CONTRACT_SCHEMAS, ...JOB_SCHEMAS] as TSchema[];
function expectShape(schema: TSchema, value: unknown): void {
  expect([...Value.Errors(schema, refs, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`)).toEqual([]);
}

type Raw = { status: number; headers: Headers; text: string; body: any };
async function send(
  svc: TestService,
  method: string,
  path: string,
  opts: { key?: string | null; body?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const key = opts.key === undefined ? svc.keys.free! : opts.key;
  const res = await svc.fetch(svc.url + path, {
    method,
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      ...(opts.type ? { 'content-type': opts.type } : {}),
      ...opts.headers,
    },
    ...(opts.body === undefined ? {} : { body: opts.body }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // NDJSON, CSV, events: read as text
  }
  return { status: res.status, headers: res.headers, text, body };
}

const createJson = (svc: TestService, body: unknown, key?: string, headers?: Record<string, string>) =>
  send(svc, 'POST', JOBS, {
    body: JSON.stringify(body),
    type: 'application/json',
    ...(key ? { key } : {}),
    ...(headers ? { headers } : {}),
  });

/** The job once final: polled with a bound ("eventually"), never a fixed wait. */
async function finalJob(svc: TestService, id: string, key?: string): Promise<any> {
  for (let i = 0; i < 1500; i++) {
    const r = await send(svc, 'GET', `${JOBS}/${id}`, key ? { key } : {});
    expect(r.status).toBe(200);
    if (['completed', 'cancelled', 'failed'].includes(r.body.data.status)) return r.body.data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${id} did not finish`);
}

const ndjsonOf = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
/** A result with what differs between runs (timings, billing of a hit) left out. */
const comparable = (r: any) =>
  r.ok
    ? { index: r.index, ok: true, data: r.data, cache_key: r.meta.cache_key }
    : { index: r.index, ok: false, code: r.error.code };

describe.each([
  ['memory', false],
  ['redis', true],
])('jobs on the %s store', (_name, onRedis) => {
  let svc: TestService;
  let redis: RedisServer | undefined;
  let store: RedisStore | undefined;
  let receiver: WebhookReceiver;
  const secret = newWebhookSecret();

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret });
    const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    if (onRedis) {
      redis = await startRedisServer();
      store = await RedisStore.connect(redis.url, { prefix: `jobs${randomUUID().slice(0, 6)}:` });
      env.REDIS_URL = redis.url;
    }
    const accounts = { ...DEFAULT_ACCOUNTS, free: { ...DEFAULT_ACCOUNTS.free!, webhookSecret: secret } };
    svc = await startTestService({ env, accounts, ...(store ? { store } : {}) });
    await svc.app.background.startWorkers();
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await store?.close();
    if (redis) await disposeRedisServer(redis);
  });

  let jsonJob: any;
  let jsonResults: any[];

  it('JSON: 202 with the queued job and its location; it completes with each item billed once', async () => {
    const r = await createJson(svc, { items: ITEMS });
    expect(r.status).toBe(202);
    expectShape(JobCreated, r.body);
    expect(r.body.data).toMatchObject({ status: 'queued', count: ITEMS.length });
    expect(r.headers.get('location')).toBe(`${JOBS}/${r.body.data.id}`);
    expect(r.headers.get('x-api-version')).toBe('v1');
    jsonJob = await finalJob(svc, r.body.data.id);
    expect(jsonJob).toMatchObject({ status: 'completed', count: 6, done: 6, succeeded: 4, failed: 2, credits: 3 });
    const got = await send(svc, 'GET', `${JOBS}/${jsonJob.id}`);
    expectShape(JobResponse, got.body);
  });

  it('results as NDJSON: one batch-shaped line per item, in item order, equal to what a batch of the same items gives', async () => {
    const r = await send(svc, 'GET', `${JOBS}/${jsonJob.id}/results`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    jsonResults = ndjsonOf(r.text);
    expect(jsonResults.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(jsonResults.map((x) => x.ok)).toEqual([true, true, true, true, false, false]);
    expect(jsonResults.slice(4).map((x) => x.error.code)).toEqual(['not_found', 'bad_param']);
    expect(jsonResults.reduce((n, x) => n + (x.ok ? x.meta.credits : 0), 0)).toBe(3);
    const batch = await svc.post('/v1/portal/batch', { items: ITEMS });
    expect(batch.status).toBe(200);
    expect(jsonResults.map(comparable)).toEqual(batch.body.data.map(comparable));
  });

  it('results as CSV: a header row, then one row per result with the scalar fields of PortalProperty', async () => {
    const r = await send(svc, 'GET', `${JOBS}/${jsonJob.id}/results?format=csv`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = parseCsvRows(r.text);
    expect(header).toEqual([...JOB_CSV_COLUMNS]);
    expect(header).toEqual(expect.arrayContaining(['zpid', 'price', 'homeStatus', 'address']));
    expect(header).not.toContain('photos');
    expect(header).not.toContain('raw');
    expect(rows).toHaveLength(6);
    const at = (row: string[], column: string) => row[header!.indexOf(column)];
    for (const [i, result] of jsonResults.entries()) {
      const row = rows[i]!;
      expect(at(row, 'index')).toBe(String(i));
      expect(at(row, 'ok')).toBe(String(result.ok));
      if (!result.ok) {
        expect(at(row, 'error_code')).toBe(result.error.code);
        continue;
      }
      expect(at(row, 'credits')).toBe(String(result.meta.credits));
      for (const field of ['zpid', 'address', 'price', 'homeStatus', 'beds', 'description'] as const) {
        const value = result.data[field];
        expect(at(row, field), field).toBe(value === null ? '' : String(value));
      }
    }
    expect(Object.keys(PortalProperty.properties)).toEqual(expect.arrayContaining(header!.slice(6)));
  });

  it('CSV and NDJSON bodies make the same job as JSON (options in the query string)', async () => {
    for (const [type, body] of [
      ['text/csv; charset=utf-8', CSV],
      ['application/x-ndjson', NDJSON],
      ['application/jsonl', NDJSON],
    ] as const) {
      const r = await send(svc, 'POST', `${JOBS}?max_age=86400&status=for_sale`, { body, type });
      expect(r.status, type).toBe(202);
      expect(r.body.data.count).toBe(6);
      const job = await finalJob(svc, r.body.data.id);
      expect(job).toMatchObject({ status: 'completed', succeeded: 4, failed: 2, credits: 0 });
      const results = ndjsonOf((await send(svc, 'GET', `${JOBS}/${job.id}/results`)).text);
      expect(results.map(comparable), type).toEqual(jsonResults.map(comparable));
    }
  });

  it('a CSV job with webhook_url in the query string: a signed job.completed whose data is the job as GET shows it', async () => {
    const r = await send(svc, 'POST', `${JOBS}?webhook_url=${encodeURIComponent(receiver.url)}`, {
      body: 'zpid\r\n114303858\r\nnope\r\n',
      type: 'text/csv',
    });
    expect(r.status).toBe(202);
    const id = r.body.data.id;
    const [event] = (
      await receiver.waitFor((events) => events.some((e) => (e.data as { id?: string }).id === id))
    ).filter((e) => (e.data as { id?: string }).id === id);
    expect(event!.type).toBe('job.completed');
    const job = (await send(svc, 'GET', `${JOBS}/${id}`)).body.data;
    expect(job).toMatchObject({ status: 'completed', webhook_url: receiver.url, succeeded: 1, failed: 1 });
    expect(event!.data).toEqual(job);
  });

  it('server-sent events: progress with the job, then done, then the stream ends', async () => {
    const r = await createJson(svc, { items: [{ zpid: '15192198' }, { zpid: '114303858' }] });
    const res = await svc.fetch(`${svc.url}${JOBS}/${r.body.data.id}/events`, {
      headers: { 'x-api-key': svc.keys.free! },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const events = text
      .split('\n\n')
      .filter((e) => e.startsWith('event:'))
      .map((e) => {
        const [event, data] = e.split('\n');
        return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
      });
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({ id: r.body.data.id, status: 'completed', done: 2 });
    expect(events.at(-2)!.data).toEqual(done.data);
  });

  it('another account gets 404 not_found "No such job." on every route of the job', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/results'],
      ['GET', '/events'],
      ['DELETE', ''],
    ] as const) {
      const r = await send(svc, method, `${JOBS}/${jsonJob.id}${path}`, { key: svc.keys.paid! });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', message: 'No such job.' });
    }
    expect((await send(svc, 'GET', `${JOBS}/no-such-job`)).body.error.code).toBe('not_found');
    expect((await send(svc, 'GET', JOBS, { key: svc.keys.paid! })).body.data).toEqual([]);
  });

  it('the list: newest first, paged by cursor; limit is 1 to 100', async () => {
    const key = svc.keys.tiny!;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createJson(svc, { items: [{ zpid: 'nope' }] }, key)).body.data.id);
    const first = await send(svc, 'GET', `${JOBS}?limit=2`, { key });
    expect(first.status).toBe(200);
    expectShape(JobListResponse, first.body);
    expect(first.body.data.map((j: any) => j.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.meta.next_cursor).toEqual(expect.any(String));
    const second = await send(svc, 'GET', `${JOBS}?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, {
      key,
    });
    expect(second.body.data.map((j: any) => j.id)).toEqual([ids[0]]);
    expect(second.body.meta.next_cursor).toBeNull();
    for (const bad of ['0', '101', 'x', '1.5']) {
      const r = await send(svc, 'GET', `${JOBS}?limit=${bad}`, { key });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.details.param).toBe('limit');
    }
  });

  it('an Idempotency-Key: the retry gets the same job (idempotent-replayed), no second job is made', async () => {
    const key = svc.keys.paid!;
    const idem = { 'idempotency-key': `job-${randomUUID()}` };
    const before = (await send(svc, 'GET', `${JOBS}?limit=100`, { key })).body.data.length;
    const a = await createJson(svc, { items: [{ zpid: '114303858' }] }, key, idem);
    const b = await createJson(svc, { items: [{ zpid: '114303858' }] }, key, idem);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    expect((await send(svc, 'GET', `${JOBS}?limit=100`, { key })).body.data.length).toBe(before + 1);
    const other = await createJson(svc, { items: [{ zpid: '15192198' }] }, key, idem);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });
});

describe('jobs: cancel, and bodies that are no job', () => {
  let svc: TestService;
  let proxy: GatedProxy;
  // One chunk at a time, and the site behind a gate: a job whose read is held keeps the next one queued.
  beforeAll(async () => {
    const site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    svc = await startTestService({
      replayServer: site,
      env: { PORTAL_ORIGIN: proxy.origin, JOB_CONCURRENCY: '1', WEBHOOK_ALLOW_PRIVATE: 'false' },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await svc?.replay.close();
  });

  it('DELETE cancels a queued job: no results, nothing read or billed; its events end with done at once', async () => {
    const release = proxy.hold('114303858');
    const first = await createJson(svc, { items: [{ zpid: '114303858' }] });
    await proxy.received('114303858');
    const r = await createJson(svc, { items: [{ zpid: '15192198' }, { zpid: '2146993218' }] });
    expect(r.status).toBe(202);
    const id = r.body.data.id;
    expect((await send(svc, 'GET', `${JOBS}/${id}`)).body.data.status).toBe('queued');
    const cancelled = await send(svc, 'DELETE', `${JOBS}/${id}`);
    expect(cancelled.status).toBe(200);
    expectShape(JobResponse, cancelled.body);
    expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled', credits: 0, done: 0 });
    expect(cancelled.body.data.finished_at).toEqual(expect.any(String));
    // Its turn comes and goes: the held job, then one made after it, run to the end.
    const last = await createJson(svc, { items: [{ zpid: 'nope' }] });
    release();
    expect((await finalJob(svc, first.body.data.id)).status).toBe('completed');
    expect((await finalJob(svc, last.body.data.id)).status).toBe('completed');
    expect((await send(svc, 'DELETE', `${JOBS}/${id}`)).body.data).toMatchObject({
      status: 'cancelled',
      done: 0,
      credits: 0,
    });
    const results = await send(svc, 'GET', `${JOBS}/${id}/results`);
    expect(results.status).toBe(200);
    expect(results.text).toBe('');
    const csv = await send(svc, 'GET', `${JOBS}/${id}/results?format=csv`);
    expect(parseCsvRows(csv.text)).toEqual([[...JOB_CSV_COLUMNS]]);
    const events = await send(svc, 'GET', `${JOBS}/${id}/events`);
    expect(events.text).toMatch(/event: done\ndata: \{[^\n]*"status":"cancelled"/);
    expect(proxy.paths.filter((p) => p.includes('15192198') || p.includes('2146993218'))).toEqual([]);
  });

  const json = (body: unknown) => ({ body: JSON.stringify(body), type: 'application/json' });
  const tooMany = Array.from({ length: MAX_JOB_ITEMS + 1 }, (_, i) => ({ zpid: String(i + 1) }));
  const CASES: Array<[string, { body?: string; type?: string }, string, number, string?]> = [
    ['a JSON array', json([{ zpid: '1' }]), 'bad_body', 400],
    ['JSON that does not parse', { body: '{"items": [', type: 'application/json' }, 'bad_body', 400],
    ['an empty body', { body: '', type: 'application/json' }, 'bad_body', 400],
    ['no items', json({ items: [] }), 'bad_body', 400],
    ['items not a list', json({ items: 'x' }), 'bad_body', 400],
    ['10,001 items', json({ items: tooMany }), 'too_many_items', 400],
    [
      '10,001 NDJSON lines',
      { body: tooMany.map((i) => JSON.stringify(i)).join('\n'), type: 'application/x-ndjson' },
      'too_many_items',
      400,
    ],
    ['an unknown field', json({ items: ['x'], webhook: 'https://example.com/' }), 'bad_param', 400, 'webhook'],
    ['a bad max_age', json({ items: ['x'], max_age: -1 }), 'bad_param', 400, 'max_age'],
    ['a bad status', json({ items: ['x'], status: 'rented' }), 'bad_param', 400, 'status'],
    ['a webhook_url that is no string', json({ items: ['x'], webhook_url: 5 }), 'bad_param', 400, 'webhook_url'],
    ['a webhook_url that is no URL', json({ items: ['x'], webhook_url: 'not a url' }), 'bad_param', 400, 'webhook_url'],
    [
      'a webhook_url on loopback',
      json({ items: ['x'], webhook_url: 'http://127.0.0.1:9/hook' }),
      'bad_param',
      400,
      'webhook_url',
    ],
    [
      'a webhook_url that is ftp',
      json({ items: ['x'], webhook_url: 'ftp://example.com/' }),
      'bad_param',
      400,
      'webhook_url',
    ],
    ['a CSV header naming no locator', { body: 'name,city\r\nA,B\r\n', type: 'text/csv' }, 'bad_body', 400],
    ['a CSV with only its header', { body: 'zpid\r\n', type: 'text/csv' }, 'bad_body', 400],
    [
      'a CSV row with an unquoted comma',
      { body: 'address\r\n661 Lakeview Ave, San Francisco, CA 94112\r\n', type: 'text/csv' },
      'bad_body',
      400,
    ],
    ['a CSV quote never closed', { body: 'address\r\n"661 Lakeview Ave\r\n', type: 'text/csv' }, 'bad_body', 400],
    [
      'an NDJSON line that is not JSON',
      { body: '{"zpid":"1"}\n{zpid\n', type: 'application/x-ndjson' },
      'bad_body',
      400,
    ],
    ['a form body', { body: 'items=1', type: 'application/x-www-form-urlencoded' }, 'unsupported_media_type', 415],
    ['XML', { body: '<items/>', type: 'application/xml' }, 'unsupported_media_type', 415],
  ];

  it.each(CASES)('%s: refused, nothing queued', async (_name, req, code, status, param) => {
    const before = (await send(svc, 'GET', `${JOBS}?limit=100`)).body.data.length;
    const r = await send(svc, 'POST', JOBS, req);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (param) expect(r.body.error.details.param).toBe(param);
    if (code === 'bad_body') expect(r.body.error.details.reason).toEqual(expect.any(String));
    if (code === 'too_many_items') expect(r.body.error.message).toBe('At most 10,000 items per job.');
    expect((await send(svc, 'GET', `${JOBS}?limit=100`)).body.data.length).toBe(before);
  });

  it('a CSV job with a bad option in the query string, or an unknown parameter, is bad_param; a JSON job takes none', async () => {
    const csv = { body: 'zpid\r\n1\r\n', type: 'text/csv' };
    for (const [query, param] of [
      ['max_age=-5', 'max_age'],
      ['raw=yes', 'raw'],
      ['maxAge=5', 'maxAge'],
      ['status=sold&status=sold', 'status'],
    ] as const) {
      const r = await send(svc, 'POST', `${JOBS}?${query}`, csv);
      expect(r.status, query).toBe(400);
      expect(r.body.error.details.param).toBe(param);
    }
    const r = await send(svc, 'POST', `${JOBS}?max_age=5`, json({ items: ['x'] }));
    expect(r.status).toBe(400);
    expect(r.body.error.details.param).toBe('max_age');
  });

  it(`a body past ${MAX_JOB_BODY_BYTES / 1024 / 1024} MB is bad_body naming that limit; 10,000 long links fit`, async () => {
    const link = `https://www.zillow.com/homedetails/${'Some-Long-Street-Name-'.repeat(8)}Austin-TX-78705/2146993218_zpid/`;
    const fits = await send(svc, 'POST', JOBS, json({ items: Array.from({ length: MAX_JOB_ITEMS }, () => link) }));
    expect(fits.status).toBe(202);
    expect(fits.body.data.count).toBe(MAX_JOB_ITEMS);
    const r = await send(svc, 'POST', JOBS, {
      body: 'zpid\n' + '1\n'.repeat(MAX_JOB_BODY_BYTES / 2 + 1),
      type: 'text/csv',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'bad_body', message: 'The request body is larger than 8 MB.' });
  });

  it('without a key: 401 before the body is read; a body without content-type is read as JSON', async () => {
    const r = await send(svc, 'POST', JOBS, { key: null, body: 'not a job', type: 'text/plain' });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('missing_api_key');
    // fetch gives a string body a content-type (text/plain): inject sends none.
    const untyped = await svc.app.inject({
      method: 'POST',
      url: JOBS,
      headers: { 'x-api-key': svc.keys.free! },
      payload: JSON.stringify({ items: [{ zpid: '114303858' }] }),
    });
    expect(untyped.statusCode).toBe(202);
    const plain = await send(svc, 'POST', JOBS, { body: JSON.stringify({ items: ['x'] }), type: 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.body.error.details.supported).toContain('text/csv');
  });

  it('results take format ndjson or csv only; job routes refuse unknown parameters', async () => {
    const id = (await createJson(svc, { items: ['x'] })).body.data.id;
    expect((await send(svc, 'GET', `${JOBS}/${id}/results?format=xml`)).body.error).toMatchObject({
      code: 'bad_param',
      details: { param: 'format' },
    });
    expect((await send(svc, 'GET', `${JOBS}/${id}?verbose=1`)).body.error).toMatchObject({
      code: 'bad_param',
      details: { param: 'verbose' },
    });
  });
});

describe('job events: a client that leaves, a service that stops', () => {
  let svc: TestService;
  let proxy: GatedProxy;
  let site: Awaited<ReturnType<typeof startReplayServer>>;
  beforeAll(async () => {
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    svc = await startTestService({ socket: 'streaming', replayServer: site, env: { PORTAL_ORIGIN: proxy.origin } });
  });
  let closed = false;
  afterAll(async () => {
    if (!closed) await svc?.close();
    await proxy?.close();
    await site?.close();
  });

  /** The events of a job over the socket, and the first event's text once it arrived. */
  async function openEvents(id: string, signal?: AbortSignal) {
    const res = await fetch(`${svc.url}${JOBS}/${id}/events`, {
      headers: { 'x-api-key': svc.keys.free! },
      ...(signal ? { signal } : {}),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    return { reader, first: text };
  }

  it('a running job: the client leaves mid-stream; at shutdown an open stream ends', async () => {
    const release = proxy.hold('114303858');
    const r = await createJson(svc, { items: [{ zpid: '114303858' }] });
    await proxy.received('114303858');
    const id = r.body.data.id;

    const leaving = new AbortController();
    const gone = await openEvents(id, leaving.signal);
    expect(gone.first).toMatch(/^event: progress\ndata: \{[^\n]*"status":"(queued|running)"/);
    leaving.abort();

    const staying = await openEvents(id);
    const rest = (async () => {
      let text = '';
      for (;;) {
        const { value, done } = await staying.reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
      }
    })();
    // The job is still held at the site: the stream ends because the service stops (the app's own close,
    // which waits for answers under way), not because the job did.
    closed = true;
    const closing = svc.app.close();
    expect(await rest).not.toContain('event: done');
    // The held chunk is let go only now (the app's close waits for its workers); the client's idle keep-alive sockets are closed as the helper closes them.
    release();
    svc.app.server.closeAllConnections();
    await closing;
  });
});

// The account's own record over REST: GET /v1/account/usage (its lookups by UTC day) and GET
// /v1/account/charges (its ledger, newest first, JSON and CSV). After a mixed day (single lookups, a batch,
// a job, failures), the days, the charges, GET /v1/account's `used` and the store's ledger agree exactly,
// on the memory store and on a real Redis. Bad parameters are 400 bad_param naming the parameter; reading
// the record charges nothing and counts no lookup.
import { randomUUID } from 'node:crypto';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import {
  ACCOUNT_RECORD_SCHEMAS,
  AccountChargesResponse,
  AccountUsageDays,
  CHARGE_CSV_COLUMNS,
} from '../../src/contract/account-record.js';
import { CONTRACT_SCHEMAS } from '../../src/contract/index.js';
import { parseCsvRows } from '../../src/contract/job-input.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import '../helpers/schema.js';
import { DEFAULT_ACCOUNTS, startTestService, type TestService } from '../helpers/service.js';

if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d\d-\d\d$/.test(v));
const refs = [...CONTRACT_SCHEMAS, ...ACCOUNT_RECORD_SCHEMAS] as TSchema[];
function expectShape(schema: TSchema, value: unknown): void {
  expect([...Value.Errors(schema, refs, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`)).toEqual([]);
}

const today = () => new Date().toISOString().slice(0, 10);

/** Every charge of the account, page by page (`limit` a page). */
async function allCharges(svc: TestService, key: string, limit: number): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const r = await svc.get(`/v1/account/charges?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectShape(AccountChargesResponse, r.body);
    expect(r.body.data.length).toBeLessThanOrEqual(limit);
    out.push(...r.body.data);
    cursor = r.body.meta.next_cursor;
    if (cursor === null) return out;
  }
  throw new Error('too many pages');
}

async function finalJob(svc: TestService, id: string, key: string): Promise<any> {
  for (let i = 0; i < 1500; i++) {
    const r = await svc.get(`/v1/portal/jobs/${id}`, key);
    if (['completed', 'cancelled', 'failed'].includes(r.body.data.status)) return r.body.data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${id} did not finish`);
}

describe.each([
  ['memory', false],
  ['redis', true],
])("the account's own record on the %s store", (_name, onRedis) => {
  let svc: TestService;
  let redis: RedisServer | undefined;
  let store: RedisStore | undefined;
  const key = DEFAULT_ACCOUNTS.paid!.key;
  let accountId: string;
  let singleRequestId: string;
  let jobId: string;

  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (onRedis) {
      redis = await startRedisServer();
      store = await RedisStore.connect(redis.url, { prefix: `rec${randomUUID().slice(0, 6)}:` });
      env.REDIS_URL = redis.url;
    }
    svc = await startTestService({ socket: 'streaming', env, ...(store ? { store } : {}) });
    await svc.app.background.startWorkers();
    accountId = seededAccountId(hashApiKey(key, svc.config.apiKeySecret));
  });
  afterAll(async () => {
    await svc?.close();
    await store?.close();
    if (redis) await disposeRedisServer(redis);
  });

  it('a mixed day: single lookups, a batch, a job and failures', async () => {
    const one = await svc.get('/v1/portal/property?zpid=2146993218', key); // live, 1 credit
    expect(one.body.meta).toMatchObject({ credits: 1, cached: false });
    singleRequestId = one.headers.get('x-request-id')!;
    expect((await svc.get('/v1/portal/property?zpid=2146993218', key)).body.meta.cached).toBe(true); // hit
    expect((await svc.get('/v1/portal/property?zpid=999999999', key)).status).toBe(404); // failed
    expect((await svc.get('/v1/portal/property?zpid=nope', key)).status).toBe(400); // failed (invalid)
    const batch = await svc.post(
      '/v1/portal/batch',
      { items: [{ zpid: '114303858' }, { zpid: '114303858' }, { zpid: '2146993218' }, { zpid: '999999999' }] },
      key,
    );
    expect(batch.body.meta).toMatchObject({ count: 4, succeeded: 3, failed: 1, cache_hits: 2, credits: 1 });
    const job = await svc.post('/v1/portal/jobs', { items: [{ zpid: '15192198' }, { zpid: '114303858' }, 'x'] }, key);
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    jobId = job.body.data.id;
    expect(await finalJob(svc, jobId, key)).toMatchObject({ status: 'completed', succeeded: 2, failed: 1, credits: 1 });
  });

  it('usage by day agrees with the lookups made, with `used` and with the ledger', async () => {
    const account = (await svc.get('/v1/account', key)).body.data;
    expect(account.used).toBe(3);
    const r = await svc.get('/v1/account/usage', key);
    expect(r.status).toBe(200);
    expectShape(AccountUsageDays, r.body);
    const days = r.body.data.days as any[];
    expect(r.body.data.to).toBe(today());
    expect(r.body.data.from).toBe(`${today().slice(0, 7)}-01`);
    expect(days.map((d) => d.day).at(-1)).toBe(today());
    const day = days.find((d) => d.day === today());
    // 4 single lookups, 4 batch items, 3 job items: 3 live, 4 hits, 4 failed.
    expect(day).toEqual({ day: today(), lookups: 11, live_reads: 3, cache_hits: 4, stale: 0, failed: 4, credits: 3 });
    expect(days.reduce((n, d) => n + d.credits, 0)).toBe(account.used);
    expect(await svc.store.ledger(accountId)).toHaveLength(account.used);
  });

  it('the charges: newest first, one line per credit, paged by cursor; their count is `used`, their lines the ledger', async () => {
    const charges = await allCharges(svc, key, 1);
    expect(charges).toHaveLength(3);
    expect(await allCharges(svc, key, 100)).toEqual(charges);
    const at = charges.map((c) => c.at);
    expect([...at].sort().reverse()).toEqual(at);
    const ledger = await svc.store.ledger(accountId);
    expect(charges.map((c) => [c.request_id, c.cache_key, c.kind]).sort()).toEqual(
      ledger.map((e) => [e.requestId, e.cacheKey, e.kind]).sort(),
    );
    for (const c of charges) expect(c).toMatchObject({ source: 'self_hosted', credits: 1, kind: 'included' });
    // The single lookup's charge carries the request id its answer had; the job's names the job.
    expect(charges.find((c) => c.cache_key === 'zpid:2146993218')).toMatchObject({
      request_id: singleRequestId,
      job_id: null,
    });
    expect(charges.find((c) => c.cache_key === 'zpid:15192198')).toMatchObject({
      request_id: `job:${jobId}:0`,
      job_id: jobId,
    });
  });

  it('as CSV: RFC 4180, the same lines, the next cursor in a header', async () => {
    const json = await allCharges(svc, key, 100);
    const res = await svc.fetch(`${svc.url}/v1/account/charges?format=csv&limit=2`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = parseCsvRows(await res.text());
    expect(header).toEqual([...CHARGE_CSV_COLUMNS]);
    expect(rows).toHaveLength(2);
    const col = (row: string[], c: string) => row[header!.indexOf(c)];
    expect(rows.map((row) => col(row, 'request_id'))).toEqual(json.slice(0, 2).map((c) => c.request_id));
    expect(rows.map((row) => col(row, 'credits'))).toEqual(['1', '1']);
    const next = res.headers.get('x-next-cursor');
    expect(next).toBeTruthy();
    const rest = await svc.fetch(`${svc.url}/v1/account/charges?format=csv&cursor=${next}`, {
      headers: { 'x-api-key': key },
    });
    expect(parseCsvRows(await rest.text()).slice(1)).toHaveLength(1);
    expect(rest.headers.get('x-next-cursor')).toBeNull();
  });

  it('a text a spreadsheet would run is written as text', async () => {
    // A charge whose request id starts with '=' and holds a quote and a comma (written to the store directly).
    const other = seededAccountId(hashApiKey(DEFAULT_ACCOUNTS.free!.key, svc.config.apiKeySecret));
    const day = today();
    const reservationId = `res-${randomUUID()}`;
    const held = await svc.store.reserve({
      reservationId,
      accountId: other,
      period: 'lifetime',
      included: 50,
      overage: null,
      budget: { day, scope: 'service', cap: null },
      ttlMs: 60_000,
    });
    expect(held.ok).toBe(true);
    expect(
      await svc.store.commit({
        reservationId,
        accountId: other,
        cacheKey: 'zpid:1',
        requestId: '=HYPERLINK("http://x","a,b")',
        kind: 'included',
        at: new Date().toISOString(),
      }),
    ).toBe(true);
    const res = await svc.fetch(`${svc.url}/v1/account/charges?format=csv`, {
      headers: { 'x-api-key': DEFAULT_ACCOUNTS.free!.key },
    });
    const text = await res.text();
    expect(text).toContain(`"'=HYPERLINK(""http://x"",""a,b"")"`);
    const [, row] = parseCsvRows(text);
    expect(row![1]).toBe(`'=HYPERLINK("http://x","a,b")`);
    expect(row![3]).toBe(''); // no source recorded: empty
  });

  it('GraphQL and MCP answer the same days and charges', async () => {
    const rest = {
      days: (await svc.get('/v1/account/usage', key)).body.data,
      charges: await allCharges(svc, key, 100),
    };
    const camel = (o: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/_(.)/g, (_, c: string) => c.toUpperCase()), v]));
    const query = `query($after: String) { account { used usage { from to days { day lookups liveReads cacheHits stale failed credits } }
      charges(first: 2, after: $after) { charges { at requestId cacheKey source jobId watchId kind credits } endCursor hasNextPage } } }`;
    const first = await svc.post('/graphql', { query }, key);
    expect(first.body.errors).toBeUndefined();
    const account = first.body.data.account;
    expect(account.usage).toEqual({ ...rest.days, days: rest.days.days.map(camel) });
    expect(account.charges.hasNextPage).toBe(true);
    const second = await svc.post('/graphql', { query, variables: { after: account.charges.endCursor } }, key);
    const gqlCharges = [...account.charges.charges, ...second.body.data.account.charges.charges];
    expect(second.body.data.account.charges).toMatchObject({ endCursor: null, hasNextPage: false });
    expect(gqlCharges).toEqual(rest.charges.map(camel));
    const bad = await svc.post('/graphql', { query: '{ account { usage(from: "2026-1-1") { from } } }' }, key);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'bad_param', details: { param: 'from' } });

    const client = new Client({ name: 'account-record-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        ((await client.callTool({ name, arguments: args })) as any).structuredContent;
      const usage = await call('account_usage', { from: rest.days.from, to: rest.days.to });
      expect(usage.data.days).toEqual(rest.days.days);
      const page = await call('account_charges', { limit: 100 });
      expect(page).toEqual({ data: rest.charges, meta: { next_cursor: null } });
      expect((await call('account_charges', { cursor: 'nope' })).error.code).toBe('bad_param');
    } finally {
      await client.close();
    }
  });

  it.each([
    ['/v1/account/usage?from=2026-13-01', 'from'],
    ['/v1/account/usage?from=2026-02-30', 'from'],
    ['/v1/account/usage?to=yesterday', 'to'],
    ['/v1/account/usage?from=2026-03-02&to=2026-03-01', 'from'],
    ['/v1/account/usage?from=2026-01-01&to=2026-04-04', 'to'],
    ['/v1/account/usage?day=2026-01-01', 'day'],
    ['/v1/account/charges?cursor=nope', 'cursor'],
    [`/v1/account/charges?cursor=${Buffer.from('c1:abc').toString('base64url')}`, 'cursor'],
    ['/v1/account/charges?limit=0', 'limit'],
    ['/v1/account/charges?limit=101', 'limit'],
    ['/v1/account/charges?limit=ten', 'limit'],
    ['/v1/account/charges?format=xml', 'format'],
  ])('%s is 400 bad_param naming %s', async (path, param) => {
    const r = await svc.get(path, key);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'bad_param', details: { param } });
  });

  it('93 days at most, and a range of past days answers every day', async () => {
    const r = await svc.get('/v1/account/usage?from=2026-01-01&to=2026-04-03', key);
    expect(r.status).toBe(200);
    expect(r.body.data.days).toHaveLength(93);
    expect(r.body.data.days[0]).toEqual({
      day: '2026-01-01',
      lookups: 0,
      live_reads: 0,
      cache_hits: 0,
      stale: 0,
      failed: 0,
      credits: 0,
    });
  });

  it('no key is 401; reading the record charges nothing and counts no lookup', async () => {
    expect((await svc.get('/v1/account/usage', null)).status).toBe(401);
    expect((await svc.get('/v1/account/charges', 'wrong_key_000000001')).status).toBe(401);
    const before = (await svc.get('/v1/account/usage', key)).body.data.days.at(-1);
    for (let i = 0; i < 3; i++) {
      await svc.get('/v1/account/usage', key);
      await svc.get('/v1/account/charges?format=csv', key);
    }
    expect((await svc.get('/v1/account/usage', key)).body.data.days.at(-1)).toEqual(before);
    expect((await svc.get('/v1/account', key)).body.data.used).toBe(3);
  });
});

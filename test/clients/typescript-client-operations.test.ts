// The TypeScript client's operations beyond a lookup, against the real service on a socket: a job made,
// followed through its events to completion and its NDJSON results read; a watch made, listed, read and
// ended. Its retries: a real 429 rate_limited (a limiter whose windows pass in two seconds) waited out by
// retry-after; a 429 then 200 from a fake server; a wait past the bound handed to the caller at once; a
// dropped connection retried with backoff for a GET and a keyed POST, never for a POST without a key.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backoffMs,
  PortalApiError,
  PortalClient,
  PortalNetworkError,
  retryAfterMs,
  type JobEvent,
  type RetryEvent,
} from '../../clients/typescript/client.js';
import { quickRateLimiter } from '../helpers/quick-rate-limit.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let client: PortalClient;
/** The Idempotency-Key of each request the client sent, by method and path. */
const sent: Array<{ method: string; path: string; key: string | null }> = [];

beforeAll(async () => {
  svc = await startTestService({ socket: 'other-program', env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  client = new PortalClient({
    baseUrl: svc.url,
    apiKey: svc.keys.free!,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({
        method: request.method,
        path: new URL(request.url).pathname,
        key: request.headers.get('idempotency-key'),
      });
      return fetch(request);
    },
  });
});
afterAll(() => svc.close());

describe('jobs', () => {
  it('a job runs to completion: made with a random Idempotency-Key, its events end with done, its results stream in item order', async () => {
    const items = [{ zpid: '114303858' }, '661 Lakeview Ave, San Francisco, CA 94112', { zpid: 'not-a-zpid' }];
    const created = await client.createJob(items);
    expect(created).toMatchObject({ status: 'queued', count: 3 });
    const post = sent.find((s) => s.method === 'POST' && s.path === '/v1/portal/jobs')!;
    expect(post.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const events: JobEvent[] = [];
    for await (const e of client.jobEvents(created.id)) events.push(e);
    expect(events.at(-1)!.event).toBe('done');
    expect(events.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);
    const final = events.at(-1)!.job;
    expect(final).toMatchObject({ id: created.id, status: 'completed', count: 3, done: 3, succeeded: 2, failed: 1 });
    expect(await client.job(created.id)).toEqual(final);
    expect(await client.waitForJob(created.id)).toEqual(final);

    const results = [];
    for await (const r of client.jobResults(created.id)) results.push(r);
    expect(results.map((r) => [r.index, r.ok])).toEqual([
      [0, true],
      [1, true],
      [2, false],
    ]);
    expect(results[0]).toMatchObject({ ok: true, data: { zpid: '114303858' } });
    expect(results[2]).toMatchObject({ ok: false, error: { code: 'bad_param' } });

    // Listed (a page, and every page through the iterator); cancelling a finished job changes nothing.
    expect((await client.listJobs({ limit: 5 })).data.map((j) => j.id)).toContain(created.id);
    const all = [];
    for await (const j of client.jobs(1)) all.push(j.id);
    expect(all).toContain(created.id);
    expect(await client.cancelJob(created.id)).toMatchObject({ id: created.id, status: 'completed' });
  });

  it('the same Idempotency-Key given twice is the same job; another account cannot read it', async () => {
    const a = await client.createJob([{ zpid: '114303858' }], {}, { idempotencyKey: 'ts-client-job-1' });
    const b = await client.createJob([{ zpid: '114303858' }], {}, { idempotencyKey: 'ts-client-job-1' });
    expect(b.id).toBe(a.id);
    const other = new PortalClient({ baseUrl: svc.url, apiKey: svc.keys.paid! });
    await expect(other.job(a.id)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await client.waitForJob(a.id);
  });

  it('a batch carries a random Idempotency-Key by default, a new one per call; idempotencyKey: false sends none', async () => {
    sent.length = 0;
    await client.batch([{ zpid: '114303858' }]);
    await client.batch([{ zpid: '114303858' }]);
    await client.batch([{ zpid: '114303858' }], {}, { idempotencyKey: false });
    const keys = sent.filter((s) => s.path === '/v1/portal/batch').map((s) => s.key);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBeNull();
  });
});

describe('watches', () => {
  it('a watch is made (201), listed, read and ended; then it is not_found', async () => {
    const watch = await client.createWatch(
      { zpid: '15192198' },
      { webhook_url: 'http://127.0.0.1:9/hooks', interval_hours: 24 },
    );
    expect(watch).toMatchObject({ zpid: '15192198', interval_hours: 24, webhook_url: 'http://127.0.0.1:9/hooks' });
    expect((await client.watches()).map((w) => w.id)).toContain(watch.id);
    expect((await client.watch(watch.id)).id).toBe(watch.id);
    await client.deleteWatch(watch.id);
    await expect(client.watch(watch.id)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect((await client.watches()).map((w) => w.id)).not.toContain(watch.id);
  });
});

describe('usage and the cost preview', () => {
  it('usage is the account; a preview charges nothing', async () => {
    const before = await client.usage();
    const preview = await client.batchPreview([{ zpid: '999000104' }]);
    expect(preview.meta).toMatchObject({ credits: 0, credits_estimate: 1 });
    expect((await client.usage()).used).toBe(before.used);
  });
});

/** A loopback server answering each request with `answer(n, req)` (n from 1), or dropping it when that is 'drop'. */
async function fakeServer(
  answer: (
    n: number,
    req: IncomingMessage,
  ) => { status: number; headers?: Record<string, string>; body?: string } | 'drop',
): Promise<{ url: string; server: Server; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    const a = answer(requests.length, req);
    req.resume();
    if (a === 'drop') {
      req.socket.destroy();
      return;
    }
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(a.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

const usageBody = JSON.stringify({
  data: {
    plan: 'free',
    key_prefix: 'test_',
    used: 1,
    included: 50,
    remaining: 49,
    period_end: null,
    overage_enabled: false,
    overage_used: 0,
    overage_usd: 0,
    spend_limit_usd: null,
  },
  meta: { took_ms: 1 },
});
const rateLimited = (retryAfter: string) => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: JSON.stringify({ error: { code: 'rate_limited', message: 'Too many requests.' }, meta: { took_ms: 0 } }),
});

describe('retries', () => {
  it("the service's own 429 rate_limited is waited out by its retry-after and the call answers", async () => {
    const limited = await startTestService({ socket: 'other-program', limits: quickRateLimiter(1) });
    try {
      const retries: RetryEvent[] = [];
      const c = new PortalClient({
        baseUrl: limited.url,
        apiKey: limited.keys.free!,
        retry: { onRetry: (e) => retries.push(e) },
      });
      // One lookup per window of two seconds: the second or third call in a row meets the 429.
      for (let i = 0; i < 5 && retries.length === 0; i++) {
        expect((await c.property({ zpid: '114303858' })).data.zpid).toBe('114303858');
      }
      expect(retries[0]).toMatchObject({ method: 'GET', status: 429, attempt: 1 });
      expect(retries[0]!.waitMs).toBeGreaterThanOrEqual(1000);
      expect(retries[0]!.waitMs).toBeLessThanOrEqual(2000);
      // Without retries the same refusal is the caller's: the service's code and its wait.
      const once = new PortalClient({ baseUrl: limited.url, apiKey: limited.keys.free!, retry: false });
      let refused: unknown;
      for (let i = 0; i < 5 && !refused; i++)
        refused = await once.property({ zpid: '114303858' }).then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(refused).toMatchObject({ code: 'rate_limited', status: 429 });
      expect((refused as PortalApiError).retryAfter).toBeLessThanOrEqual(2);
    } finally {
      await limited.close();
    }
  });

  it('a 429 then a 200 (a fake server): one retry after retry-after, the 200 answered', async () => {
    const fake = await fakeServer((n) => (n === 1 ? rateLimited('1') : { status: 200, body: usageBody }));
    try {
      const retries: RetryEvent[] = [];
      const started = Date.now();
      const c = new PortalClient({ baseUrl: fake.url, apiKey: 'k', retry: { onRetry: (e) => retries.push(e) } });
      expect((await c.usage()).remaining).toBe(49);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(fake.requests).toHaveLength(2);
      expect(retries).toEqual([expect.objectContaining({ status: 429, waitMs: 1000, attempt: 1 })]);
    } finally {
      fake.server.close();
    }
  });

  it('attempts are bounded: four 429s and the last is thrown; a wait past maxTotalWaitMs is not waited', async () => {
    const fake = await fakeServer(() => rateLimited('0'));
    try {
      const c = new PortalClient({ baseUrl: fake.url, apiKey: 'k' });
      await expect(c.usage()).rejects.toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 0 });
      expect(fake.requests).toHaveLength(4);
    } finally {
      fake.server.close();
    }
    const slow = await fakeServer(() => rateLimited('45'));
    try {
      const started = Date.now();
      const c = new PortalClient({ baseUrl: slow.url, apiKey: 'k' });
      await expect(c.usage()).rejects.toMatchObject({ code: 'rate_limited', retryAfter: 45 });
      expect(slow.requests).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      slow.server.close();
    }
  });

  it('a dropped connection: a GET and a keyed POST are sent again (the same key), a POST without a key never', async () => {
    // Dropped: the first GET, the first keyed POST, then every POST without a key (the 5th and 6th requests).
    const fake = await fakeServer((n, req) =>
      [1, 3, 5, 6].includes(n)
        ? 'drop'
        : req.url === '/v1/account'
          ? { status: 200, body: usageBody }
          : {
              status: 200,
              body: JSON.stringify({
                data: [],
                meta: { count: 0, succeeded: 0, failed: 0, cache_hits: 0, credits: 0, took_ms: 0 },
              }),
            },
    );
    try {
      const retries: RetryEvent[] = [];
      const c = new PortalClient({
        baseUrl: fake.url,
        apiKey: 'k',
        retry: { baseDelayMs: 10, onRetry: (e) => retries.push(e) },
      });
      expect((await c.usage()).plan).toBe('free');
      await c.batch([{ zpid: '114303858' }]);
      const keys = fake.requests.slice(2, 4).map((r) => r.headers['idempotency-key']);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(retries.map((r) => [r.method, r.status])).toEqual([
        ['GET', undefined],
        ['POST', undefined],
      ]);
      // A watch's POST takes no key: dropped once, it is the caller's failure, never sent twice.
      const e = await c
        .createWatch({ zpid: '1' }, { webhook_url: 'http://127.0.0.1:9/h', interval_hours: 24 })
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(PortalNetworkError);
      expect(fake.requests).toHaveLength(5);
      // So is a batch sent with idempotencyKey: false.
      await expect(c.batch([{ zpid: '1' }], {}, { idempotencyKey: false })).rejects.toBeInstanceOf(PortalNetworkError);
      expect(fake.requests).toHaveLength(6);
    } finally {
      fake.server.close();
    }
  });

  it("a keyed request's 409 idempotency_key_in_use with retry-after is waited out: the first attempt's answer comes", async () => {
    const inUse = {
      status: 409,
      headers: { 'retry-after': '0' },
      body: JSON.stringify({
        error: { code: 'idempotency_key_in_use', message: 'Still running.' },
        meta: { took_ms: 0 },
      }),
    };
    const batchBody = JSON.stringify({
      data: [],
      meta: { count: 0, succeeded: 0, failed: 0, cache_hits: 0, credits: 0, took_ms: 0 },
    });
    const fake = await fakeServer((n) => (n === 1 ? inUse : { status: 200, body: batchBody }));
    try {
      const c = new PortalClient({ baseUrl: fake.url, apiKey: 'k' });
      expect((await c.batch([{ zpid: '1' }])).meta.count).toBe(0);
      expect(fake.requests).toHaveLength(2);
    } finally {
      fake.server.close();
    }
  });

  it('retry-after as seconds or an HTTP date; the backoff doubles, jittered, capped', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000 + 5_000).toUTCString(), 10_000)).toBe(5000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
    for (let i = 0; i < 50; i++) {
      const first = backoffMs(1, { baseDelayMs: 100 });
      const third = backoffMs(3, { baseDelayMs: 100 });
      const capped = backoffMs(20, { baseDelayMs: 100, maxDelayMs: 1000 });
      expect(first).toBeGreaterThanOrEqual(50);
      expect(first).toBeLessThanOrEqual(100);
      expect(third).toBeGreaterThanOrEqual(200);
      expect(third).toBeLessThanOrEqual(400);
      expect(capped).toBeLessThanOrEqual(1000);
    }
  });
});

// The request log and request ids (issue 12): one line per request with what the core recorded
// (account id, never the key; route, status, error code, cache, source, upstream ms, credits, took ms);
// x-request-id accepted when sane, echoed, and in error bodies as meta.request_id; upstream failures
// warned at most once per cause per minute; LOG_PRETTY's readable lines.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seedAccounts, seededAccountId } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { LookupError } from '../../src/contract/index.js';
import { createLogger } from '../../src/logger.js';
import { UpstreamWarnings } from '../../src/observability/upstream-warnings.js';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore } from '../../src/store/index.js';

const KEY = 'test_request_log_key_0001';
const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function sink(): { stream: Writable; lines: Array<Record<string, any>>; text: () => string } {
  const lines: Array<Record<string, any>> = [];
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, any>);
      done();
    },
  });
  return { stream, lines, text: () => text };
}

describe('one line per request, request ids', () => {
  const log = sink();
  let app: Awaited<ReturnType<typeof buildApp>>;
  let replay: Awaited<ReturnType<typeof startReplayServer>>;
  let accountId: string;
  let store: MemoryStore;

  beforeAll(async () => {
    replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
    const config = loadConfig({
      PORTAL_ORIGIN: replay.origin,
      PORTAL_SUGGEST_URL: replay.suggestUrl,
      LOG_LEVEL: 'info',
      LOOKUP_TIMEOUT_MS: '5000',
    });
    store = new MemoryStore();
    await seedAccounts(store, [{ key: KEY, plan: 'free' }], config.apiKeySecret);
    accountId = seededAccountId(hashApiKey(KEY, config.apiKeySecret));
    app = await buildApp({
      config,
      store,
      collector: createCollector(config),
      logger: createLogger('info', log.stream),
    });
  });
  afterAll(async () => {
    await app.close();
    await replay.close();
  });

  const requestLine = (reqId: string) => log.lines.find((l) => l.msg === 'request' && l.reqId === reqId);

  it('a live lookup, then a hit: account id, route, cache, source, upstream ms, credits, took ms; never the key', async () => {
    const miss = await app.inject({
      url: '/v1/portal/property?zpid=2146993218',
      headers: { 'x-api-key': KEY, 'x-request-id': 'client-req.0001' },
    });
    expect(miss.statusCode).toBe(200);
    expect(miss.headers['x-request-id']).toBe('client-req.0001');
    const hit = await app.inject({ url: '/v1/portal/property?zpid=2146993218', headers: { 'x-api-key': KEY } });
    const hitId = String(hit.headers['x-request-id']);
    expect(hitId).toMatch(UUID);

    const missLine = requestLine('client-req.0001')!;
    expect(missLine).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/v1/portal/property',
      statusCode: 200,
      account: accountId,
      code: null,
      cache: 'miss',
      source: 'self_hosted',
      credits: 1,
      lookups: 1,
    });
    // Durations by shape only (whole milliseconds, never negative): their values are the clock's, not the test's.
    for (const field of ['upstreamMs', 'tookMs'] as const) {
      expect(Number.isInteger(missLine[field]), field).toBe(true);
      expect(missLine[field] as number, field).toBeGreaterThanOrEqual(0);
    }
    expect(requestLine(hitId)).toMatchObject({
      statusCode: 200,
      account: accountId,
      cache: 'hit',
      source: 'self_hosted',
      credits: 0,
      upstreamMs: 0,
      lookups: 1,
    });
    expect(log.text()).not.toContain(KEY);
  });

  it('an error: its code in the line and meta.request_id in the body, the same id as the header', async () => {
    const bad = await app.inject({
      url: '/v1/portal/property?zpid=12x',
      headers: { 'x-api-key': KEY, 'x-request-id': 'trace-7f3a' },
    });
    expect(bad.statusCode).toBe(400);
    const body = bad.json();
    expect(body.meta).toEqual({ took_ms: expect.any(Number), request_id: 'trace-7f3a' });
    expect(requestLine('trace-7f3a')).toMatchObject({
      statusCode: 400,
      code: 'bad_param',
      account: accountId,
      credits: 0,
      cache: null,
    });

    const unknown = await app.inject({ url: '/v1/portal/property?zpid=1', headers: { 'x-api-key': `${KEY}x` } });
    expect(unknown.statusCode).toBe(401);
    const id = String(unknown.headers['x-request-id']);
    expect(unknown.json().meta.request_id).toBe(id);
    expect(requestLine(id)).toMatchObject({ statusCode: 401, code: 'invalid_api_key', account: null });
  });

  it("a client's x-request-id never reaches the ledger: the core's own id does, logged beside it", async () => {
    const sent = ['999000101', '999000104'].map((zpid) =>
      app.inject({
        url: `/v1/portal/property?zpid=${zpid}`,
        headers: { 'x-api-key': KEY, 'x-request-id': 'same-client-id' },
      }),
    );
    const answers = await Promise.all(sent);
    expect(answers.map((r) => [r.statusCode, r.headers['x-request-id'], r.json().meta.credits])).toEqual([
      [200, 'same-client-id', 1],
      [200, 'same-client-id', 1],
    ]);
    const charged = (await store.ledger(accountId)).filter(
      (e) => e.cacheKey === 'zpid:999000101' || e.cacheKey === 'zpid:999000104',
    );
    expect(charged).toHaveLength(2);
    const ids = charged.map((e) => e.requestId);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
    const lines = log.lines.filter((l) => l.msg === 'request' && l.reqId === 'same-client-id');
    expect(lines.map((l) => l.coreRequestId).sort()).toEqual([...ids].sort());
  });

  it("an id the service made is the ledger entry's, so an answer leads to its charge", async () => {
    const answer = await app.inject({ url: '/v1/portal/property?zpid=999000105', headers: { 'x-api-key': KEY } });
    expect([answer.statusCode, answer.json().meta.credits]).toEqual([200, 1]);
    const id = String(answer.headers['x-request-id']);
    expect(id).toMatch(UUID);
    const charged = (await store.ledger(accountId)).filter((e) => e.cacheKey === 'zpid:999000105');
    expect(charged.map((e) => e.requestId)).toEqual([id]);
    expect(requestLine(id)).toMatchObject({ coreRequestId: id, credits: 1 });
  });

  it('an x-request-id that is not a sane token is replaced, never echoed', async () => {
    for (const given of ['has space', 'x'.repeat(129), 'new\u2028line', '-leading-dash', '']) {
      const r = await app.inject({ url: '/healthz', headers: { 'x-request-id': given } });
      expect(r.headers['x-request-id'], given).toMatch(UUID);
    }
    const ok = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'a'.repeat(128) } });
    expect(ok.headers['x-request-id']).toBe('a'.repeat(128));
  });

  it('a GraphQL request: its lookups, account and credits in its line', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'x-request-id': 'gql-1' },
      payload: JSON.stringify({
        query: '{ a: property(zpid: "2146993218") { __typename } b: property(zpid: "2146993218") { __typename } }',
      }),
    });
    expect(r.statusCode).toBe(200);
    expect(requestLine('gql-1')).toMatchObject({
      route: '/graphql',
      account: accountId,
      lookups: 2,
      cache: 'hit',
      credits: 0,
    });
    const refused = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': `${KEY}x`, 'x-request-id': 'gql-2' },
      payload: JSON.stringify({ query: '{ property(zpid: "2146993218") { __typename } }' }),
    });
    expect(refused.statusCode).toBe(401);
    expect(requestLine('gql-2')).toMatchObject({
      route: '/graphql',
      statusCode: 401,
      code: 'invalid_api_key',
      account: null,
    });
  });

  it('bot walls are warned once per minute, with their cause', async () => {
    replay.faults.set('/homedetails/114303858_zpid/', { status: 403, body: WALL });
    replay.faults.set('/homedetails/15192198_zpid/', { status: 403, body: WALL });
    try {
      const before = log.lines.length;
      for (const zpid of ['114303858', '15192198']) {
        const r = await app.inject({ url: `/v1/portal/property?zpid=${zpid}`, headers: { 'x-api-key': KEY } });
        expect(r.json().error.code).toBe('upstream_blocked');
      }
      const warns = log.lines.slice(before).filter((l) => l.level === 40 && l.msg === 'upstream failure: bot_wall');
      expect(warns).toHaveLength(1);
      expect(warns[0]).toMatchObject({ cause: 'bot_wall', code: 'upstream_blocked', operation: 'read' });
    } finally {
      replay.faults.clear();
    }
  });
});

describe('UpstreamWarnings', () => {
  it('one line per cause per minute; the next line counts the repeats it suppressed', () => {
    const log = sink();
    let now = 1_000_000;
    const warnings = new UpstreamWarnings(createLogger('info', log.stream), () => now);
    const wall = new LookupError('upstream_blocked', { details: { reason: 'bot_wall' } });
    const auth = new LookupError('upstream_auth');
    warnings.failed(wall, 'read');
    warnings.failed(wall, 'read');
    warnings.failed(auth, 'resolve');
    warnings.failed(new LookupError('upstream_quota'), 'read');
    warnings.failed(new LookupError('not_found'), 'read');
    now += 59_999;
    warnings.failed(wall, 'read');
    now += 1;
    warnings.failed(wall, 'read');
    expect(log.lines.map((l) => [l.level, l.cause, l.suppressed])).toEqual([
      [40, 'bot_wall', 0],
      [40, 'provider_auth', 0],
      [40, 'provider_quota', 0],
      [40, 'bot_wall', 2],
    ]);
  });
});

describe('LOG_PRETTY', () => {
  it('writes readable lines instead of JSON, still without the key', () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    });
    const logger = createLogger('info', stream, true);
    logger.info({ route: '/v1/portal/property', statusCode: 200, apiKey: KEY }, 'request');
    expect(text).toMatch(/INFO.*request/);
    expect(text).toContain('statusCode');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).not.toContain(KEY);
  });
});

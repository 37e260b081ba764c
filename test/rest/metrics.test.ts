// GET /metrics (issue 12): on the main port only with METRICS_TOKEN as a bearer token (404 without
// one configured), on METRICS_PORT without a token; values that move with the service's work, read by
// value; one registry per instance.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerPort } from '../../src/observability/http.js';
import { startFakeActorPlatform, type FakeActorPlatform } from '../fakes/fake-actor-platform.js';
import { recordedBatch, todaysShape } from '../helpers/fallback-items.js';
import { declares, parseMetrics, valueOf } from '../observability/prometheus.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';

const TOKEN = 'metrics-token-for-tests-0001';
const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);

const scrape = async (svc: TestService, token: string | null = TOKEN) => {
  const res = await svc.fetch(
    `${svc.url}/metrics`,
    token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe('/metrics on the main port', () => {
  let svc: TestService;
  let other: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { METRICS_TOKEN: TOKEN, LOOKUP_TIMEOUT_MS: '5000' } });
    other = await startTestService({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await svc.close();
    await other.close();
  });

  it('refuses a missing or wrong token in the envelope (401), with the v1 headers', async () => {
    const none = await scrape(svc, null);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error.code).toBe('missing_api_key');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(none.headers.get('x-api-version')).toBe('v1');
    const wrong = await scrape(svc, `${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error).toMatchObject({
      code: 'invalid_api_key',
      details: { header: 'authorization' },
    });
    expect(wrong.text).not.toContain(TOKEN);
  });

  it('answers Prometheus text with the token, declaring every metric of the issue', async () => {
    const r = await scrape(svc);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'http_requests_total',
      'lookups_total',
      'upstream_read_seconds',
      'upstream_bot_walls_total',
      'upstream_fallbacks_total',
      'credits_billed_total',
      'batch_size',
      'store_command_seconds',
      'store_errors_total',
      'event_loop_lag_seconds',
      'page_worker_queue_length',
      'rate_limited_total',
      'idempotent_requests_total',
    ])
      expect(declares(r.text, name), name).toBe(true);
  });

  it('lookups, credits, upstream reads, store calls and HTTP requests move with the work, by value', async () => {
    const before = parseMetrics((await scrape(svc)).text);
    const miss = await svc.get('/v1/portal/property?zpid=2146993218');
    const hit = await svc.get('/v1/portal/property?zpid=2146993218');
    expect([miss.status, hit.status, miss.body.meta.credits, hit.body.meta.credits]).toEqual([200, 200, 1, 0]);
    const batch = await svc.post('/v1/portal/batch', { items: [{ zpid: '2146993218' }, 'not a link or address'] });
    expect(batch.status).toBe(200);
    const after = parseMetrics((await scrape(svc)).text);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(moved('lookups_total', { code: 'ok', source: 'self_hosted', cache: 'miss' })).toBe(1);
    // The second single lookup and the batch's valid item were cache hits.
    expect(moved('lookups_total', { code: 'ok', source: 'self_hosted', cache: 'hit' })).toBe(2);
    expect(moved('lookups_total', { code: 'bad_param', source: 'none', cache: 'miss' })).toBe(1);
    expect(moved('credits_billed_total')).toBe(1);
    expect(moved('upstream_read_seconds_count', { operation: 'read', provider: 'self_hosted', outcome: 'ok' })).toBe(1);
    expect(moved('batch_size_count')).toBe(1);
    expect(moved('batch_size_sum')).toBe(2);
    expect(moved('http_requests_total', { route: '/v1/portal/property', method: 'GET', status: '200' })).toBe(2);
    expect(moved('http_requests_total', { route: '/v1/portal/batch', method: 'POST', status: '200' })).toBe(1);
    // The charge: one reserve and one commit of the store.
    expect(moved('store_command_seconds_count', { command: 'reserve' })).toBe(1);
    expect(moved('store_command_seconds_count', { command: 'commit' })).toBe(1);
    // Both lag samples are there (valueOf would read a missing one as 0), the max never below the p99.
    const lag = after.filter((x) => x.name === 'event_loop_lag_seconds');
    expect(lag.map((x) => x.labels.quantile).sort()).toEqual(['0.99', 'max']);
    expect(valueOf(after, 'event_loop_lag_seconds', { quantile: 'max' })).toBeGreaterThanOrEqual(
      valueOf(after, 'event_loop_lag_seconds', { quantile: '0.99' }),
    );
  });

  it('counts requests with an Idempotency-Key by outcome: ran, replayed, key_reused', async () => {
    const before = parseMetrics((await scrape(svc)).text);
    const send = (zpid: string) =>
      svc.post('/v1/portal/batch', { items: [{ zpid }] }, undefined, { 'idempotency-key': 'metrics-1' });
    const statuses = [
      (await send('2146993218')).status,
      (await send('2146993218')).status,
      (await send('15192198')).status,
    ];
    expect(statuses).toEqual([200, 200, 422]);
    const after = parseMetrics((await scrape(svc)).text);
    const moved = (outcome: string) =>
      valueOf(after, 'idempotent_requests_total', { outcome }) -
      valueOf(before, 'idempotent_requests_total', { outcome });
    expect(['ran', 'replayed', 'key_reused', 'not_kept', 'key_in_use'].map(moved)).toEqual([1, 1, 1, 0, 0]);
  });

  it('counts a bot wall and the failed lookup by its code', async () => {
    const path = '/homedetails/114303858_zpid/';
    svc.replay.faults.set(path, { status: 403, body: WALL });
    try {
      const before = parseMetrics((await scrape(svc)).text);
      const r = await svc.get('/v1/portal/property?zpid=114303858');
      expect(r.body.error.code).toBe('upstream_blocked');
      const after = parseMetrics((await scrape(svc)).text);
      expect(valueOf(after, 'upstream_bot_walls_total') - valueOf(before, 'upstream_bot_walls_total')).toBe(1);
      const blocked = { code: 'upstream_blocked', source: 'none', cache: 'miss' };
      expect(valueOf(after, 'lookups_total', blocked) - valueOf(before, 'lookups_total', blocked)).toBe(1);
      const read = { operation: 'read', provider: 'none', outcome: 'upstream_blocked' };
      expect(
        valueOf(after, 'upstream_read_seconds_count', read) - valueOf(before, 'upstream_read_seconds_count', read),
      ).toBe(1);
      // No fallback provider is set up: nothing handed over.
      expect(valueOf(after, 'upstream_fallbacks_total', { operation: 'read' })).toBe(0);
    } finally {
      svc.replay.faults.clear();
    }
  });

  it('each instance has its own registry: the other instance counted none of this work', async () => {
    const samples = parseMetrics((await scrape(other)).text);
    expect(valueOf(samples, 'credits_billed_total')).toBe(0);
    expect(valueOf(samples, 'lookups_total', { code: 'ok', source: 'self_hosted', cache: 'miss' })).toBe(0);
  });
});

describe('/metrics when a stale answer stands in for a walled read', () => {
  let svc: TestService;
  let now = Date.parse('2026-06-01T12:00:00.000Z');
  beforeAll(async () => {
    svc = await startTestService({ clock: () => new Date(now), env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => svc?.close());

  it('counts it ok with cache="stale", neither a hit nor a miss, and bills nothing', async () => {
    const zpid = '2146993218';
    expect((await svc.get(`/v1/portal/property?zpid=${zpid}`)).body.meta.credits).toBe(1);
    now += 25 * 3600_000;
    svc.replay.faults.set(recordedPage(zpid).path, { status: 403, body: WALL });
    const before = parseMetrics((await scrape(svc)).text);
    const r = await svc.get(`/v1/portal/property?zpid=${zpid}`);
    expect(r.body.meta).toMatchObject({ stale: true, stale_reason: 'upstream_blocked', credits: 0 });
    const after = parseMetrics((await scrape(svc)).text);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved('lookups_total', { code: 'ok', source: 'self_hosted', cache: 'stale' })).toBe(1);
    expect(moved('lookups_total', { code: 'ok', source: 'self_hosted', cache: 'hit' })).toBe(0);
    expect(moved('lookups_total', { code: 'upstream_blocked', source: 'none', cache: 'miss' })).toBe(0);
    expect(moved('credits_billed_total')).toBe(0);
    expect(moved('upstream_bot_walls_total')).toBe(1);
  });
});

describe('/metrics without METRICS_TOKEN, and on METRICS_PORT', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { METRICS_PORT: '0' } });
  });
  afterAll(() => svc.close());

  it('is no route on the main port without a token configured (404 route_not_found)', async () => {
    const r = await scrape(svc, null);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error.code).toBe('route_not_found');
  });

  it('answers on its own port without a token, and only /metrics there', async () => {
    const server = svc.app.metricsServer;
    expect(server).not.toBeNull();
    const base = `http://127.0.0.1:${listenerPort(server!)}`;
    await svc.get('/v1/portal/property?zpid=2146993218');
    const r = await fetch(`${base}/metrics`);
    expect(r.status).toBe(200);
    const samples = parseMetrics(await r.text());
    expect(valueOf(samples, 'credits_billed_total')).toBe(1);
    expect(
      valueOf(samples, 'http_requests_total', { route: '/v1/portal/property', method: 'GET', status: '200' }),
    ).toBe(1);
    const elsewhere = await fetch(`${base}/v1/account`);
    expect(elsewhere.status).toBe(404);
    expect((await elsewhere.json()).error.code).toBe('route_not_found');
  });
});

describe('/metrics when the fallback provider reads a walled home', () => {
  let platform: FakeActorPlatform;
  let svc: TestService;
  beforeAll(async () => {
    platform = await startFakeActorPlatform({ homes: recordedBatch().map(todaysShape) });
    svc = await startTestService({
      env: {
        METRICS_TOKEN: TOKEN,
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
        LOOKUP_TIMEOUT_MS: '5000',
      },
    });
    svc.replay.faults.set('/homedetails/7521381_zpid/', { status: 403, body: WALL });
  });
  afterAll(async () => {
    await svc.close();
    await platform.close();
  });

  it('counts the bot wall, the hand-over and the lookup under source fallback', async () => {
    const r = await svc.get('/v1/portal/property?zpid=7521381');
    expect(r.status).toBe(200);
    expect(r.body.meta.source.fallback_from).toBe('self_hosted');
    const samples = parseMetrics((await scrape(svc)).text);
    expect(valueOf(samples, 'upstream_bot_walls_total')).toBe(1);
    expect(valueOf(samples, 'upstream_fallbacks_total', { operation: 'read' })).toBe(1);
    expect(valueOf(samples, 'lookups_total', { code: 'ok', source: 'fallback', cache: 'miss' })).toBe(1);
    expect(
      valueOf(samples, 'upstream_read_seconds_count', { operation: 'read', provider: 'fallback', outcome: 'ok' }),
    ).toBe(1);
    expect(valueOf(samples, 'credits_billed_total')).toBe(1);
  });
});

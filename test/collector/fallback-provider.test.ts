import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkAddress, type ErrorCode } from '../../src/contract/index.js';
import { FallbackProvider, type FallbackProviderOptions } from '../../src/collector/fallback-provider.js';
import type { AddressQuery, ReadContext, ReadTarget } from '../../src/collector/types.js';
import { RUN_ID, forSaleItem, startFakeActorPlatform, type ActorBehaviour, type FakeActorPlatform } from '../fakes/fake-actor-platform.js';
import { failure } from '../helpers/lookup-error.js';
import { closedPort } from '../helpers/replay.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TARGET: ReadTarget = { path: '/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/', zpid: '15192198', building: false };
const ctx = (over: Partial<ReadContext> = {}): ReadContext => ({ signal: new AbortController().signal, now: NOW, ...over });
const address = (line: string): AddressQuery => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(c.reason);
  return { input: line, normalized: c.normalized, parts: c.parts };
};

let platform: FakeActorPlatform;
beforeAll(async () => {
  platform = await startFakeActorPlatform();
});
afterAll(() => platform.close());
beforeEach(() => {
  platform.behaviour = 'ok';
  platform.items = [forSaleItem()];
  platform.calls.length = 0;
});

const provider = (over: Partial<FallbackProviderOptions> = {}) =>
  new FallbackProvider({
    url: platform.url,
    token: platform.token,
    actor: platform.actor,
    maxCostUsd: 0.05,
    name: 'apify',
    timeoutMs: 5_000,
    clock: () => NOW,
    ...over,
  });

describe('FallbackProvider.read', () => {
  it('runs the actor with the public link and the cost cap, and maps the item', async () => {
    const got = await provider().read(TARGET, ctx({ status: 'for_sale' }));
    expect(got.zpid).toBe('15192198');
    expect(got.property).toMatchObject({ zpid: '15192198', streetAddress: '661 Lakeview Ave', city: 'San Francisco', zipcode: '94112', scrapedAt: NOW.toISOString() });
    expect(got.raw).toEqual(forSaleItem());
    expect(got.source).toEqual({ provider: 'apify', note: expect.any(String), actor: platform.actor, run_id: RUN_ID });

    expect(platform.calls).toHaveLength(1);
    const call = platform.calls[0]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/v2/acts/maxcopell~zillow-detail-scraper/run-sync-get-dataset-items');
    expect(call.authorization).toBe(`Bearer ${platform.token}`);
    expect(call.query).toEqual({ timeout: '5', maxTotalChargeUsd: '0.05' });
    expect(call.input).toEqual({
      startUrls: [{ url: `https://www.zillow.com${TARGET.path}` }],
      propertyStatus: 'FOR_SALE',
      maxTotalChargeUsd: 0.05,
    });
  });

  it('prefers the item with the zpid asked for', async () => {
    const other = { ...forSaleItem(), zpid: 999 };
    platform.items = [other, forSaleItem()];
    expect((await provider().read(TARGET, ctx())).zpid).toBe('15192198');
  });

  const cases: Array<[ActorBehaviour, ErrorCode, number, Record<string, unknown>]> = [
    ['auth', 'upstream_auth', 503, { status: 401, provider_error: 'user-or-token-not-found' }],
    ['forbidden', 'upstream_auth', 503, { status: 403, provider_error: 'insufficient-permissions' }],
    ['quota', 'upstream_quota', 503, { status: 402, provider_error: 'not-enough-usage-to-run-paid-actor' }],
    ['missing_actor', 'upstream_actor_missing', 503, { status: 404, provider_error: 'actor-not-found' }],
    ['run_failed', 'upstream_run_failed', 502, { status: 400, provider_error: 'run-failed', run_id: RUN_ID }],
    ['failed_status_header', 'upstream_run_failed', 502, { run_id: RUN_ID, run_status: 'FAILED' }],
    ['item_error', 'upstream_run_failed', 502, { run_id: RUN_ID, run_status: 'SUCCEEDED', provider_error: 'Request blocked after 3 retries' }],
    ['run_timed_out', 'upstream_timeout', 504, { status: 408, provider_error: 'run-timeout-exceeded', reason: 'run_timeout' }],
    ['cost_cap', 'upstream_cost_cap', 502, { run_id: RUN_ID, run_status: 'SUCCEEDED', reason: expect.stringContaining('maximum total charge') }],
    ['cost_cap_item', 'upstream_cost_cap', 502, { run_id: RUN_ID, run_status: 'SUCCEEDED', provider_error: expect.stringContaining('charge limit') }],
    ['cap_below_minimum', 'upstream_misconfigured', 503, { status: 400, provider_error: 'max-total-charge-usd-below-minimum' }],
    ['garbage', 'upstream_bad_response', 502, { reason: 'not_json' }],
    ['not_array', 'upstream_bad_response', 502, { reason: 'items_not_an_array' }],
    ['bad_input', 'unprocessable_input', 422, { status: 400, provider_error: 'invalid-input' }],
    ['empty', 'not_found', 404, { run_id: RUN_ID, run_status: 'SUCCEEDED', reason: 'provider_found_nothing' }],
    ['item_not_found', 'not_found', 404, { run_id: RUN_ID, run_status: 'SUCCEEDED', provider_error: 'Property not found (404)', reason: 'provider_found_nothing' }],
    ['server_error', 'upstream_error', 502, { status: 500, provider_error: 'internal-server-error' }],
    ['unreachable', 'upstream_unreachable', 502, { reason: 'ECONNRESET' }],
  ];
  it.each(cases)('%s → %s (%i)', async (behaviour, code, status, details) => {
    platform.behaviour = behaviour;
    const e = await failure(provider().read(TARGET, ctx()));
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.details).toEqual(details);
    expect(e.retryAfter).toBeUndefined();
  });

  it('busy (429) → upstream_busy with the retry-after header', async () => {
    platform.behaviour = 'busy';
    const e = await failure(provider().read(TARGET, ctx()));
    expect(e.code).toBe('upstream_busy');
    expect(e.status).toBe(503);
    expect(e.retryAfter).toBe(12);
    expect(e.details).toEqual({ status: 429, provider_error: 'rate-limit-exceeded' });
  });

  it('too slow → upstream_timeout, and the POST is not re-sent', async () => {
    platform.behaviour = 'slow';
    const e = await failure(provider({ timeoutMs: 300 }).read(TARGET, ctx()));
    expect(e.code).toBe('upstream_timeout');
    expect(e.status).toBe(504);
    expect(e.details).toMatchObject({ reason: 'timeout' });
    expect(platform.calls).toHaveLength(1);
  });

  it('cancelled by the caller → upstream_timeout with reason aborted', async () => {
    platform.behaviour = 'slow';
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const e = await failure(provider().read(TARGET, ctx({ signal: ac.signal })));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
  });

  it('nothing listening → upstream_unreachable', async () => {
    const port = await closedPort();
    const e = await failure(provider({ url: `http://127.0.0.1:${port}` }).read(TARGET, ctx()));
    expect(e.code).toBe('upstream_unreachable');
    expect(e.status).toBe(502);
    expect(e.details).toEqual({ reason: 'ECONNREFUSED' });
  });

  it('a wrong token is reported as upstream_auth', async () => {
    const e = await failure(provider({ token: 'wrong' }).read(TARGET, ctx()));
    expect(e.code).toBe('upstream_auth');
  });

  it('an unknown actor is reported as upstream_actor_missing', async () => {
    const e = await failure(provider({ actor: 'someone/else' }).read(TARGET, ctx()));
    expect(e.code).toBe('upstream_actor_missing');
    expect(platform.calls[0]!.path).toBe('/v2/acts/someone~else/run-sync-get-dataset-items');
  });

  it('an oversized answer → upstream_bad_response', async () => {
    const e = await failure(provider({ maxBytes: 10_000 }).read(TARGET, ctx()));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'too_large', maxBytes: 10_000 });
  });
});

describe('FallbackProvider.resolveAddress', () => {
  it('hands the address to the actor and returns the home it read', async () => {
    const r = await provider().resolveAddress(address('661 Lakeview Avenue, San Francisco, CA 94112'), ctx({ status: 'for_sale' }));
    expect(r.zpid).toBe('15192198');
    expect(r.path).toBe('/homedetails/15192198_zpid/');
    expect(r.collected?.property.zpid).toBe('15192198');
    expect(r.collected?.source).toMatchObject({ provider: 'apify', run_id: RUN_ID });
    expect(platform.calls[0]!.input).toEqual({
      addresses: ['661 Lakeview Avenue, San Francisco, CA 94112'],
      propertyStatus: 'FOR_SALE',
      maxTotalChargeUsd: 0.05,
    });
  });

  it('holds a loosely resolved home to the address rules: another unit or ZIP is address_ambiguous', async () => {
    const e = await failure(provider().resolveAddress(address('661 Lakeview Ave Unit 2, San Francisco, CA 94110'), ctx()));
    expect(e.code).toBe('address_ambiguous');
    expect(e.status).toBe(409);
    expect(e.details).toEqual({
      candidate: { detailUrl: 'https://www.zillow.com/homedetails/15192198_zpid/', address: expect.stringContaining('661 Lakeview Ave'), zpid: '15192198' },
      mismatch: ['unit', 'zip'],
    });
  });

  it('maps an empty run to not_found', async () => {
    platform.behaviour = 'empty';
    const e = await failure(provider().resolveAddress(address('1 Nowhere St, Springfield, IL 62701'), ctx()));
    expect(e.code).toBe('not_found');
  });
});

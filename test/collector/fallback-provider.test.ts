// The fallback provider against the stand-in platform, through real sockets: the run API, both item
// shapes, matching items to the input, misses, wrong homes, cost caps, refusals and abandoned runs.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FallbackProvider, type FallbackProviderOptions } from '../../src/collector/fallback/index.js';
import { UpstreamWarnings } from '../../src/observability/upstream-warnings.js';
import type { AddressQuery, ReadContext, ReadTarget } from '../../src/collector/types.js';
import { checkAddress } from '../../src/address/index.js';
import {
  PLATFORM_ERRORS,
  abortCalls,
  forSaleItem,
  runStarts,
  startFakeActorPlatform,
  type FakeActorPlatform,
  type PlatformError,
} from '../fakes/fake-actor-platform.js';
import { recordedBatch, recordedMiss, recordedWrongUnit, todaysShape } from '../helpers/fallback-items.js';
import { failure } from '../helpers/lookup-error.js';
import { closedPort } from '../helpers/replay.js';

const NOW = new Date('2026-08-10T12:00:00.000Z');
const PORTLAND = {
  zpid: '7521381',
  path: '/homedetails/938-W-Portland-St-Phoenix-AZ-85007/7521381_zpid/',
  address: '938 W Portland St, Phoenix, AZ 85007',
};
const LAKEVIEW = { zpid: '15192198', path: '/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/' };
const home = (t: { zpid: string; path: string }): ReadTarget => ({ path: t.path, zpid: t.zpid, building: false });
const ctx = (over: Partial<ReadContext> = {}): ReadContext => ({
  signal: new AbortController().signal,
  now: NOW,
  ...over,
});
const address = (line: string): AddressQuery => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(c.reason);
  return { input: line, normalized: c.normalized, parts: c.parts };
};
const todays = () => [...recordedBatch().map(todaysShape), todaysShape(recordedWrongUnit())];
const LENOX_PATH = '/apartments/austin-tx/lenox-grand/CmB93F/';
/** An apartment building as the actor would send it (the site's building object, echoing its input). */
const lenox = (): Record<string, unknown> => ({
  ...(
    JSON.parse(
      readFileSync(
        new URL('../../fixtures/portal/excerpt-building-apartments-lenox-grand-2026-10.json', import.meta.url),
        'utf8',
      ),
    ) as { building: Record<string, unknown> }
  ).building,
  addressOrUrlFromInput: '',
});

let platform: FakeActorPlatform;
beforeAll(async () => {
  platform = await startFakeActorPlatform();
});
afterAll(() => platform.close());
beforeEach(() => {
  platform.reset();
  platform.homes = [...todays(), forSaleItem()];
});

const provider = (over: Partial<FallbackProviderOptions> = {}) =>
  new FallbackProvider({
    url: platform.url,
    token: platform.token,
    actor: platform.actor,
    maxCostUsd: 0.05,
    maxCostCeilingUsd: 0.5,
    name: 'apify',
    timeoutMs: 6_000,
    clock: () => NOW,
    backoffMs: 1,
    ...over,
  });

type Line = Record<string, unknown>;

/** A logger whose lines the test can read, and wait for. */
function capturingLogger(level: pino.Level = 'info'): {
  logger: pino.Logger;
  lines: Line[];
  next: (match: (l: Line) => boolean) => Promise<Line>;
} {
  const lines: Line[] = [];
  const waiters: Array<{ match: (l: Line) => boolean; found: (l: Line) => void }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = JSON.parse(chunk.toString()) as Line;
      lines.push(line);
      for (const w of waiters.filter((x) => x.match(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.found(line);
      }
      done();
    },
  });
  const next = (match: (l: Line) => boolean) =>
    new Promise<Line>((found) => {
      const seen = lines.find(match);
      if (seen) found(seen);
      else waiters.push({ match, found });
    });
  return { logger: pino({ level }, sink), lines, next };
}

describe('a link, through the asynchronous run API', () => {
  it("starts a run with the link and the caller's status, waits for it, reads its items, and names the run", async () => {
    const got = await provider().read(home(PORTLAND), ctx({ status: 'sold' }));
    const [run] = platform.runs;
    expect(got.zpid).toBe('7521381');
    expect(got.source).toEqual({ provider: 'apify', note: expect.any(String), actor: platform.actor, run_id: run!.id });
    expect(got.property).toMatchObject({
      zpid: '7521381',
      streetAddress: '938 W Portland Street',
      city: 'Phoenix',
      price: 755000,
      homeStatus: 'RECENTLY_SOLD',
    });

    const calls = platform.calls.map((c) => `${c.method} ${c.path}`);
    expect(calls[0]).toBe('POST /v2/acts/maxcopell~zillow-detail-scraper/runs');
    expect(calls.slice(1, -1).every((c) => c === `GET /v2/actor-runs/${run!.id}`)).toBe(true);
    expect(calls.at(-1)).toBe(`GET /v2/actor-runs/${run!.id}/dataset/items`);
    const start = platform.calls[0]!;
    expect(start.authorization).toBe(`Bearer ${platform.token}`);
    // The cap is a query parameter, the run's own timeout shorter than our 6 s wait; the input holds only what the actor knows.
    expect(start.query).toEqual({ timeout: '5', maxTotalChargeUsd: '0.05', waitForFinish: '0' });
    expect(start.input).toEqual({
      startUrls: [{ url: `https://www.zillow.com${PORTLAND.path}` }],
      propertyStatus: 'RECENTLY_SOLD',
    });
    expect(
      platform.calls
        .filter((c) => c.path === `/v2/actor-runs/${run!.id}`)
        .every((c) => Number(c.query.waitForFinish) <= 60),
    ).toBe(true);
  });

  it('at the default 60 s wait the run is given 50 s of its own', async () => {
    await provider({ timeoutMs: 60_000 }).read(home(PORTLAND), ctx());
    expect(platform.runs[0]!.options.timeoutSecs).toBe(50);
  });

  it('sends no propertyStatus when the caller gave no status', async () => {
    await provider().read(home(PORTLAND), ctx());
    expect(platform.calls[0]!.input).toEqual({ startUrls: [{ url: `https://www.zillow.com${PORTLAND.path}` }] });
  });

  it("reads the old raw shape (the listing site's own property object) too", async () => {
    const got = await provider().read(home(LAKEVIEW), ctx());
    expect(got.property).toMatchObject({
      zpid: '15192198',
      streetAddress: '661 Lakeview Ave',
      city: 'San Francisco',
      state: 'CA',
      zipcode: '94112',
    });
    expect(got.raw).toEqual(forSaleItem());
  });

  it('picks its own item by zpid or input, never by position', async () => {
    platform.extraItems = recordedBatch().slice(0, 2).map(todaysShape);
    const got = await provider().read(
      home({ zpid: '7536781', path: '/homedetails/522-W-Encanto-Blvd-Phoenix-AZ-85003/7536781_zpid/' }),
      ctx(),
    );
    expect(platform.runs[0]!.items.map((i) => i.zpid)).toEqual([7528947, 7521381, 7536781]);
    expect(got.zpid).toBe('7536781');
    expect(got.property.streetAddress).toBe('522 W ENCANTO Boulevard');
  });

  it("a run stopped at its cap after other inputs' items → upstream_cost_cap, never one of those homes", async () => {
    platform.extraItems = recordedBatch()
      .filter((i) => String(i.zpid) !== PORTLAND.zpid)
      .slice(0, 2)
      .map(todaysShape);
    // Our own item is not pushed: the run ends at its cap right after the others' items.
    platform.resultPriceUsd = 0.02;
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_cost_cap');
    // The platform's start event ($0.00001, charged once) is in the spend, never taken for the price of a result.
    expect(platform.runs[0]!.chargedEventCounts).toEqual({ 'apify-actor-start': 1, result: 2 });
    expect(e.details).toMatchObject({ run_id: platform.runs[0]!.id, usage_usd: 0.04001, max_total_charge_usd: 0.05 });
  });

  it('another item without the core fields does not sink a link whose own item is good', async () => {
    platform.extraItems = [todaysShape(forSaleItem())];
    expect((await provider().read(home(PORTLAND), ctx())).zpid).toBe(PORTLAND.zpid);
  });

  it("the actor's miss ({ isValid: false, invalidReason }) → 404 not_found with the reason", async () => {
    const e = await failure(provider().read(home({ zpid: '1', path: '/homedetails/1_zpid/' }), ctx()));
    expect(e.code).toBe('not_found');
    expect(e.status).toBe(404);
    expect(e.details).toEqual({
      run_id: platform.runs[0]!.id,
      run_status: 'SUCCEEDED',
      reason: recordedMiss().invalidReason,
    });
  });

  it("an item without the core fields → upstream_bad_response (the old mapping read on today's shape)", async () => {
    // The raw property object cut to today's field list has no address, price or status the old names could find.
    platform.homes = [{ ...todaysShape(forSaleItem()), addressOrUrlFromInput: '' }];
    const e = await failure(provider().read(home(LAKEVIEW), ctx()));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({
      reason: 'item_without_core_fields',
      missing: ['streetAddress', 'city', 'state', 'price_or_status'],
      run_id: platform.runs[0]!.id,
    });
  });

  it('an oversized answer → upstream_bad_response', async () => {
    const e = await failure(provider({ maxBytes: 10_000 }).read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'too_large', maxBytes: 10_000 });
  });

  it('nothing listening → upstream_unreachable', async () => {
    const port = await closedPort();
    const e = await failure(provider({ url: `http://127.0.0.1:${port}` }).read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_unreachable');
    expect(e.status).toBe(502);
  });
});

describe('how runs end, read from the run object', () => {
  it.each(['graceful', 'aborted'] as const)('stopped at the cost cap (%s) → upstream_cost_cap', async (ending) => {
    platform.capEnding = ending;
    platform.resultPriceUsd = 0.06;
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    const run = platform.runs[0]!;
    expect(run.status).toBe(ending === 'graceful' ? 'SUCCEEDED' : 'ABORTED');
    expect(run.items).toEqual([]);
    expect(e.code).toBe('upstream_cost_cap');
    expect(e.status).toBe(502);
    expect(run.chargedEventCounts).toEqual({ 'apify-actor-start': 1 });
    expect(e.details).toEqual({
      run_id: run.id,
      run_status: run.status,
      usage_usd: 0.00001,
      max_total_charge_usd: 0.05,
    });
  });

  it.each(['TIMED-OUT', 'ABORTED'] as const)(
    'a run that ended %s after pushing our home (already paid for) → the home',
    async (ending) => {
      platform.failRunsAs = ending;
      platform.pushBeforeEnding = true;
      const got = await provider().read(home(PORTLAND), ctx());
      expect(platform.runs[0]!.status).toBe(ending);
      expect(got.zpid).toBe(PORTLAND.zpid);
      expect(got.source.run_id).toBe(platform.runs[0]!.id);
    },
  );

  it('a failed run below its cap → upstream_run_failed with its status message', async () => {
    platform.failRunsAs = 'FAILED';
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_run_failed');
    expect(e.details).toEqual({
      run_id: platform.runs[0]!.id,
      run_status: 'FAILED',
      status_message: 'The Actor process exited with code 1',
    });
  });

  it('a run that "succeeded" with an empty dataset (a platform limit) → upstream_run_failed, never a miss', async () => {
    platform.failRunsAs = 'RUN-LIMIT';
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_run_failed');
    expect(e.details).toEqual({
      run_id: platform.runs[0]!.id,
      run_status: 'SUCCEEDED',
      reason: 'empty_dataset',
      status_message: 'free user run limit reached',
    });
  });

  it('a run that ran out of its own time → upstream_timeout', async () => {
    platform.failRunsAs = 'TIMED-OUT';
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toMatchObject({ run_id: platform.runs[0]!.id, run_status: 'TIMED-OUT', reason: 'run_timed_out' });
  });
});

describe('platform refusals', () => {
  const cases: Array<[string, string, number, PlatformError]> = [
    ['402 memory-limit-exceeded', 'upstream_busy', 503, PLATFORM_ERRORS.memoryLimit],
    ['402 cannot-start-actor-runs', 'upstream_busy', 503, PLATFORM_ERRORS.concurrentRuns],
    ['402 not-enough-usage-to-run-paid-actor', 'upstream_quota', 503, PLATFORM_ERRORS.notEnoughUsage],
    ['403 platform-feature-disabled', 'upstream_quota', 503, PLATFORM_ERRORS.monthlyLimit],
    ['403 full-permission-actor-not-approved', 'upstream_misconfigured', 503, PLATFORM_ERRORS.notApproved],
    ['403 insufficient-permissions', 'upstream_auth', 503, PLATFORM_ERRORS.insufficientPermissions],
    ['500 internal-server-error', 'upstream_error', 502, PLATFORM_ERRORS.internal],
  ];
  it.each(cases)('%s → %s (%i)', async (_name, code, status, refusal) => {
    platform.refuse('start', refusal);
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.details).toEqual({ status: refusal.status, provider_error: refusal.type });
    expect(e.retryAfterSeconds).toBe(code === 'upstream_busy' ? 30 : undefined);
    // A start is never sent twice: a second one could pay for a second run.
    expect(runStarts(platform)).toHaveLength(1);
    expect(platform.runs).toEqual([]);
  });

  it('an actor awaiting approval: the operator warn line (UpstreamWarnings) has its approval link; the provider logs it at debug only; clients see only the 503', async () => {
    platform.refuse('start', PLATFORM_ERRORS.notApproved);
    const { logger, lines } = capturingLogger('debug');
    const e = await failure(provider({ logger }).read(home(PORTLAND), ctx()));
    const approvalUrl = PLATFORM_ERRORS.notApproved.data.approvalUrl;
    expect(e.details).toEqual({ status: 403, provider_error: 'full-permission-actor-not-approved' });
    expect(JSON.stringify(e.toBody())).not.toContain(approvalUrl);
    expect(lines).toEqual([
      expect.objectContaining({ level: 20, platformError: expect.objectContaining({ approvalUrl }) }),
    ]);
    new UpstreamWarnings(logger).failed(e, 'read');
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'upstream failure: provider_misconfigured',
        err: expect.objectContaining({ type: 'PlatformRefusal', approvalUrl }),
      }),
    ]);
  });

  it('the same operator-only refusal is one warn line per minute, not one per lookup, and not a second line from the provider (issue 12)', async () => {
    platform.refuse('start', PLATFORM_ERRORS.notApproved, PLATFORM_ERRORS.notApproved, PLATFORM_ERRORS.notApproved);
    const { logger, lines } = capturingLogger();
    const p = provider({ logger });
    let now = 0;
    const warnings = new UpstreamWarnings(logger, () => now);
    for (const at of [0, 59_999, 60_000]) {
      now = at;
      const e = await failure(p.read(home(PORTLAND), ctx()));
      expect(e.code).toBe('upstream_misconfigured');
      warnings.failed(e, 'read');
    }
    expect(runStarts(platform)).toHaveLength(3);
    expect(lines.filter((l) => (l.level as number) >= 40).map((l) => [l.msg, l.suppressed])).toEqual([
      ['upstream failure: provider_misconfigured', 0],
      ['upstream failure: provider_misconfigured', 1],
    ]);
  });

  it('a wrong token → upstream_auth; an unknown actor → upstream_actor_missing', async () => {
    expect(await failure(provider({ token: 'wrong' }).read(home(PORTLAND), ctx()))).toMatchObject({
      code: 'upstream_auth',
      details: { status: 401, provider_error: 'user-or-token-not-found' },
    });
    const e = await failure(provider({ actor: 'someone/else' }).read(home(PORTLAND), ctx()));
    expect(e).toMatchObject({
      code: 'upstream_actor_missing',
      details: { status: 404, provider_error: 'record-not-found' },
    });
    expect(platform.calls.at(-1)!.path).toBe('/v2/acts/someone~else/runs');
  });

  it('a 5xx on a poll or on the items is sent again (reads start nothing)', async () => {
    platform.refuse('wait', PLATFORM_ERRORS.internal);
    platform.refuse('items', PLATFORM_ERRORS.internal);
    expect((await provider().read(home(PORTLAND), ctx())).zpid).toBe(PORTLAND.zpid);
    const run = platform.runs[0]!;
    expect(platform.refusals).toMatchObject({ wait: [], items: [] });
    expect(platform.calls.filter((c) => c.path === `/v2/actor-runs/${run.id}/dataset/items`)).toHaveLength(2);
    expect(runStarts(platform)).toHaveLength(1);
  });

  it('429 rate-limit-exceeded backs off and tries again, a bounded number of times', async () => {
    platform.refuse('start', PLATFORM_ERRORS.rateLimited, PLATFORM_ERRORS.rateLimited);
    expect((await provider().read(home(PORTLAND), ctx())).zpid).toBe('7521381');
    expect(runStarts(platform)).toHaveLength(3);
    expect(platform.runs).toHaveLength(1);

    platform.reset();
    platform.refuse('start', ...Array.from({ length: 10 }, () => PLATFORM_ERRORS.rateLimited));
    const e = await failure(provider().read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_busy');
    expect(e.retryAfterSeconds).toBe(30);
    expect(runStarts(platform)).toHaveLength(4);
    expect(platform.runs).toEqual([]);
  });
});

describe("the actor's minimum cost cap", () => {
  it('read at start-up: the larger cap is used within the ceiling, with a clear warning', async () => {
    platform.minimalMaxTotalChargeUsd = 0.5;
    const { logger, lines } = capturingLogger();
    const p = provider({ logger });
    await p.checkCostCap();
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, minimumUsd: 0.5, configuredUsd: 0.05, ceilingUsd: 0.5 }),
    ]);
    expect(String(lines[0]!.msg)).toContain('FALLBACK_MAX_COST_USD ($0.05) is raised to $0.5');
    await p.read(home(PORTLAND), ctx());
    expect(runStarts(platform).map((c) => c.query.maxTotalChargeUsd)).toEqual(['0.5']);
  });

  it('a refusal as below the minimum reads it again and starts once more with the larger cap', async () => {
    platform.minimalMaxTotalChargeUsd = 0.25;
    const got = await provider().read(home(PORTLAND), ctx());
    expect(got.zpid).toBe('7521381');
    expect(platform.calls.map((c) => `${c.method} ${c.path.replace(/fakeRun\d+/, 'ID')}`).slice(0, 3)).toEqual([
      'POST /v2/acts/maxcopell~zillow-detail-scraper/runs',
      'GET /v2/acts/maxcopell~zillow-detail-scraper',
      'POST /v2/acts/maxcopell~zillow-detail-scraper/runs',
    ]);
    expect(runStarts(platform).map((c) => c.query.maxTotalChargeUsd)).toEqual(['0.05', '0.25']);
    expect(platform.runs[0]!.options.maxTotalChargeUsd).toBe(0.25);
  });

  it('a lookup abandoned while the minimum is read again stops waiting, and starts no second run', async () => {
    platform.minimalMaxTotalChargeUsd = 0.25;
    const pricing = platform.hold('actor');
    const ac = new AbortController();
    const reading = failure(provider().read(home(PORTLAND), ctx({ signal: ac.signal })));
    await pricing.reached;
    ac.abort();
    const e = await reading;
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
    pricing.open();
    expect(runStarts(platform).map((c) => c.query.maxTotalChargeUsd)).toEqual(['0.05']);
    expect(platform.runs).toEqual([]);
  });

  it('a minimum above the ceiling → upstream_misconfigured, and no run is started', async () => {
    platform.minimalMaxTotalChargeUsd = 1;
    const { logger, lines } = capturingLogger();
    const p = provider({ logger });
    await p.checkCostCap();
    expect(lines).toEqual([expect.objectContaining({ level: 50, minimumUsd: 1, ceilingUsd: 0.5 })]);
    const e = await failure(p.read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_misconfigured');
    expect(e.details).toEqual({ reason: 'actor_minimum_cost_cap_above_ceiling', minimum_usd: 1, ceiling_usd: 0.5 });
    expect(runStarts(platform)).toEqual([]);
  });
});

describe('an abandoned lookup aborts its run', () => {
  it('the caller gives up while the run is going → the run is aborted, upstream_timeout (aborted)', async () => {
    platform.holding = true;
    const ac = new AbortController();
    const reading = failure(provider().read(home(PORTLAND), ctx({ signal: ac.signal })));
    const waiting = await platform.nextWait();
    const aborted = platform.nextAbort();
    ac.abort();
    expect((await aborted).id).toBe(waiting.id);
    const e = await reading;
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
    expect(platform.runs[0]).toMatchObject({ status: 'ABORTED', abortedByClient: true });
  });

  it('abandoned while the start is unanswered (the run already exists) → answers at once, then aborts the run the answer names', async () => {
    platform.holding = true;
    const started = platform.hold('start');
    const ac = new AbortController();
    const reading = failure(provider().read(home(PORTLAND), ctx({ signal: ac.signal })));
    await started.reached;
    ac.abort();
    const e = await reading;
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
    expect(abortCalls(platform)).toEqual([]);
    const aborted = platform.nextAbort();
    started.open();
    expect((await aborted).id).toBe(platform.runs[0]!.id);
    expect(platform.runs[0]).toMatchObject({ status: 'ABORTED', abortedByClient: true });
  });

  it('our own time limit passes while the start is unanswered → upstream_timeout, then the run is aborted', async () => {
    platform.holding = true;
    platform.enforceRunTimeouts = false;
    const started = platform.hold('start');
    // The limit's timer decides nothing: the start stays unanswered until the lookup has failed.
    const e = await failure(provider({ timeoutMs: 200 }).read(home(PORTLAND), ctx()));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'timeout' });
    const aborted = platform.nextAbort();
    started.open();
    expect((await aborted).status).toBe('ABORTED');
  });

  it('the abort is not waited for: the lookup answers while the abort is still unanswered', async () => {
    platform.holding = true;
    const abortHeld = platform.hold('abort');
    const ac = new AbortController();
    const reading = failure(provider().read(home(PORTLAND), ctx({ signal: ac.signal })));
    await platform.nextWait();
    ac.abort();
    expect((await reading).code).toBe('upstream_timeout');
    await abortHeld.reached;
    expect(platform.runs[0]!.status).toBe('RUNNING');
    const aborted = platform.nextAbort();
    abortHeld.open();
    expect((await aborted).id).toBe(platform.runs[0]!.id);
  });

  it('an abort the platform refuses is logged; the answer is the same', async () => {
    platform.holding = true;
    platform.refuse('abort', PLATFORM_ERRORS.internal);
    const { logger, next } = capturingLogger();
    const ac = new AbortController();
    const reading = failure(provider({ logger }).read(home(PORTLAND), ctx({ signal: ac.signal })));
    await platform.nextWait();
    ac.abort();
    const e = await reading;
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
    const line = await next((l) => String(l.msg).startsWith('could not abort'));
    expect(line).toMatchObject({ level: 40, runId: platform.runs[0]!.id });
    expect(abortCalls(platform)).toHaveLength(1);
    expect(platform.runs[0]!.status).toBe('RUNNING');
  });

  it("no run is started when the lookup's time is already up", async () => {
    const e = await failure(provider().read(home(PORTLAND), ctx({ deadlineAt: Date.now() - 1 })));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'timeout' });
    expect(platform.calls).toEqual([]);
  });

  it("the run's own timeout comes from the time the lookup has left, not from the whole limit", async () => {
    // The own collector spent 20 s of the lookup's minute: 40 s are left. The run gets a sixth less in whole
    // seconds (33 s), not the whole limit's 50 s, and each wait for it asks for the 40 s left at most (not
    // 60). The wall clock stands still here (only Date is faked; timers run), so the time left read when
    // the run is started is exactly what this test gave, however long this machine stalls on the way.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await provider({ timeoutMs: 60_000 }).read(home(PORTLAND), ctx({ deadlineAt: Date.now() + 40_000 }));
    } finally {
      vi.useRealTimers();
    }
    expect(platform.runs[0]!.options.timeoutSecs).toBe(33);
    const polls = platform.calls.filter((c) => c.path === `/v2/actor-runs/${platform.runs[0]!.id}`);
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.map((c) => Number(c.query.waitForFinish))).toEqual(polls.map(() => 40));
  });

  it('a finished run is not aborted', async () => {
    await provider().read(home(PORTLAND), ctx());
    expect(platform.calls.some((c) => c.path.endsWith('/abort'))).toBe(false);
  });
});

describe('an address, taken by the actor directly', () => {
  it('one run finds and reads the home; the answer passes the address rules', async () => {
    const r = await provider().resolveAddress(address(PORTLAND.address), ctx({ status: 'sold' }));
    expect(r).toMatchObject({ zpid: '7521381', path: '/homedetails/7521381_zpid/' });
    expect(r.collected?.property).toMatchObject({ streetAddress: '938 W Portland Street', price: 755000 });
    expect(r.collected?.source).toMatchObject({ provider: 'apify', run_id: platform.runs[0]!.id });
    expect(platform.calls[0]!.input).toEqual({ addresses: [PORTLAND.address], propertyStatus: 'RECENTLY_SOLD' });
  });

  it.each([
    ["today's shape", () => todaysShape(recordedWrongUnit())],
    ['the recorded shape', () => recordedWrongUnit()],
  ])(
    'asked for #429, the actor answered #318 (%s) → 409 address_ambiguous with the candidate',
    async (_shape, wrongUnit) => {
      platform.homes = [wrongUnit()];
      const e = await failure(
        provider().resolveAddress(address('12222 N Paradise Village Pkwy S #429, Phoenix, AZ 85032'), ctx()),
      );
      expect(e.code).toBe('address_ambiguous');
      expect(e.status).toBe(409);
      expect(e.details).toEqual({
        candidate: {
          detailUrl: 'https://www.zillow.com/homedetails/2053953599_zpid/',
          address: '12222 N Paradise Village Pkwy #318, Phoenix, AZ 85032',
          zpid: '2053953599',
        },
        mismatch: ['directional', 'unit'],
      });
    },
  );

  it('the same unit asked for is the answer', async () => {
    platform.homes = [todaysShape(recordedWrongUnit())];
    const r = await provider().resolveAddress(address('12222 N Paradise Village Pkwy #318, Phoenix, AZ 85032'), ctx());
    expect(r.zpid).toBe('2053953599');
  });

  it("the actor's miss → 404 not_found with its reason", async () => {
    const e = await failure(provider().resolveAddress(address('1 Nowhere St, Springfield, IL 62701'), ctx()));
    expect(e.code).toBe('not_found');
    expect(e.details).toMatchObject({ reason: 'Invalid address or Zillow has no data for this address' });
  });

  it("other inputs' items in the dataset are not taken for the answer", async () => {
    platform.extraItems = recordedBatch()
      .slice(0, 3)
      .map((i) => ({ ...todaysShape(i), addressOrUrlFromInput: `${String(i.addressOrUrlFromInput)}` }));
    const r = await provider().resolveAddress(address('522 W Encanto Blvd, Phoenix, AZ 85003'), ctx());
    expect(r.zpid).toBe('7536781');
  });

  it('another item without the core fields does not sink the answer: ranked first, only the chosen one is checked', async () => {
    // The old raw shape cut to today's fields: no input echo (so a candidate), no address, price or status.
    platform.extraItems = [todaysShape(forSaleItem())];
    const r = await provider().resolveAddress(address(PORTLAND.address), ctx());
    expect(r.zpid).toBe(PORTLAND.zpid);
  });

  it('the chosen candidate without the core fields → upstream_bad_response, never address_ambiguous', async () => {
    platform.homes = [
      {
        ...todaysShape(recordedWrongUnit()),
        listingAddress: { street: '12222 N Paradise Village Pkwy #318', state: 'AZ' },
      },
    ];
    const e = await failure(
      provider().resolveAddress(address('12222 N Paradise Village Pkwy #429, Phoenix, AZ 85032'), ctx()),
    );
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toMatchObject({ reason: 'item_without_core_fields', missing: ['city'] });
  });

  it('the old raw shape, which does not echo its input, is held to the address rules', async () => {
    const r = await provider().resolveAddress(address('661 Lakeview Avenue, San Francisco, CA 94112'), ctx());
    expect(r.zpid).toBe('15192198');
    const e = await failure(
      provider().resolveAddress(address('661 Lakeview Ave Unit 2, San Francisco, CA 94110'), ctx()),
    );
    expect(e.code).toBe('address_ambiguous');
    expect(e.details).toMatchObject({ candidate: { zpid: '15192198' }, mismatch: ['unit', 'zip'] });
  });
});

describe('an apartment building link', () => {
  const building = { path: LENOX_PATH, zpid: null, building: true };

  it('is read by the actor and served with its address', async () => {
    platform.homes = [lenox()];
    const got = await provider().read(building, ctx());
    expect(got.property).toMatchObject({ streetAddress: '13505 Burnet Rd', city: 'Austin', state: 'TX' });
    expect(platform.calls[0]!.input).toEqual({ startUrls: [{ url: `https://www.zillow.com${LENOX_PATH}` }] });
  });

  it('without street, city or state → upstream_bad_response, like a home', async () => {
    const item = lenox();
    platform.homes = [{ ...item, address: { ...(item.address as object), city: null }, city: null }];
    const e = await failure(provider().read(building, ctx()));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'item_without_core_fields', missing: ['city'], run_id: platform.runs[0]!.id });
  });
});

describe('the stand-in platform itself', () => {
  it('sends only documented headers: no run id or run status on the synchronous endpoint', async () => {
    const res = await fetch(
      `${platform.url}/v2/acts/maxcopell~zillow-detail-scraper/run-sync-get-dataset-items?maxTotalChargeUsd=0.05`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${platform.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ startUrls: [{ url: `https://www.zillow.com${PORTLAND.path}` }] }),
      },
    );
    expect(res.status).toBe(201);
    expect([...res.headers.keys()].filter((h) => h.startsWith('x-')).sort()).toEqual([
      'x-apify-pagination-count',
      'x-apify-pagination-limit',
      'x-apify-pagination-offset',
      'x-apify-pagination-total',
      'x-ratelimit-limit',
    ]);
    expect(((await res.json()) as Array<{ zpid: number }>).map((i) => i.zpid)).toEqual([7521381]);
  });

  it('answers a start with 201, the run, and Location …/runs/{id} (research §1.3), which it serves', async () => {
    const res = await fetch(`${platform.url}/v2/acts/maxcopell~zillow-detail-scraper/runs?waitForFinish=0`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ startUrls: [{ url: `https://www.zillow.com${PORTLAND.path}` }] }),
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { id: string; options: { maxTotalChargeUsd: unknown } } };
    const location = res.headers.get('location')!;
    expect(location).toBe(`${platform.url}/v2/acts/maxcopell~zillow-detail-scraper/runs/${data.id}`);
    // No cap sent: the run has none (the documented default is the actor's own, not $0), so it pushes its item.
    expect(data.options.maxTotalChargeUsd).toBeNull();
    const again = await fetch(`${location}?waitForFinish=60`, {
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(((await again.json()) as { data: { status: string } }).data.status).toBe('SUCCEEDED');
    expect(platform.runs[0]!.items).toHaveLength(1);
  });

  it('a failed synchronous run is 400 run-failed naming the run; an unknown input field only trips the opt-in tripwire', async () => {
    platform.failRunsAs = 'FAILED';
    const post = (input: unknown) =>
      fetch(
        `${platform.url}/v2/acts/maxcopell~zillow-detail-scraper/run-sync-get-dataset-items?maxTotalChargeUsd=0.05`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${platform.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        },
      ).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));
    expect(await post({ addresses: [PORTLAND.address] })).toEqual({
      status: 400,
      body: {
        error: {
          type: 'run-failed',
          message: `Actor run did not succeed (run ID: ${platform.runs[0]!.id}, status: FAILED)`,
        },
      },
    });
    // Accepted as the platform accepts it (research §1.1), unless the opt-in tripwire is on.
    expect((await post({ addresses: [PORTLAND.address], maxTotalChargeUsd: 0.05 })).body).toMatchObject({
      error: { type: 'run-failed' },
    });
    platform.rejectUnknownInputFields = true;
    expect(await post({ addresses: [PORTLAND.address], maxTotalChargeUsd: 0.05 })).toEqual({
      status: 400,
      body: {
        error: {
          type: 'invalid-input',
          message: 'Input is not valid: Property input.maxTotalChargeUsd is not allowed.',
        },
      },
    });
  });
});

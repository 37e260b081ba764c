// Upstream failures over HTTP: each is the spec's code, never a 500, never billed, never cached.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore } from '../../src/store/index.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8');
const WALL = fixture('blocked-press-and-hold-2025-04.html');
const HOME_PAGE = fixture('hdp-2146993218-condo-for-sale-2024.html');

/**
 * The site client's own time for a read (its budget, never more than LOOKUP_TIMEOUT_MS) set past the
 * test's own timeout: a read held at the site ends only when the test passes the lookup timeout, so the
 * slow-read case fails if that limit does not end it.
 */
const PAST_THE_TEST = { LOOKUP_TIMEOUT_MS: '120000', PORTAL_SELF_HOSTED_BUDGET_MS: '120000' };

let svc: TestService;
let site: ReplayServer;
/** The site behind an open gate: the slow read's page is held there. */
let gate: GatedProxy;
/** The lookup timeout, passed by the test (the slow read's, once its page is held at the site); never otherwise. */
let limits: HeldTimeLimits;
beforeEach(async () => {
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  gate = await startGatedProxy(site.origin, { open: true });
  limits = new HeldTimeLimits('lookup_timeout');
  svc = await startTestService({
    replayServer: site,
    env: { PORTAL_ORIGIN: gate.origin, ...PAST_THE_TEST },
    timeLimits: limits,
  });
});
afterEach(async () => {
  await svc.close();
  await gate.close();
  await site.close();
});

const used = async () => (await svc.get('/v1/account')).body.data.used as number;
/** Requests that reached the site for `needle` (a held one included). */
const reads = (needle: string) => gate.paths.filter((p) => p.includes(needle)).length;
/** The slow read: the page held at the site until the lookup timeout is passed. */
const HELD = 'held';

describe.each([
  ['the bot wall as 403', { status: 403, body: WALL }, 502, 'upstream_blocked'],
  ['the bot wall as 200', { status: 200, body: WALL }, 502, 'upstream_blocked'],
  ['a server error', { status: 503, body: 'oops' }, 502, 'upstream_error'],
  [
    'a page without its data',
    { status: 200, body: '<html><head><title>x</title></head><body>hi</body></html>' },
    502,
    'upstream_bad_response',
  ],
  ['a dropped connection', { closeSocket: true }, 502, 'upstream_unreachable'],
  ['a read slower than LOOKUP_TIMEOUT_MS', HELD, 504, 'upstream_timeout'],
] as const)('%s', (_name, fault, status, code) => {
  it(`→ ${status} ${code}, not billed, not cached`, async () => {
    const path = '/homedetails/114303858_zpid/';
    const before = await used();
    const readsBefore = reads('114303858_zpid');
    let r: Awaited<ReturnType<typeof svc.get>>;
    if (fault === HELD) {
      // The page is held at the site; once its request is there, the lookup's time is up.
      const release = gate.hold(path);
      try {
        const answer = svc.get('/v1/portal/property?zpid=114303858');
        await Promise.race([
          gate.received(path, readsBefore + 1),
          answer.then(() => {
            throw new Error('answered before the read reached the site');
          }),
        ]);
        expect(limits.pass('lookup_timeout')).toBe(1);
        r = await answer;
      } finally {
        release();
      }
    } else {
      svc.replay.faults.set(path, fault);
      r = await svc.get('/v1/portal/property?zpid=114303858');
    }
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.headers.get('x-api-version')).toBe('v1');
    expect(await used()).toBe(before);
    expect(await svc.store.getEntries(['zpid:114303858'])).toEqual([null]);
    svc.replay.faults.clear();
    // Nothing was cached: the next lookup reads again, succeeds and is billed.
    const ok = await svc.get('/v1/portal/property?zpid=114303858');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-cache')).toBe('MISS');
    expect(reads('114303858_zpid')).toBeGreaterThan(readsBefore + 1);
    expect(await used()).toBe(before + 1);
  });
});

describe('the site answers with a different home', () => {
  it('returns it with a warning, billed once, cached under its own zpid only', async () => {
    svc.replay.faults.set('/homedetails/55555_zpid/', { status: 200, body: HOME_PAGE });
    const before = await used();
    const r = await svc.get('/v1/portal/property?zpid=55555');
    expect(r.status).toBe(200);
    expect(r.body.data.zpid).toBe('2146993218');
    expect(r.body.meta.warning).toMatch(/55555.*2146993218/);
    expect(r.body.meta).toMatchObject({ credits: 1, cache_key: 'zpid:2146993218' });
    expect(await used()).toBe(before + 1);
    expect((await svc.get('/v1/portal/property?zpid=2146993218')).headers.get('x-cache')).toBe('HIT');
    const again = await svc.get('/v1/portal/property?zpid=55555');
    expect(again.headers.get('x-cache')).toBe('MISS');
    expect(reads('55555_zpid')).toBe(2);
  });
});

/** The real in-memory store, signalling each reservation it releases (nothing changed). */
class ReleaseSignallingStore extends MemoryStore {
  private wake: () => void = () => {};
  readonly released = new Promise<void>((resolve) => (this.wake = resolve));
  override async release(reservationId: string): Promise<boolean> {
    const done = await super.release(reservationId);
    this.wake();
    return done;
  }
}

describe('the client goes away mid-lookup', () => {
  let proxy: GatedProxy;
  let held: TestService;
  let store: ReleaseSignallingStore;
  beforeEach(async () => {
    // The site behind a gate that is never opened: the read is in flight until the client hangs up.
    proxy = await startGatedProxy(svc.replay.origin);
    store = new ReleaseSignallingStore();
    held = await startTestService({
      socket: 'client-abort',
      store,
      replayServer: svc.replay,
      env: { PORTAL_ORIGIN: proxy.origin },
    });
  });
  afterEach(async () => {
    await held.close();
    await proxy.close();
  });

  it('aborts the read and releases the credit: nothing billed, nothing cached', async () => {
    const usedBefore = (await held.get('/v1/account')).body.data.used as number;
    const controller = new AbortController();
    const pending = fetch(`${held.url}/v1/portal/property?zpid=15192198`, {
      headers: { 'x-api-key': held.keys.free! },
      signal: controller.signal,
    }).catch((e: Error) => e);
    await proxy.received('/homedetails/15192198_zpid/');
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    // The service hangs up on the site: the read itself was aborted, not left to finish.
    await proxy.abandoned('/homedetails/15192198_zpid/');
    expect(proxy.paths.filter((p) => p.includes('15192198_zpid'))).toHaveLength(1);
    await store.released;
    const account = (await held.store.listAccounts()).find((a) => a.plan === 'free' && a.allotment === 50)!;
    expect(await held.store.usage(account.id, 'lifetime')).toMatchObject({ reserved: 0, used: usedBefore });
    expect((await held.get('/v1/account')).body.data.used).toBe(usedBefore);
    expect(await held.store.getEntries(['zpid:15192198'])).toEqual([null]);
    expect(held.replay.requests.filter((r) => r.path.includes('15192198_zpid'))).toEqual([]);
  });
});

// Stale answers end to end (issue 10 §2 with §3), against the replay site:
// - the last good record survives an incomplete read: the site serves the home whole, then with a
//   section the mapper cannot read (cached briefly, incomplete), then the bot wall: the stale answer
//   is the complete record, not the incomplete one (never a last good record) nor an error;
// - a read that runs out of time (upstream_timeout): the site's page is held at a gate, the lookup
//   timeout passed by the test once the page's request is there, and the last good record answers,
//   stale, free.
// The service clock (and the memory store's) is the test's: entries are made old by moving it.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECTION_NAMES, type Sections } from '../../src/contract/sections.js';
import { startReplayServer } from '../../src/replay/server.js';
import { wrapPropertyPage } from '../../src/replay/wrap.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

type Json = Record<string, unknown>;
const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const ADDRESS = `/v1/portal/property?address=${encodeURIComponent('661 Lakeview Ave, San Francisco, CA 94112')}`;
const HOUR = 3600_000;
const INCOMPLETE_TTL_MS = 600_000;
const present = (others: Partial<Sections> = {}): Sections =>
  ({ ...Object.fromEntries(SECTION_NAMES.map((n) => [n, 'present'])), ...others }) as Sections;

/** The home's page with its price events as an object keyed by date: a shape the mapper does not read. */
const brokenPage = (): string => {
  const property = JSON.parse(
    readFileSync(new URL('../../fixtures/portal/property-15192198-for-sale-2023.json', import.meta.url), 'utf8'),
  ) as Json;
  property.priceHistory = Object.fromEntries((property.priceHistory as Json[]).map((e) => [String(e.date), e]));
  return wrapPropertyPage(property);
};

let replay: ReplayServer;
let redis: RedisServer | undefined;
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  redis = await startRedisServer();
});
afterAll(async () => {
  await replay?.close();
  await disposeRedisServer(redis);
});

describe.each(['memory', 'redis'] as const)('an incomplete read keeps the last good record (%s store)', (kind) => {
  let svc: TestService;
  let store: Store | undefined;
  let now = Date.parse('2026-06-01T12:00:00.000Z');
  beforeAll(async () => {
    if (kind === 'redis') store = await RedisStore.connect(redis!.url, { prefix: `g${randomUUID().slice(0, 8)}:` });
    svc = await startTestService({
      // One attempt per read: the walled reads here stay below the circuit breaker's ten (test/collector/site-client.test.ts tests it).
      replayServer: replay,
      clock: () => new Date(now),
      env: { INCOMPLETE_TTL_MS: String(INCOMPLETE_TTL_MS), PORTAL_SESSION_RETRIES: '0' },
      ...(store ? { store } : {}),
    });
    replay.faults.clear();
  });
  afterAll(async () => {
    replay.faults.clear();
    await svc?.close();
    await store?.close();
  });
  const lookup = (query = '') => svc.get(`/v1/portal/property?zpid=${ZPID}${query}`);
  const charges = async () => (await svc.store.ledger()).length;

  it('good page, then a broken one, then the bot wall: the stale answer is the complete record', async () => {
    // Looked up by address first, so the address has an alias to the home.
    const good = await svc.get(ADDRESS);
    expect(good.body.meta).toMatchObject({ credits: 1, cached: false, sections: present() });
    expect(good.body.data.priceHistory).toHaveLength(4);

    // Past the cache lifetime the page is read again and comes back with its price events unreadable.
    now += 25 * HOUR;
    replay.faults.set(PAGE.path, { body: brokenPage() });
    const broken = await lookup();
    expect(broken.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      sections: present({ priceHistory: 'extraction_failed' }),
    });
    expect(await charges()).toBe(2);

    // The site walls the home. Within INCOMPLETE_TTL_MS a forced live read (max_age=0) fails: the
    // incomplete record is no last good record, the complete one before it is.
    replay.faults.set(PAGE.path, { status: 403, body: WALL });
    now += 60_000;
    const forced = await lookup('&max_age=0');
    expect(forced.status).toBe(200);
    expect(forced.headers.get('x-cache')).toBe('STALE');
    expect(forced.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      stale: true,
      stale_reason: 'upstream_blocked',
      sections: present(),
      fetched_at: good.body.meta.fetched_at,
      age_seconds: 25 * 3600 + 60,
    });
    expect(forced.body.data.priceHistory).toHaveLength(4);

    // Past INCOMPLETE_TTL_MS the incomplete record is gone; the complete one still answers, stale.
    now += INCOMPLETE_TTL_MS;
    const later = await lookup();
    expect(later.status).toBe(200);
    expect(later.body.meta).toMatchObject({
      credits: 0,
      stale: true,
      stale_reason: 'upstream_blocked',
      sections: present(),
      fetched_at: good.body.meta.fetched_at,
    });
    expect(await charges()).toBe(2);

    // The address, its resolution walled too: the complete record its alias leads to, not the incomplete one.
    replay.faults.set(new URL(replay.suggestUrl).pathname, { status: 403, body: WALL });
    const byAddress = await svc.get(ADDRESS);
    expect(byAddress.status).toBe(200);
    expect(byAddress.body.meta).toMatchObject({
      credits: 0,
      stale: true,
      stale_reason: 'upstream_blocked',
      sections: present(),
      fetched_at: good.body.meta.fetched_at,
    });
    replay.faults.delete(new URL(replay.suggestUrl).pathname);

    // stale=false still opts out.
    expect((await lookup('&stale=false')).body.error.code).toBe('upstream_blocked');

    // Unblocked, the page reads whole again: compared with the incomplete snapshot it replaces (kept
    // as the earlier snapshot past INCOMPLETE_TTL_MS; its unread price events left out): nothing changed.
    replay.faults.clear();
    const whole = await lookup();
    expect(whole.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      sections: present(),
      changes: [],
      previous_fetched_at: broken.body.meta.fetched_at,
    });
    expect(await charges()).toBe(3);
  });
});

describe('a read that runs out of time answers from the last good record (upstream_timeout)', () => {
  // Two instances on one store: `reader` makes the first read (the default LOOKUP_TIMEOUT_MS, a minute);
  // `svc` holds its lookup timeout, passed by the test once the page's request is held at the gate, so
  // each limit it passes is its one lookup's under test. No read here is cut short by the clock.
  let reader: TestService;
  let svc: TestService;
  let proxy: GatedProxy;
  const limits = new HeldTimeLimits('lookup_timeout');
  let now = Date.parse('2026-06-01T12:00:00.000Z');
  beforeAll(async () => {
    proxy = await startGatedProxy(replay.origin, { open: true });
    const store = new MemoryStore(() => now);
    const common = { replayServer: replay, store, clock: () => new Date(now), env: { PORTAL_ORIGIN: proxy.origin } };
    reader = await startTestService(common);
    // The site client's own time for a read (its budget, never more than LOOKUP_TIMEOUT_MS) is past the
    // test's own timeout: the held page's read ends only when the test passes the lookup timeout.
    svc = await startTestService({
      ...common,
      env: { ...common.env, LOOKUP_TIMEOUT_MS: '120000', PORTAL_SELF_HOSTED_BUDGET_MS: '120000' },
      timeLimits: limits,
    });
  });
  afterAll(async () => {
    proxy.open();
    await reader?.close();
    await svc?.close();
    await proxy?.close();
  });

  /** `path`'s answer, its page held at the gate until the lookup timeout is passed, once the page's request is there. */
  const timedOut = async (path: string) => {
    const arrived = proxy.paths.filter((p) => p.includes(PAGE.path)).length;
    const answer = svc.get(path);
    await Promise.race([
      proxy.received(PAGE.path, arrived + 1),
      answer.then(() => {
        throw new Error('answered before the page was asked for');
      }),
    ]);
    expect(limits.pass('lookup_timeout')).toBe(1);
    return answer;
  };

  it('the page held at the gate past LOOKUP_TIMEOUT_MS: 200 stale, stale_reason upstream_timeout, free; stale=false → 504', async () => {
    const first = await reader.get(`/v1/portal/property?zpid=${ZPID}`);
    expect(first.body.meta).toMatchObject({ credits: 1, cached: false });

    now += 25 * HOUR;
    const release = proxy.hold(PAGE.path);
    try {
      const r = await timedOut(`/v1/portal/property?zpid=${ZPID}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('STALE');
      expect(r.body.meta).toMatchObject({
        credits: 0,
        cached: true,
        stale: true,
        stale_reason: 'upstream_timeout',
        age_seconds: 25 * 3600,
        fetched_at: first.body.meta.fetched_at,
      });
      const optOut = await timedOut(`/v1/portal/property?zpid=${ZPID}&stale=false`);
      expect(optOut.status).toBe(504);
      expect(optOut.body.error.code).toBe('upstream_timeout');
    } finally {
      release();
    }
    expect(await svc.store.ledger()).toHaveLength(1);
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
  });
});

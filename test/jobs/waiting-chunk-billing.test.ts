// A job chunk that waited bills only the reads it made (issue 25, item 1). Account X's chunk finds X's
// background live slots all held (the limiter refuses them while the test says so) and waits: it settles
// what it has (nothing) and its items run in a later round; meanwhile account Y reads the same homes live
// (Y pays for them); when X's chunk runs again the homes are cache hits for X: credits 0, cached, their
// real age. Before the fix, a chunk that waited was re-run as its round, took every home read since the
// round began for its own dead run's read and charged X as well (X and Y charged for the same reads). A
// read a dead run made is reported billed once, as it was. On the memory store, one Redis server and a
// Redis Cluster: credits answered = the ledger = `used`, for both accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type AccountSeed } from '../../src/accounts/index.js';
import { WINDOW_SECONDS } from '../../src/accounts/rate-limit.js';
import { runChunk } from '../../src/jobs/chunk.js';
import type { JobStore } from '../../src/jobs/store.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Account, Store } from '../../src/store/index.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { dying, HeldSlots, jobBackend, type Backend, type JobBackend } from './backends.js';
import { newJobRecord } from './helpers.js';
import { manyHomesCatalog, manyZpids } from './many-homes.js';

const WINDOW_MS = WINDOW_SECONDS * 1000;
const HOMES = manyZpids(731_000_100, 10);
const ACCOUNTS = {
  x: { key: 'wait_bill_key_x_001', plan: 'paid', included: 1000, overage: false },
  y: { key: 'wait_bill_key_y_001', plan: 'paid', included: 1000, overage: false },
} satisfies Record<string, AccountSeed>;

describe.each(['memory', 'redis', 'cluster'] as Backend[])('a chunk that waited for its window (%s)', (backend) => {
  let backing: JobBackend | undefined;
  let replay: ReplayServer;
  let store: Store;
  let jobs: JobStore;
  let svc: TestService;
  let x: Account;
  let y: Account;
  // The limiter's clock: 1 s into a window.
  let limiterNow = 1_000_000 * WINDOW_MS + 1_000;
  const limits = new HeldSlots({ perMinute: HOMES.length, maxLive: 0 }, () => limiterNow);

  beforeAll(async () => {
    replay = await startReplayServer({ host: '127.0.0.1', port: 0, catalog: manyHomesCatalog(HOMES) });
    backing = await jobBackend(backend, 'wcb');
    ({ store, jobs } = backing);
    svc = await startTestService({
      store,
      replayServer: replay,
      accounts: ACCOUNTS,
      limits,
    });
    x = await authenticate(store, svc.config.apiKeySecret, ACCOUNTS.x.key);
    y = await authenticate(store, svc.config.apiKeySecret, ACCOUNTS.y.key);
  }, 90_000);

  afterAll(async () => {
    await svc?.close();
    await backing?.close();
    await replay?.close();
  });

  it("charges each account only for its own reads: X's re-run takes Y's reads as hits", async () => {
    // X's own read of the first home, before the job (a cached home X paid for already).
    const own = await svc.get(`/v1/portal/property?zpid=${HOMES[0]}`, ACCOUNTS.x.key);
    expect(own.body.meta).toMatchObject({ credits: 1, cached: false });
    limiterNow += WINDOW_MS;

    const items = HOMES.map((zpid) => ({ zpid }));
    const job = newJobRecord(x.id, items.length);
    await jobs.create(job, [items]);
    // X's background slots are all held: the chunk's nine uncached homes wait (its cached one is answered).
    limits.refuse = Infinity;
    expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
    limits.refuse = 0;
    expect(limits.refusals).toBe(HOMES.length - 1);
    expect(await jobs.get(job.id)).toMatchObject({
      status: 'running',
      done: 1,
      credits: 0,
      cache_hits: 1,
      finished_at: null,
    });

    // Meanwhile Y reads homes 2..10 live (home 1 is cached: a hit for Y).
    for (const zpid of HOMES) {
      const r = await svc.get(`/v1/portal/property?zpid=${zpid}`, ACCOUNTS.y.key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.meta.credits).toBe(zpid === HOMES[0] ? 0 : 1);
    }

    // X's chunk runs again (its next round) and finds every home cached.
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    const lines = (await jobs.results(job.id, 0))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ok: boolean; meta: { credits: number; cached: boolean; age_seconds: number } });
    expect(lines).toHaveLength(HOMES.length);
    for (const line of lines) expect(line).toMatchObject({ ok: true, meta: { credits: 0, cached: true } });
    expect(await jobs.get(job.id)).toMatchObject({
      status: 'completed',
      done: 10,
      succeeded: 10,
      credits: 0,
      cache_hits: 10,
    });

    // The books: X paid for its one read, Y for its nine; answered credits = ledger = used.
    const ledgerX = await store.ledger(x.id);
    const ledgerY = await store.ledger(y.id);
    expect(ledgerX.map((e) => e.cacheKey)).toEqual([`zpid:${HOMES[0]}`]);
    expect(ledgerY.map((e) => e.cacheKey).sort()).toEqual(
      HOMES.slice(1)
        .map((z) => `zpid:${z}`)
        .sort(),
    );
    expect((await store.usage(x.id, periodOf())).used).toBe(1);
    expect((await store.usage(y.id, periodOf())).used).toBe(9);
  });

  it('a read the chunk made before it waited is reported billed, once; homes read by another account meanwhile are hits', async () => {
    const fresh = manyZpids(731_000_100, 10);
    // Every home is cached now (the first test): a max_age of 0 makes the chunk read them live again.
    const items = fresh.slice(0, 3).map((zpid) => ({ zpid }));
    const job = newJobRecord(x.id, items.length, { options: { raw: false, maxAge: 0 } });
    await jobs.create(job, [items]);
    limiterNow += WINDOW_MS;
    // The first run reads and charges all three, then its settle is lost (a worker that died just before it).
    await expect(runChunk(svc.app.core, dying(jobs), job, x, 0)).rejects.toThrow('worker died');
    const charged = (await store.ledger(x.id)).filter((e) => e.requestId === `job:${job.id}:0`);
    expect(charged).toHaveLength(3);
    // Y reads the third home again before X's re-run: Y pays for that read, X's re-run reports X's own.
    const again = await svc.get(`/v1/portal/property?zpid=${fresh[2]}&max_age=0`, ACCOUNTS.y.key);
    expect(again.body.meta).toMatchObject({ credits: 1, cached: false });
    limiterNow += WINDOW_MS;
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    const lines = (await jobs.results(job.id, 0))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { meta: { credits: number; cached: boolean } });
    expect(lines.map((l) => l.meta.credits)).toEqual([1, 1, 1]);
    expect(lines.map((l) => l.meta.cached)).toEqual([false, false, false]);
    expect(await jobs.get(job.id)).toMatchObject({ credits: 3, cache_hits: 0 });
    expect((await store.ledger(x.id)).filter((e) => e.requestId === `job:${job.id}:0`)).toHaveLength(3);
    expect((await store.usage(x.id, periodOf())).used).toBe(4);
    expect((await store.usage(y.id, periodOf())).used).toBe(10);
  });

  it("a read the dead run made and did not charge (its reservation swept) is charged to the job; another's read of a home is not", async () => {
    const [mine, theirs] = manyZpids(731_000_100, 10).slice(5, 7) as [string, string];
    const job = newJobRecord(x.id, 2);
    await jobs.create(job, [[{ zpid: mine }, { zpid: theirs }]]);
    // The dead run: it began the round, read `mine` live and cached it under its reservation, and died before
    // the charge; the sweep gave its reservation back. (Y's read of `theirs` is cached too.)
    await jobs.startChunk(job.id, 0, Date.now(), new Date().toISOString());
    limiterNow += WINDOW_MS;
    for (const zpid of [mine, theirs])
      expect((await svc.get(`/v1/portal/property?zpid=${zpid}&max_age=0`, ACCOUNTS.y.key)).body.meta.credits).toBe(1);
    const [entry] = await store.getEntries([`zpid:${mine}`]);
    await store.putEntry(`zpid:${mine}`, { ...entry!, readBy: `job:${job.id}:0|r0|zpid:${mine}` }, null, 3600_000);
    const before = (await store.usage(x.id, periodOf())).used;

    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    const lines = (await jobs.results(job.id, 0))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { meta: { credits: number; cached: boolean } });
    expect(lines.map((l) => l.meta)).toMatchObject([
      { credits: 1, cached: false },
      { credits: 0, cached: true },
    ]);
    const charges = (await store.ledger(x.id)).filter((e) => e.requestId === `job:${job.id}:0`);
    expect(charges.map((e) => [e.reservationId, e.cacheKey])).toEqual([
      [`job:${job.id}:0|r0|zpid:${mine}`, `zpid:${mine}`],
    ]);
    expect((await store.usage(x.id, periodOf())).used).toBe(before + 1);
    // Run again (a second re-run): nothing more is charged.
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: false });
    expect((await store.usage(x.id, periodOf())).used).toBe(before + 1);
  });
});

/** The billing period of a paid plan now (UTC month). */
function periodOf(): string {
  return new Date().toISOString().slice(0, 7);
}

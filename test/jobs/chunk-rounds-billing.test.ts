// A chunk's charges across its rounds (a round: one run, or a run and its re-runs after a crash, until the
// chunk settles what it has and puts the rest off to the next round). Defects reviews found:
// 1. A charge a dead run made is owed to the job (reported on the first item answered from that home's entry
//    without a charge). When its re-run put that item off (the key's background slots all held), the next
//    round, not being a re-run, never looked for the charge: the ledger held a charge no result showed.
// 2. A home's reservation id was `<requestId>|<homeKey>` in every round: a later round that read the home
//    live again charged under the id an earlier round had charged under. On Redis the second charge replaced
//    the first in the request's charges (chargesOf missed one: a re-run of that round did not report its dead
//    run's charge); on both stores a re-run took its dead run's unbilled read for the earlier round's charge
//    and never charged it. Ids now name the round: the same in a round's re-runs, another in each round.
// 3. A charge a run of an earlier round moved onto that round's settled lines (its settle refused) while a run
//    of the next round, which had read the charge as owed, was under way: both reported it. A settle is now
//    refused when the chunk had an adjust since the run read it; the run reads lines and charges again.
// 4. A charge that run recorded after the next round's run read the chunk's charges, with no settled line to
//    move it onto: its adjust changed nothing, the next round settled without it, and nobody reported it. Each
//    refused run's adjust is now counted whether or not it moved anything, and the count refuses the settle.
// 5. A refused run of an earlier round moved every charge no settled line showed, the next round's own live
//    charge among them, onto its lines, while that round's run reported the charge too. A refused run now moves
//    only charges of its round or earlier ones (a charge's reservation id names its round).
// 6. A dead run's charge whose home's entry was evicted, whose re-run put the item off, and whose next round
//    read the home live again (charging anew): no item is answered from the dead read's entry, so the dead
//    charge was owed forever (results 1 credit, ledger 2). A chunk's final round now takes back the charges no
//    item of it reports (the account pays once for the one read it got).
// 7. The same, the job then cancelled (or failed): the chunk's next round is skipped and no run ever reported
//    the dead charge. A skipped chunk that had a round takes back the charges its settled lines do not show.
// On the memory store and one Redis server; gated on the store and the limiter, not on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, periodOf, type AccountSeed } from '../../src/accounts/index.js';
import { LookupError } from '../../src/contract/index.js';
import { chunkRequestId, runChunk, type ChunkOutcome } from '../../src/jobs/chunk.js';
import { createJobs } from '../../src/jobs/index.js';
import { MemoryChunkRunner } from '../../src/jobs/runner.js';
import type { JobStore } from '../../src/jobs/store.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Account, LedgerEntry, Store } from '../../src/store/index.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { dying, HeldSlots, jobBackend, type JobBackend } from './backends.js';
import { newJobRecord, recordingWebhooks } from './helpers.js';
import { manyHomesCatalog, manyZpids } from './many-homes.js';

const HOMES = manyZpids(732_000_100, 12);
const ACCOUNTS = {
  x: { key: 'rounds_bill_key_x_01', plan: 'paid', included: 1000, overage: false },
  y: { key: 'rounds_bill_key_y_01', plan: 'paid', included: 1000, overage: false },
} satisfies Record<string, AccountSeed>;

/** A point a run waits at: `at` resolves when the run gets there (`reached`), the run goes on at `release`. */
function gate() {
  let reached!: () => void;
  let release!: () => void;
  const at = new Promise<void>((r) => (reached = r));
  const go = new Promise<void>((r) => (release = r));
  return { at, reached, go, release };
}

interface Faults {
  loseCommits: number;
  chargesOf: number;
  /** The next commit waits at this gate before it is recorded. */
  holdCommit: ReturnType<typeof gate> | null;
}

/**
 * The store, counting its chargesOf calls, losing its next `loseCommits` commits before they are recorded and
 * holding the next commit at `holdCommit`.
 */
function faulty(store: Store, faults: Faults): Store {
  return new Proxy(store, {
    get(target, p) {
      if (p === 'commit')
        return async (entry: LedgerEntry) => {
          const hold = faults.holdCommit;
          if (hold) {
            faults.holdCommit = null;
            hold.reached();
            await hold.go;
          }
          if (faults.loseCommits > 0) {
            faults.loseCommits -= 1;
            throw new LookupError('store_unavailable');
          }
          return target.commit(entry);
        };
      if (p === 'chargesOf')
        return async (requestId: string) => {
          faults.chargesOf += 1;
          return target.chargesOf(requestId);
        };
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** Resolves once `done()` holds, checked again after each turn of the event loop (no duration to guess). */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((r) => setImmediate(r));
}

/**
 * Lets a refused run of an earlier round (X: its settle refused, it adjusts) and the next round's run (Z) go on,
 * X's adjust `before` or `after` Z's settle, each to its end.
 */
async function inOrder(
  order: 'before' | 'after',
  x: { release(): void; run: Promise<ChunkOutcome> },
  z: { release(): void; run: Promise<ChunkOutcome> },
): Promise<void> {
  const goX = async () => {
    x.release();
    expect(await x.run).toEqual({ kind: 'done', completed: false });
  };
  const goZ = async () => {
    z.release();
    expect(await z.run).toEqual({ kind: 'done', completed: true });
  };
  if (order === 'before') {
    await goX();
    await goZ();
  } else {
    await goZ();
    await goX();
  }
}

describe.each(['memory', 'redis'] as const)("a chunk's charges across its rounds (%s)", (backend) => {
  let backing: JobBackend | undefined;
  let replay: ReplayServer;
  let store: Store;
  let jobs: JobStore;
  let svc: TestService;
  let x: Account;
  const faults: Faults = { loseCommits: 0, chargesOf: 0, holdCommit: null };
  const limits = new HeldSlots({ perMinute: 0, maxLive: 0 });

  beforeAll(async () => {
    replay = await startReplayServer({ host: '127.0.0.1', port: 0, catalog: manyHomesCatalog(HOMES) });
    backing = await jobBackend(backend, 'crb');
    jobs = backing.jobs;
    store = faulty(backing.store, faults);
    svc = await startTestService({ store, replayServer: replay, accounts: ACCOUNTS, limits });
    x = await authenticate(store, svc.config.apiKeySecret, ACCOUNTS.x.key);
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
    await backing?.close();
    await replay?.close();
  });

  const chargesOfJob = async (jobId: string) =>
    (await store.ledger(x.id)).filter((e) => e.requestId === chunkRequestId(jobId, 0));
  const linesOf = async (jobId: string) =>
    (await jobs.results(jobId, 0))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { index: number; ok: boolean; meta: { credits: number; cached: boolean } });

  /**
   * A first run reads and charges the home, and dies before its settle; the home's entry is evicted; the re-run
   * finds it uncached and the key's background slots all held: the item is put off to the next round.
   */
  async function deadChargeEvictedPutOff(home: string) {
    const job = newJobRecord(x.id, 1);
    await jobs.create(job, [[{ zpid: home }]]);
    await expect(runChunk(svc.app.core, dying(jobs), job, x, 0)).rejects.toThrow('worker died');
    expect(await chargesOfJob(job.id)).toHaveLength(1);
    const key = `zpid:${home}`;
    const [entry] = await store.getEntries([key]);
    await store.putEntry(key, entry!, null, 1, 1);
    await until(async () => (await store.getEntries([key]))[0] === null);
    limits.refuse = Infinity;
    expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
    limits.refuse = 0;
    expect(await jobs.get(job.id)).toMatchObject({ status: 'running', done: 0, credits: 0 });
    return job;
  }

  it("a dead run's charge whose item its re-run put off is reported by the next round", async () => {
    const home = HOMES[0]!;
    // The first run (the first round of a fresh chunk) looks for no charge; its re-run reads them once.
    faults.chargesOf = 0;
    const job = await deadChargeEvictedPutOff(home);
    expect(faults.chargesOf).toBe(1);
    // Another account reads the home meanwhile (and pays for its read).
    const theirs = await svc.get(`/v1/portal/property?zpid=${home}`, ACCOUNTS.y.key);
    expect(theirs.body.meta).toMatchObject({ credits: 1, cached: false });

    // The next round answers the item from the cache: the dead run's charge is reported on it (one store
    // read for the chunk's charges).
    faults.chargesOf = 0;
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    const read = faults.chargesOf;
    expect((await linesOf(job.id)).map((l) => l.meta)).toMatchObject([{ credits: 1, cached: false }]);
    expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 1, credits: 1, cache_hits: 0 });
    expect(await chargesOfJob(job.id)).toHaveLength(1);
    expect(read).toBe(1);
  });

  /**
   * Round 0 charges the home for the item that accepts an hour-old read (the item that wants a read of now, the
   * first, met the key's background slots held and is put off); round 1 reads the home live again for it.
   */
  async function homeReadInTwoRounds(home: string) {
    const items = [{ zpid: home }, { zpid: home, max_age: 3600 }];
    const job = newJobRecord(x.id, items.length, { options: { raw: false, maxAge: 0 } });
    await jobs.create(job, [items]);
    limits.refuse = 1;
    expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
    expect(limits.refuse).toBe(0);
    expect((await linesOf(job.id)).map((l) => [l.index, l.meta.credits])).toEqual([[1, 1]]);
    expect(await chargesOfJob(job.id)).toHaveLength(1);
    // A read made now is younger than the one round 0 made (max_age 0 takes nothing older): the clock has moved on.
    const [entry] = await store.getEntries([`zpid:${home}`]);
    await until(() => Date.now() > entry!.storedAt);
    return job;
  }

  it("a round that reads a home an earlier round charged charges under its own id: its re-run reports its dead run's charge", async () => {
    const home = HOMES[1]!;
    const job = await homeReadInTwoRounds(home);
    // Round 1 reads and charges the home again, and dies before its settle.
    await expect(runChunk(svc.app.core, dying(jobs), job, x, 0)).rejects.toThrow('worker died');
    expect(await chargesOfJob(job.id)).toHaveLength(2);
    // Its re-run answers the item from that read (fresh for the round): the dead run's charge is its own.
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    expect((await linesOf(job.id)).map((l) => l.meta.credits)).toEqual([1, 1]);
    expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 2, credits: 2 });
    const charges = await chargesOfJob(job.id);
    expect(charges).toHaveLength(2);
    expect(new Set(charges.map((e) => e.reservationId)).size).toBe(2);
    expect(await store.chargesOf(chunkRequestId(job.id, 0))).toHaveLength(2);
  });

  it("a round that reads a home an earlier round charged: its re-run charges its dead run's unbilled read", async () => {
    const home = HOMES[2]!;
    const job = await homeReadInTwoRounds(home);
    // Round 1 reads and caches the home again; its charge is lost before it is recorded: the run fails.
    faults.loseCommits = 1;
    await expect(runChunk(svc.app.core, jobs, job, x, 0)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(faults.loseCommits).toBe(0);
    expect(await chargesOfJob(job.id)).toHaveLength(1);
    // Its re-run answers the item from that read and charges it, under the reservation the dead run held.
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    expect((await linesOf(job.id)).map((l) => l.meta)).toMatchObject([
      { credits: 1, cached: false },
      { credits: 1, cached: false },
    ]);
    expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 2, credits: 2 });
    const charges = await chargesOfJob(job.id);
    expect(charges.map((e) => e.cacheKey)).toEqual([`zpid:${home}`, `zpid:${home}`]);
    expect(new Set(charges.map((e) => e.reservationId)).size).toBe(2);
  });

  /**
   * The job store of one run, pausing at `method` (before its call, or after it answered) until `release`;
   * `at` resolves when the run gets there.
   */
  function pausedAt(jobs: JobStore, method: 'startChunk' | 'settleChunk' | 'adjustChunk', when: 'before' | 'after') {
    const { at, reached, go, release } = gate();
    const store = new Proxy(jobs, {
      get(target, p) {
        if (p === method)
          return async (...a: unknown[]) => {
            if (when === 'before') {
              reached();
              await go;
            }
            const r = await (target[method] as (...x: unknown[]) => Promise<unknown>)(...a);
            if (when === 'after') {
              reached();
              await go;
            }
            return r;
          };
        const v = Reflect.get(target, p, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    return { store, at, release };
  }

  // A run of round 0 whose lock lapsed (X) charges a home after a re-run of the round (Y) settled it, not
  // final; its settle is refused and it moves the charge onto round 0's settled lines (adjustChunk). A run of
  // round 1 (Z) that started before that move, and read the charge, also reported it: the charge twice. The
  // move after Z's settle finds the charge on Z's line: nothing to move.
  it.each(['before', 'after'] as const)(
    "a charge a refused run moves onto an earlier round's lines %s the next round settles is reported once",
    async (order) => {
      const home = HOMES[order === 'before' ? 3 : 4]!;
      const key = `zpid:${home}`;
      // The home cached two hours ago (another account's read): fresh for a day's max_age, not for an hour's.
      const theirs = await svc.get(`/v1/portal/property?zpid=${home}`, ACCOUNTS.y.key);
      expect(theirs.body.meta).toMatchObject({ credits: 1, cached: false });
      const [entry] = await store.getEntries([key]);
      await store.putEntry(key, { ...entry!, storedAt: Date.now() - 2 * 3600_000 }, null, 86_400_000);
      const items = [
        { zpid: home, max_age: 86_400 },
        { zpid: home, max_age: 3600 },
      ];
      const job = newJobRecord(x.id, items.length);
      await jobs.create(job, [items]);

      // X starts round 0 and waits; Y re-runs it with the key's background slots all held: the first item a
      // hit (no charge), the second put off. Round 0 settles, not final.
      const xStart = pausedAt(jobs, 'startChunk', 'after');
      const xSettle = pausedAt(xStart.store, 'settleChunk', 'before');
      const runX = runChunk(svc.app.core, xSettle.store, job, x, 0);
      await xStart.at;
      limits.refuse = Infinity;
      expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
      limits.refuse = 0;
      expect((await linesOf(job.id)).map((l) => [l.index, l.meta.credits])).toEqual([[0, 0]]);
      expect(await chargesOfJob(job.id)).toHaveLength(0);

      // X goes on: it reads the home live (the hour's max_age), charges it, and waits before its settle.
      xStart.release();
      await xSettle.at;
      expect(await chargesOfJob(job.id)).toHaveLength(1);
      // Z runs round 1: the second item a hit on X's read; it finds X's charge, not yet on a settled line.
      const zSettle = pausedAt(jobs, 'settleChunk', 'before');
      const runZ = runChunk(svc.app.core, zSettle.store, job, x, 0);
      await zSettle.at;
      await inOrder(
        order,
        { release: () => xSettle.release(), run: runX },
        { release: () => zSettle.release(), run: runZ },
      );

      // One charge, on one line, counted once.
      expect(await chargesOfJob(job.id)).toHaveLength(1);
      expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 2, succeeded: 2, credits: 1 });
      const credits = (await linesOf(job.id)).map((l) => l.meta.credits);
      expect(credits).toEqual(order === 'before' ? [1, 0] : [0, 1]);
    },
  );

  // A run of round 0 whose lock lapsed (X) caches the home for an item a re-run of the round (Y) put off, and a
  // run of round 1 (Z) answers that item from X's entry and reads the chunk's charges before X records its
  // charge. X's settle is refused and its adjust finds no settled line to move the charge onto (round 0
  // settled none for the home): the billed keys stay as they were. A settle is refused when a refused run's
  // adjust came after its run read the charges, whether or not it moved one: Z reads them again and reports
  // X's charge. An adjust after Z's settle moves the charge onto Z's line.
  it.each(['before', 'after'] as const)(
    'a charge a refused run records after the next round read the charges, with no settled line for it, is reported once (its adjust %s the next round settles)',
    async (order) => {
      const home = HOMES[order === 'before' ? 5 : 6]!;
      const key = `zpid:${home}`;
      const job = newJobRecord(x.id, 1);
      await jobs.create(job, [[{ zpid: home }]]);

      // X starts round 0 and waits; Y re-runs it with the key's background slots all held: the item is put
      // off. Round 0 settles, not final, with no line.
      const xStart = pausedAt(jobs, 'startChunk', 'after');
      const xAdjust = pausedAt(xStart.store, 'adjustChunk', 'before');
      const runX = runChunk(svc.app.core, xAdjust.store, job, x, 0);
      await xStart.at;
      limits.refuse = Infinity;
      expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
      limits.refuse = 0;
      expect(await linesOf(job.id)).toEqual([]);

      // X goes on: it reads the home live and caches it, and waits before its charge is recorded.
      const commit = gate();
      faults.holdCommit = commit;
      xStart.release();
      await commit.at;
      expect((await store.getEntries([key]))[0]).not.toBeNull();
      expect(await chargesOfJob(job.id)).toHaveLength(0);
      // Z runs round 1: the item a hit on X's read; the chunk has no charge yet. It waits before its settle.
      const zSettle = pausedAt(jobs, 'settleChunk', 'before');
      const runZ = runChunk(svc.app.core, zSettle.store, job, x, 0);
      await zSettle.at;
      // X's charge is recorded; its settle is refused (round 0 settled) and it waits before its adjust.
      commit.release();
      await xAdjust.at;
      expect(await chargesOfJob(job.id)).toHaveLength(1);
      await inOrder(
        order,
        { release: () => xAdjust.release(), run: runX },
        { release: () => zSettle.release(), run: runZ },
      );

      // One charge, on the item's line, counted once.
      expect(await chargesOfJob(job.id)).toHaveLength(1);
      expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 1, succeeded: 1, credits: 1 });
      expect((await linesOf(job.id)).map((l) => l.meta)).toMatchObject([{ credits: 1, cached: false }]);
    },
  );
  // A run of round 0 whose lock lapsed (X) waits; a re-run of the round (Y) answers the first item from the
  // cache and puts the second off; a run of round 1 (Z) reads the home live for it and charges. X then finds
  // both items hits on Z's read: its settle is refused, and its adjust must not move Z's charge (Z reports it).
  it("a refused run of an earlier round leaves the next round's own charge to it", async () => {
    const home = HOMES[7]!;
    const key = `zpid:${home}`;
    // The home cached two hours ago (another account's read): fresh for a day's max_age, not for an hour's.
    await svc.get(`/v1/portal/property?zpid=${home}`, ACCOUNTS.y.key);
    const [entry] = await store.getEntries([key]);
    await store.putEntry(key, { ...entry!, storedAt: Date.now() - 2 * 3600_000 }, null, 86_400_000);
    const job = newJobRecord(x.id, 2);
    await jobs.create(job, [
      [
        { zpid: home, max_age: 86_400 },
        { zpid: home, max_age: 3600 },
      ],
    ]);
    const xStart = pausedAt(jobs, 'startChunk', 'after');
    const runX = runChunk(svc.app.core, xStart.store, job, x, 0);
    await xStart.at;
    limits.refuse = Infinity;
    expect((await runChunk(svc.app.core, jobs, job, x, 0)).kind).toBe('later');
    limits.refuse = 0;
    const zSettle = pausedAt(jobs, 'settleChunk', 'before');
    const runZ = runChunk(svc.app.core, zSettle.store, job, x, 0);
    await zSettle.at;
    expect(await chargesOfJob(job.id)).toHaveLength(1);
    xStart.release();
    expect(await runX).toEqual({ kind: 'done', completed: false });
    zSettle.release();
    expect(await runZ).toEqual({ kind: 'done', completed: true });

    expect(await chargesOfJob(job.id)).toHaveLength(1);
    expect((await linesOf(job.id)).map((l) => [l.index, l.meta.credits])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 2, credits: 1 });
  });

  it("the final round takes back a dead run's charge no item reports (its home read live again)", async () => {
    const job = await deadChargeEvictedPutOff(HOMES[8]!);
    const used = await store.usage(x.id, periodOf(x, new Date()));
    // The next round reads the home live again (the entry is gone) and charges it: the account pays once.
    expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: true });
    expect((await linesOf(job.id)).map((l) => l.meta)).toMatchObject([{ credits: 1, cached: false }]);
    expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 1, credits: 1 });
    const charges = await chargesOfJob(job.id);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.reservationId).toBe(`${chunkRequestId(job.id, 0)}|r1|zpid:${HOMES[8]}`);
    expect(await store.chargesOf(chunkRequestId(job.id, 0))).toHaveLength(1);
    // Its usage: one charge made (round 1), one taken back (the dead run's).
    expect((await store.usage(x.id, periodOf(x, new Date()))).used).toBe(used.used);
  });

  it.each(['cancelled', 'failed'] as const)(
    'a skipped chunk of a %s job takes back the charges its settled lines do not show',
    async (status) => {
      const job = await deadChargeEvictedPutOff(HOMES[status === 'cancelled' ? 9 : 10]!);
      await jobs.finish(job.id, status, new Date().toISOString());
      expect(await runChunk(svc.app.core, jobs, job, x, 0)).toEqual({ kind: 'done', completed: false });
      expect(await jobs.get(job.id)).toMatchObject({ status, credits: 0 });
      expect(await chargesOfJob(job.id)).toHaveLength(0);
      expect(await store.chargesOf(chunkRequestId(job.id, 0))).toHaveLength(0);
    },
  );

  // The jobs API's cancel drops a chunk waiting for its next round from the queue: no run of it comes, so the
  // cancel itself takes back its charges no result shows. Credits answered = ledger = usage.
  it('a job cancelled while a chunk waits for its next round: the cancel takes back what no result shows', async () => {
    const period = periodOf(x, new Date());
    const before = (await store.usage(x.id, period)).used;
    const job = await deadChargeEvictedPutOff(HOMES[11]!);
    expect((await store.usage(x.id, period)).used).toBe(before + 1);
    const api = createJobs(svc.app.core, recordingWebhooks(), {
      store: jobs,
      runner: new MemoryChunkRunner(1, svc.app.core.logger),
    });
    // Not closed: it would close the job store the other tests use; its runner was never started.
    expect(await api.cancel(x, job.id)).toMatchObject({ status: 'cancelled', credits: 0 });
    expect(await chargesOfJob(job.id)).toHaveLength(0);
    expect((await store.usage(x.id, period)).used).toBe(before);
  });

  it('an adjust of a job that is gone changes nothing and fails nothing', async () => {
    expect(await jobs.adjustChunk('no-such-job', 0, () => null)).toBe(0);
  });
});

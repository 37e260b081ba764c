// One chunk run twice at once (its BullMQ lock lapsed while its worker still ran it): whichever run
// settles, the results' credits equal the ledger's charges under the chunk's request id. Gated, not timed:
// the first run starts, then waits; the second (a re-run) reads a home live and charges it, then waits
// before settling; the first goes on, finds the home cached (a hit, credits 0) and settles first; the
// second's settle is dropped. Also: a re-run does not report its own charge twice (a home in the chunk twice).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { runChunk } from '../../src/jobs/chunk.js';
import { MemoryJobStore, type JobRecord, type JobStore } from '../../src/jobs/store.js';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import type { Account } from '../../src/store/index.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { jobCharges } from './helpers.js';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

/** The store, with a wait after startChunk or before settleChunk. */
function gated(
  store: JobStore,
  hooks: { afterStart?: () => Promise<void>; beforeSettle?: () => Promise<void> },
): JobStore {
  return new Proxy(store, {
    get(target, p) {
      if (p === 'startChunk' && hooks.afterStart) {
        return async (...a: Parameters<JobStore['startChunk']>) => {
          const r = await target.startChunk(...a);
          await hooks.afterStart!();
          return r;
        };
      }
      if (p === 'settleChunk' && hooks.beforeSettle) {
        return async (...a: Parameters<JobStore['settleChunk']>) => {
          await hooks.beforeSettle!();
          return target.settleChunk(...a);
        };
      }
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe.each(['memory', 'redis'] as const)('a chunk run twice at once (%s job store)', (backend) => {
  let redis: RedisServer | undefined;
  let svc: TestService;
  let account: Account;
  let jobs: JobStore;

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
    svc = await startTestService({
      accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
    });
    account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
    jobs = redis ? new RedisJobStore(new Redis(redis.url), `dr${randomUUID().slice(0, 6)}:`) : new MemoryJobStore();
  });

  afterAll(async () => {
    await jobs?.close();
    await svc?.close();
    if (redis) await disposeRedisServer(redis);
  });

  async function makeJob(items: unknown[]): Promise<JobRecord> {
    const now = Date.now();
    const job: JobRecord = {
      id: `job_${randomUUID().replace(/-/g, '')}`,
      accountId: account.id,
      status: 'queued',
      count: items.length,
      done: 0,
      succeeded: 0,
      failed: 0,
      cache_hits: 0,
      credits: 0,
      created_at: new Date(now).toISOString(),
      started_at: null,
      finished_at: null,
      webhook_url: null,
      waiting: 0,
      waiting_until: null,
      options: { raw: false },
      chunks: 1,
      chunks_done: 0,
    };
    await jobs.create(job, [items]);
    return job;
  }

  it('results and job counters show the charge the dropped run made', async () => {
    // The same home twice: one charge for the chunk.
    const job = await makeJob([{ zpid: '114303858' }, { zpid: '114303858' }, { zpid: 'bad' }]);
    const core = svc.app.core;
    const firstStarted = deferred();
    const goOn = deferred();
    const secondSettling = deferred();
    const settle = deferred();
    const first = runChunk(
      core,
      gated(jobs, {
        afterStart: async () => {
          firstStarted.resolve();
          await goOn.promise;
        },
      }),
      job,
      account,
      0,
    );
    await firstStarted.promise;
    const second = runChunk(
      core,
      gated(jobs, {
        beforeSettle: async () => {
          secondSettling.resolve();
          await settle.promise;
        },
      }),
      job,
      account,
      0,
    );
    await secondSettling.promise;
    goOn.resolve();
    expect(await first).toEqual({ kind: 'done', completed: true });
    settle.resolve();
    await second;

    const charges = await jobCharges(svc.store, account.id, job.id);
    expect(charges).toHaveLength(1);
    const lines = (await jobs.results(job.id, 0))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2]);
    expect(lines.map((l) => l.ok)).toEqual([true, true, false]);
    expect(lines.filter((l) => l.ok).map((l) => l.meta.credits)).toEqual([1, 0]);
    expect(lines[0].meta.cached).toBe(false);
    expect(await jobs.get(job.id)).toMatchObject({
      status: 'completed',
      done: 3,
      succeeded: 2,
      failed: 1,
      credits: 1,
      cache_hits: 1,
    });
  });

  it('a re-run reports its own charge of a home the chunk names twice once', async () => {
    const job = await makeJob([{ zpid: '15192198' }, { url: 'https://www.zillow.com/homedetails/15192198_zpid/' }]);
    // A run that died before it read anything: the next run is a re-run of the round.
    const now = new Date();
    expect(await jobs.startChunk(job.id, 0, now.getTime(), now.toISOString())).toMatchObject({
      state: 'run',
      rerun: false,
    });
    await runChunk(svc.app.core, jobs, job, account, 0);
    expect(await jobCharges(svc.store, account.id, job.id)).toHaveLength(1);
    const lines = (await jobs.results(job.id, 0))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.meta.credits)).toEqual([1, 0]);
    expect(await jobs.get(job.id)).toMatchObject({ credits: 1, cache_hits: 1 });
  });
});

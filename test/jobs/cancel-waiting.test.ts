// A job cancelled while its chunk waits (issue 25, item 4): the chunk found its key's background slots
// all held (the limiter refuses them while the test says so), settled what it had and was delayed to run
// its items in a later round. Cancelled then, the job reaches `cancelled` with its finished_at, its
// progress ends, and one job.completed is sent; nothing is billed. Before, a waiting chunk kept its round
// begun and was dropped from the queue by the cancel: finished_at stayed null for the job's 7 days. On
// memory and on Redis (BullMQ). Gated on the limiter's refusals, not on time.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { MemoryRateLimiter, type SlotPool } from '../../src/accounts/rate-limit.js';
import { createJobs } from '../../src/jobs/index.js';
import type { Jobs } from '../../src/jobs/types.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Account } from '../../src/store/index.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { follow, jobCharges, recordingWebhooks } from './helpers.js';

/** The key's background slots, all held while `refuse` is set; `refused(n)` resolves at the n-th refusal. */
class HeldSlots extends MemoryRateLimiter {
  refuse = true;
  #refusals = 0;
  #waiters: { n: number; resolve: () => void }[] = [];

  refused(n: number): Promise<void> {
    return this.#refusals >= n ? Promise.resolve() : new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  override async holdLive(
    accountId: string,
    wait?: AbortSignal,
    pool: SlotPool = 'interactive',
  ): Promise<(() => void) | null> {
    if (!this.refuse || pool !== 'background') return super.holdLive(accountId, wait, pool);
    this.#refusals += 1;
    for (const w of this.#waiters.filter((x) => x.n <= this.#refusals)) w.resolve();
    return null;
  }
}

/** Resolves once `n` chunk runs have settled in part and asked to wait (job_chunk_runs_total{outcome="waiting"}). */
let waitingRuns: (n: number) => Promise<void>;

describe.each(['memory', 'redis'] as const)('a job cancelled while its chunk waits, on %s', (backend) => {
  let redis: RedisServer | undefined;
  let svc: TestService;
  let jobs: Jobs;
  let account: Account;
  const limits = new HeldSlots({ perMinute: 600, maxLive: 10 });
  const hooks = recordingWebhooks();

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
    const prefix = `jw${randomUUID().slice(0, 6)}:`;
    svc = await startTestService({
      limits,
      ...(redis ? { store: await RedisStore.connect(redis.url, { prefix }) } : {}),
      accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
      env: redis ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {},
    });
    account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
    waitingRuns = async (n) => {
      const runs = async () =>
        (await svc.app.core.metrics.jobChunkRuns.get()).values.find((v) => v.labels.outcome === 'waiting')?.value ?? 0;
      // The count is read between runs (a chunk waits a second between them): polled, with a cap.
      for (let i = 0; i < 200 && (await runs()) < n; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(await runs()).toBeGreaterThanOrEqual(n);
    };
    jobs = createJobs(svc.app.core, hooks, partsFor(svc.app.core).jobs());
    await jobs.startWorker();
  });

  afterAll(async () => {
    await jobs?.close();
    await svc?.close();
    if (redis) await disposeRedisServer(redis);
  });

  it('reaches cancelled with its finished_at, the end of its progress and one job.completed', async () => {
    const { id } = await jobs.create(account, {
      items: [{ zpid: '114303858' }, { zpid: '15192198' }],
      webhookUrl: 'https://example.com/hooks',
      options: { raw: false, maxAge: 0 },
    });
    // Both items refused in a run, and again in the next round's: the chunk waits between runs. Cancelled
    // once the second run has settled what it had and asked to wait (its next run is a second away).
    await limits.refused(4);
    await waitingRuns(2);
    const following = follow(jobs, account, id);
    await jobs.cancel(account, id);
    const seen = await following;
    const final = await jobs.get(account, id);
    expect(final).toMatchObject({ status: 'cancelled', done: 0, credits: 0, finished_at: expect.any(String) });
    expect(seen.at(-1)).toEqual(final);
    expect(await jobCharges(svc.store, account.id, id)).toEqual([]);
    const events = hooks.sent.filter((s) => (s.event.data as { id: string }).id === id);
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toMatchObject({ type: 'job.completed', id, data: final });
  });
});

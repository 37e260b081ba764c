// A job cancelled while one of its chunks runs (its read held at a gated site): the running chunk
// finishes and is billed, and the job's one job.completed (status cancelled), its finished_at and the
// end of its progress come only once that chunk settled, showing what it billed (= the ledger), on
// memory and on Redis (BullMQ). Gated, not timed. At the store: a chunk taken over after its worker died
// settles the cancelled job; a chunk failed past its retries ends it too.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { createJobs } from '../../src/jobs/index.js';
import { MemoryJobStore, type ChunkWrite, type JobRecord, type JobStore } from '../../src/jobs/store.js';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import type { Jobs } from '../../src/jobs/types.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Account } from '../../src/store/index.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { follow, jobCharges, recordingWebhooks } from './helpers.js';

describe.each(['memory', 'redis'] as const)('a job cancelled while a chunk runs, on %s', (backend) => {
  let redis: RedisServer | undefined;
  let site: Awaited<ReturnType<typeof startReplayServer>>;
  let proxy: GatedProxy;
  let svc: TestService;
  let jobs: Jobs;
  let account: Account;
  const hooks = recordingWebhooks();

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
    const prefix = `jc${randomUUID().slice(0, 6)}:`;
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    svc = await startTestService({
      replayServer: site,
      ...(redis ? { store: await RedisStore.connect(redis.url, { prefix }) } : {}),
      accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
      env: { PORTAL_ORIGIN: proxy.origin, ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {}) },
    });
    account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
    jobs = createJobs(svc.app.core, hooks, partsFor(svc.app.core).jobs());
    await jobs.startWorker();
  });

  afterAll(async () => {
    await jobs?.close();
    await svc?.close();
    await proxy?.close();
    await site?.close();
    if (redis) await disposeRedisServer(redis);
  });

  it('sends its job.completed once the running chunk settled, with what it billed', async () => {
    const release = proxy.hold('114303858');
    const { id } = await jobs.create(account, {
      items: [{ zpid: '114303858' }, { zpid: '15192198' }],
      webhookUrl: 'https://example.com/hooks',
      options: { raw: false, maxAge: 0 },
    });
    await proxy.received('114303858');
    const ours = () => hooks.sent.filter((s) => (s.event.data as { id: string }).id === id);

    const cancelled = await jobs.cancel(account, id);
    expect(cancelled).toMatchObject({ status: 'cancelled', finished_at: null });
    expect(ours()).toEqual([]);
    // A second DELETE while the chunk still runs sends nothing either.
    expect(await jobs.cancel(account, id)).toMatchObject({ status: 'cancelled', finished_at: null });
    expect(ours()).toEqual([]);

    const following = follow(jobs, account, id);
    release();
    const seen = await following;
    const final = await jobs.get(account, id);
    expect(final).toMatchObject({ status: 'cancelled', done: 2, finished_at: expect.any(String) });
    // The stream shows no half-cancelled job: it ends on the final view.
    expect(seen.filter((v) => v.status === 'cancelled')).toEqual([final]);
    expect(final.credits).toBe((await jobCharges(svc.store, account.id, id)).length);
    expect(final.credits).toBeGreaterThan(0);
    // The one event is sent by the run that settled, before its progress was seen final.
    const events = ours();
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toMatchObject({ type: 'job.completed', id, data: final });
    expect(await jobs.cancel(account, id)).toEqual(final);
    expect(ours()).toHaveLength(1);
  });

  describe('at the store', () => {
    let store: JobStore;
    beforeAll(() => {
      store = redis ? new RedisJobStore(new Redis(redis.url), `jcs${randomUUID().slice(0, 6)}:`) : new MemoryJobStore();
    });
    afterAll(async () => store?.close());

    async function makeJob(chunks: number): Promise<JobRecord> {
      const now = Date.now();
      const job: JobRecord = {
        id: `job_${randomUUID().replace(/-/g, '')}`,
        accountId: 'acct',
        status: 'queued',
        count: chunks,
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
        chunks,
        chunks_done: 0,
      };
      await store.create(
        job,
        Array.from({ length: chunks }, () => [{ zpid: '1' }]),
      );
      return job;
    }
    const write = (round: number): ChunkWrite => ({
      round,
      final: true,
      text: '{"index":0,"ok":true}\n',
      counts: { done: 1, succeeded: 1, failed: 0, cache_hits: 0, credits: 1 },
      held: 0,
      waitingUntil: null,
      billed: ['k'],
      adjustsSeen: 0,
      now: '2026-01-01T00:00:00.000Z',
    });

    it('a chunk taken over after its worker died settles the cancelled job; chunks not started do not run', async () => {
      const job = await makeJob(2);
      const iso = new Date().toISOString();
      expect(await store.startChunk(job.id, 0, Date.now(), iso)).toMatchObject({ state: 'run', rerun: false });
      expect(await store.finish(job.id, 'cancelled', iso)).toBe(true);
      expect(await store.get(job.id)).toMatchObject({ status: 'cancelled', finished_at: null });
      expect(await store.startChunk(job.id, 1, Date.now(), iso)).toMatchObject({ state: 'skip' });
      // The dead run's chunk, taken over: run again, and its settle makes the job final.
      const again = await store.startChunk(job.id, 0, Date.now(), iso);
      expect(again).toMatchObject({ state: 'run', rerun: true });
      expect(await store.settleChunk(job.id, 0, write(0))).toBe('settled');
      expect(await store.get(job.id)).toMatchObject({
        status: 'cancelled',
        finished_at: '2026-01-01T00:00:00.000Z',
        credits: 1,
        done: 1,
      });
      expect(await store.settleChunk(job.id, 0, write(0))).toBe('refused');
    });

    it('lists the chunks whose round began and did not settle (a cancel keeps them queued)', async () => {
      const job = await makeJob(3);
      const iso = new Date().toISOString();
      expect(await store.begunChunks(job.id)).toEqual([]);
      await store.startChunk(job.id, 0, Date.now(), iso);
      await store.startChunk(job.id, 2, Date.now(), iso);
      expect(await store.begunChunks(job.id)).toEqual([0, 2]);
      expect(await store.settleChunk(job.id, 2, write(0))).toBe('settled');
      expect(await store.begunChunks(job.id)).toEqual([0]);
    });

    it('a running chunk failed past its retries ends the cancelled job', async () => {
      const job = await makeJob(1);
      const iso = new Date().toISOString();
      await store.startChunk(job.id, 0, Date.now(), iso);
      await store.finish(job.id, 'cancelled', iso);
      expect(await store.finish(job.id, 'failed', '2026-01-02T00:00:00.000Z')).toBe(true);
      expect(await store.get(job.id)).toMatchObject({ status: 'cancelled', finished_at: '2026-01-02T00:00:00.000Z' });
      expect(await store.finish(job.id, 'failed', iso)).toBe(false);
    });
  });
});

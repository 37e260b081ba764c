// A chunk refused for the key's rate window (RATE_LIMIT_PER_MINUTE) waits for the window, it does not
// fail: runChunk answers 'later' at the window's end (the limiter's clock is the test's), nothing is read,
// billed or written, the job stays running; in the next window the same chunk runs and settles. The
// in-process runner runs a chunk that asked to wait again (and never reports it failed).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { MemoryRateLimiter, WINDOW_SECONDS } from '../../src/accounts/rate-limit.js';
import { runChunk } from '../../src/jobs/chunk.js';
import { MemoryChunkRunner } from '../../src/jobs/runner.js';
import { MemoryJobStore, type JobRecord } from '../../src/jobs/store.js';
import type { Account } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { jobCharges } from './helpers.js';

const WINDOW_MS = WINDOW_SECONDS * 1000;
// The limiter's clock: 1 s into a window.
let limiterNow = 1_000_000 * WINDOW_MS + 1_000;
let svc: TestService;
let account: Account;

beforeAll(async () => {
  svc = await startTestService({
    inProcess: true,
    accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
    limits: new MemoryRateLimiter({ perMinute: 2, maxLive: 0 }, () => limiterNow),
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
});

afterAll(async () => {
  await svc?.close();
});

it('a chunk over the rate window waits for the window, then runs', async () => {
  const jobs = new MemoryJobStore();
  const items = [{ zpid: '114303858' }, { zpid: '15192198' }, { zpid: 'bad' }];
  const now = Date.now();
  const job: JobRecord = {
    id: `job_${randomUUID().replace(/-/g, '')}`, accountId: account.id, status: 'queued', count: items.length,
    done: 0, succeeded: 0, failed: 0, cache_hits: 0, credits: 0, created_at: new Date(now).toISOString(), started_at: null,
    finished_at: null, webhook_url: null, waiting: 0, waiting_until: null, options: { raw: false }, chunks: 1, chunks_done: 0,
  };
  await jobs.create(job, [items]);

  // Another request of the key took a unit of this window: the chunk's two lookups do not fit.
  expect((await svc.app.core.limits.take(account.id, 1)).allowed).toBe(true);
  const before = Date.now();
  const outcome = await runChunk(svc.app.core, jobs, job, account, 0);
  const after = Date.now();
  // The window ends 59 s after the limiter's now.
  expect(outcome.kind).toBe('later');
  const at = (outcome as { at: number }).at;
  expect(at).toBeGreaterThanOrEqual(before + WINDOW_MS - 1_000);
  expect(at).toBeLessThanOrEqual(after + WINDOW_MS - 1_000);
  expect(await jobs.get(job.id)).toMatchObject({ status: 'running', done: 0, credits: 0, finished_at: null });
  expect(await jobs.results(job.id, 0)).toBe('');
  expect(await jobCharges(svc.store, account.id, job.id)).toEqual([]);

  // The next window: the chunk runs, the same as an unrefused one.
  limiterNow += WINDOW_MS;
  expect(await runChunk(svc.app.core, jobs, job, account, 0)).toEqual({ kind: 'done', completed: true });
  expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 3, succeeded: 2, failed: 1, credits: 2 });
  expect(await jobCharges(svc.store, account.id, job.id)).toHaveLength(2);
});

it('the in-process runner runs a chunk that asked to wait again at its time, not failed', async () => {
  const runner = new MemoryChunkRunner(1, pino({ level: 'silent' }));
  const calls: number[] = [];
  const failures: unknown[] = [];
  let done!: () => void;
  const second = new Promise<void>((resolve) => (done = resolve));
  await runner.start(
    async (ref) => {
      calls.push(ref.chunk);
      if (calls.length === 1) return { kind: 'later', at: Date.now() + 20 };
      done();
      return { kind: 'done', completed: true };
    },
    async (_ref, err) => {
      failures.push(err);
    },
  );
  await runner.enqueue('job_x', 1);
  await second;
  await runner.close();
  expect(calls).toEqual([0, 0]);
  expect(failures).toEqual([]);
});

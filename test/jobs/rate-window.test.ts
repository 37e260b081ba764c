// A job's chunk draws on the key's background budget, not its rate window (RATE_LIMIT_PER_MINUTE): it runs
// while the key's requests have used the window up, and takes no unit of it (the limiter's clock is the
// test's). The in-process runner runs a chunk that asked to wait again (and never reports it failed).
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { MemoryRateLimiter, WINDOW_SECONDS } from '../../src/accounts/rate-limit.js';
import { runChunk } from '../../src/jobs/chunk.js';
import { MemoryChunkRunner } from '../../src/jobs/runner.js';
import { MemoryJobStore } from '../../src/jobs/store.js';
import type { Account } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { jobCharges, newJobRecord } from './helpers.js';

const WINDOW_MS = WINDOW_SECONDS * 1000;
// The limiter's clock: 1 s into a window.
let limiterNow = 1_000_000 * WINDOW_MS + 1_000;
let svc: TestService;
let account: Account;

beforeAll(async () => {
  svc = await startTestService({
    accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
    limits: new MemoryRateLimiter({ perMinute: 2, maxLive: 0 }, () => limiterNow),
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
});

afterAll(async () => {
  await svc?.close();
});

it("a chunk takes no unit of the key's window: it runs with the window used up, and leaves it as it was", async () => {
  const jobs = new MemoryJobStore();
  const items = [{ zpid: '114303858' }, { zpid: '15192198' }, { zpid: 'bad' }];
  const now = Date.now();
  const job = newJobRecord(account.id, items.length, { created_at: new Date(now).toISOString() });
  await jobs.create(job, [items]);

  // The key's interactive requests used this window up.
  expect((await svc.app.core.limits.take(account.id, 2)).allowed).toBe(true);
  const refused = await svc.get('/v1/portal/property?zpid=114303858', svc.keys.paid!);
  expect(refused.status).toBe(429);
  expect(refused.body.error.details).toMatchObject({ limit: 'lookups_per_minute' });

  // The job's chunk runs all the same (its budget is the key's background one), and takes nothing.
  expect(await runChunk(svc.app.core, jobs, job, account, 0)).toEqual({ kind: 'done', completed: true });
  expect(await jobs.get(job.id)).toMatchObject({ status: 'completed', done: 3, succeeded: 2, failed: 1, credits: 2 });
  expect(await jobCharges(svc.store, account.id, job.id)).toHaveLength(2);

  // The next window is whole for the key's requests: the job took none of it.
  limiterNow += WINDOW_MS;
  expect((await svc.app.core.limits.take(account.id, 2)).window).toMatchObject({ limit: 2, remaining: 0 });
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

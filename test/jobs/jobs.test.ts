// Lookup jobs in process (no Redis) and on a real Redis (BullMQ), against the local replay site: create,
// get, list, cancel, results in item order, progress; another account's job is not_found; a mixed job
// (links, zpids, addresses, bad items, duplicates) bills each home once (results agree with the ledger);
// an account whose credits run out mid-job gets credits_exhausted results, unbilled; items over the daily
// live-lookup limit wait for 00:00 UTC (the job says so, not completed); one job.completed event (a
// cancelled job's too).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { createJobs } from '../../src/jobs/index.js';
import type { Jobs } from '../../src/jobs/types.js';
import { nextUtcMidnight } from '../../src/jobs/chunk.js';
import type { CoreDeps } from '../../src/lookup/types.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Account } from '../../src/store/index.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { follow, jobCharges, recordingWebhooks, resultsOf } from './helpers.js';

const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const MIXED = [
  HOME,
  { zpid: '2146993218' },
  { url: 'https://www.zillow.com/homedetails/2146993218_zpid/' },
  '2435 Aspen Rd Unit 104, Ames, IA 50010',
  { zpid: '114303858' },
  { address: '661 Lakeview Ave, San Francisco, CA 94112' },
  { zpid: '999999999' },
  { zpid: 'nope' },
  42,
  { zpid: '114303858' },
];

describe.each(['memory', 'redis'] as const)('jobs on %s', (backend) => {
  let redis: RedisServer | undefined;
  let svc: TestService;
  let jobs: Jobs;
  const hooks = recordingWebhooks();
  const accounts: Record<string, Account> = {};

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
    const prefix = `jt${randomUUID().slice(0, 6)}:`;
    svc = await startTestService({
      ...(redis ? { store: await RedisStore.connect(redis.url, { prefix }) } : {}),
      accounts: {
        paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false },
        other: { key: 'test_other_key_001', plan: 'paid', included: 1000, overage: false },
        tiny: { key: 'test_tiny_key_0001', plan: 'free', allotment: 2 },
      },
      // A chunk's lock (JOB_LOCK_MS) is the service's own, 30 s: nothing here waits for one to lapse, and a
      // running chunk must keep it (renewed every half of it) however long this process's event loop stalls.
      env: { ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {}) },
    });
    for (const [name, key] of Object.entries(svc.keys))
      accounts[name] = await authenticate(svc.store, svc.config.apiKeySecret, key);
    jobs = createJobs(svc.app.core, hooks, partsFor(svc.app.core).jobs());
    await jobs.startWorker();
  });

  afterAll(async () => {
    await jobs?.close();
    await svc?.close();
    if (redis) await disposeRedisServer(redis);
  });

  describe('a mixed job', () => {
    let id: string;
    let views: Awaited<ReturnType<typeof follow>>;

    beforeAll(async () => {
      const made = await jobs.create(accounts.paid!, {
        items: MIXED,
        webhookUrl: 'http://127.0.0.1:9/hook',
        options: { raw: false },
      });
      expect(made).toMatchObject({ status: 'queued', count: MIXED.length, done: 0 });
      id = made.id;
      views = await follow(jobs, accounts.paid!, id);
    });

    it('completes, its progress ending with the final view', () => {
      const last = views[views.length - 1]!;
      expect(last).toMatchObject({
        id,
        status: 'completed',
        count: 10,
        done: 10,
        succeeded: 7,
        failed: 3,
        waiting: 0,
        waiting_until: null,
      });
      expect(last.started_at).not.toBeNull();
      expect(last.finished_at).not.toBeNull();
    });

    it('answers the results in item order, batch-shaped', async () => {
      const lines = await resultsOf(jobs, accounts.paid!, id);
      expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(lines.map((l) => l.ok)).toEqual([true, true, true, true, true, true, false, false, false, true]);
      expect(lines[6].error.code).toBe('not_found');
      expect(lines[7].error.code).toBe('bad_param');
      expect(lines[8].error.code).toBe('bad_param');
      expect(lines[1].data).toEqual(lines[0].data);
      expect(await resultsOf(jobs, accounts.paid!, id, { from: 4, limit: 3 })).toEqual(lines.slice(4, 7));
    });

    it('bills each home once, as the ledger says', async () => {
      const lines = await resultsOf(jobs, accounts.paid!, id);
      const credits = lines.filter((l) => l.ok).reduce((n, l) => n + l.meta.credits, 0);
      const charges = await jobCharges(svc.store, accounts.paid!.id, id);
      expect(credits).toBe(3);
      expect(charges).toHaveLength(3);
      expect(new Set(charges.map((c) => c.cacheKey)).size).toBe(3);
      const view = await jobs.get(accounts.paid!, id);
      expect(view.credits).toBe(3);
      expect(view.cache_hits).toBe(4);
    });

    it('sends one job.completed event', () => {
      const mine = hooks.sent.filter((s) => (s.event.data as { id: string }).id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        accountId: accounts.paid!.id,
        url: 'http://127.0.0.1:9/hook',
        event: { type: 'job.completed', id },
      });
      expect((mine[0]!.event.data as { status: string }).status).toBe('completed');
    });

    it('is not found for another account', async () => {
      await expect(jobs.get(accounts.other!, id)).rejects.toMatchObject({ code: 'not_found', message: 'No such job.' });
      await expect(jobs.results(accounts.other!, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(jobs.cancel(accounts.other!, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(jobs.get(accounts.paid!, 'job_nope')).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('creating', () => {
    it('refuses no items, too many, and a bad webhook URL', async () => {
      await expect(
        jobs.create(accounts.paid!, { items: [], webhookUrl: null, options: { raw: false } }),
      ).rejects.toMatchObject({ code: 'bad_body' });
      await expect(
        jobs.create(accounts.paid!, { items: new Array(10_001).fill('x'), webhookUrl: null, options: { raw: false } }),
      ).rejects.toMatchObject({ code: 'too_many_items', message: 'At most 10,000 items per job.' });
      await expect(
        jobs.create(accounts.paid!, { items: ['x'], webhookUrl: 'ftp://x', options: { raw: false } }),
      ).rejects.toThrow();
    });

    it("lists the account's jobs newest first, by pages", async () => {
      const made = [];
      for (let i = 0; i < 3; i += 1)
        made.push(
          (await jobs.create(accounts.other!, { items: [{ zpid: 'bad' }], webhookUrl: null, options: { raw: false } }))
            .id,
        );
      const first = await jobs.list(accounts.other!, { limit: 2, cursor: null });
      expect(first.jobs.map((j) => j.id)).toEqual([made[2], made[1]]);
      const second = await jobs.list(accounts.other!, { limit: 2, cursor: first.next_cursor });
      expect(second.jobs.map((j) => j.id)).toEqual([made[0]]);
      expect(second.next_cursor).toBeNull();
      expect((await jobs.list(accounts.tiny!, { limit: 10, cursor: null })).jobs).toEqual([]);
    });
  });

  describe('an account that runs out of credits mid-job', () => {
    it('gets credits_exhausted results for the rest, unbilled', async () => {
      // Three homes (the Ames address is zpid 114303858's home), two credits.
      const items = [
        { zpid: '2146993218' },
        { zpid: '114303858' },
        '2435 Aspen Rd Unit 104, Ames, IA 50010',
        { zpid: '15192198' },
      ];
      const { id } = await jobs.create(accounts.tiny!, { items, webhookUrl: null, options: { raw: false, maxAge: 0 } });
      const views = await follow(jobs, accounts.tiny!, id);
      const last = views[views.length - 1]!;
      expect(last).toMatchObject({ status: 'completed', done: 4, credits: 2 });
      const lines = await resultsOf(jobs, accounts.tiny!, id);
      const refused = lines.filter((l) => !l.ok);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(new Set(refused.map((l) => l.error.code))).toEqual(new Set(['credits_exhausted']));
      expect(last.failed).toBe(refused.length);
      expect(lines.filter((l) => l.ok).reduce((n, l) => n + l.meta.credits, 0)).toBe(2);
      expect(await jobCharges(svc.store, accounts.tiny!.id, id)).toHaveLength(2);
    });
  });

  describe('cancel', () => {
    it('cancels a job before it runs: nothing read or billed after, status cancelled', async () => {
      // Jobs of their own queue (another prefix), whose worker starts only after the cancel.
      const core = {
        ...svc.app.core,
        config: { ...svc.config, redisPrefix: `${svc.config.redisPrefix}c` },
      } as CoreDeps;
      const gatedHooks = recordingWebhooks();
      const gated = createJobs(core, gatedHooks, partsFor(core).jobs());
      try {
        const { id } = await gated.create(accounts.other!, {
          items: [{ zpid: '114303858' }, { zpid: '15192198' }],
          webhookUrl: 'https://example.com/hooks',
          options: { raw: false, maxAge: 0 },
        });
        // In process the chunk would start on the next turn: the cancel lands first.
        const view = await gated.cancel(accounts.other!, id);
        expect(view).toMatchObject({ status: 'cancelled', done: 0 });
        expect(view.finished_at).not.toBeNull();
        await gated.startWorker();
        // A job queued behind it completes: the cancelled one's chunk, had it been left, ran (or was skipped) before.
        const next = await gated.create(accounts.other!, {
          items: [{ zpid: 'x' }],
          webhookUrl: null,
          options: { raw: false },
        });
        expect((await follow(gated, accounts.other!, next.id)).pop()!.status).toBe('completed');
        const seen = await follow(gated, accounts.other!, id);
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({ status: 'cancelled', done: 0 });
        expect(await resultsOf(gated, accounts.other!, id)).toEqual([]);
        expect(await jobCharges(svc.store, accounts.other!.id, id)).toEqual([]);
        // The webhook says it ended (docs/watches-and-webhooks.md: job.completed, its job cancelled), once, though cancelled twice.
        await gated.cancel(accounts.other!, id);
        const events = gatedHooks.sent.filter((s) => (s.event.data as { id: string }).id === id);
        expect(events).toHaveLength(1);
        expect(events[0]!.event).toMatchObject({
          type: 'job.completed',
          id,
          data: { id, status: 'cancelled', done: 0 },
        });
      } finally {
        await gated.close();
      }
    });
  });

  describe('the daily live-lookup limit', () => {
    it('holds the items over it until 00:00 UTC: the job waits, not completed', async () => {
      // Its own jobs on a core whose paid plans may read one more home live today.
      const today = new Date().toISOString().slice(0, 10);
      const budget = (await svc.store.budgetUsage(today, 'paid')) + 1;
      const core = {
        ...svc.app.core,
        config: { ...svc.config, paidDailyLiveLookupBudget: budget, redisPrefix: `${svc.config.redisPrefix}d` },
      } as CoreDeps;
      const capped = createJobs(core, recordingWebhooks(), partsFor(core).jobs());
      try {
        await capped.startWorker();
        const items = [{ zpid: '2146993218' }, { zpid: '114303858' }, { zpid: '15192198' }, { zpid: 'bad' }];
        const { id } = await capped.create(accounts.other!, {
          items,
          webhookUrl: null,
          options: { raw: false, maxAge: 0 },
        });
        const seen = await follow(capped, accounts.other!, id, (v) => v.waiting > 0);
        const view = seen.pop()!;
        expect(view).toMatchObject({
          status: 'running',
          waiting: 2,
          done: 2,
          succeeded: 1,
          failed: 1,
          credits: 1,
          finished_at: null,
        });
        expect(view.waiting_until).toBe(nextUtcMidnight(new Date()).toISOString());
        // The items done so far are readable; the held ones have no line yet.
        expect((await resultsOf(capped, accounts.other!, id)).map((l) => l.ok)).toEqual([true, false]);
      } finally {
        await capped.close();
      }
    });
  });
});

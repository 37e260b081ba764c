// A job chunk whose items meet the store unreachable (issue 25, item 4) is retried, not settled with
// store_unavailable results: the run fails, the queue runs it again after its backoff, and the items end
// ok, each home billed once. The store answers store_unavailable to its first cache reads (as the Redis
// store does when Redis is down), then recovers. Gated on those failures, not on time.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { LookupError } from '../../src/contract/index.js';
import { createJobs } from '../../src/jobs/index.js';
import type { Jobs } from '../../src/jobs/types.js';
import { MemoryStore, type Account } from '../../src/store/index.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { follow, jobCharges, recordingWebhooks, resultsOf } from './helpers.js';

/** A memory store whose next `failures` cache reads answer store_unavailable. */
class FlakyStore extends MemoryStore {
  failures = 0;
  failed = 0;

  override async getEntries(...args: Parameters<MemoryStore['getEntries']>): ReturnType<MemoryStore['getEntries']> {
    if (this.failures > 0) {
      this.failures -= 1;
      this.failed += 1;
      throw new LookupError('store_unavailable');
    }
    return super.getEntries(...args);
  }
}

let svc: TestService;
let jobs: Jobs;
let account: Account;
const store = new FlakyStore();

beforeAll(async () => {
  svc = await startTestService({
    inProcess: true,
    store,
    accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
  jobs = createJobs(svc.app.core, recordingWebhooks(), partsFor(svc.app.core).jobs());
  await jobs.startWorker();
});

afterAll(async () => {
  await jobs?.close();
  await svc?.close();
});

it('retries the chunk; its items end ok, billed once', async () => {
  const failedRuns = async () =>
    (await svc.app.core.metrics.jobChunkRuns.get()).values.find((v) => v.labels.outcome === 'failed')?.value ?? 0;
  const before = await failedRuns();
  store.failures = 2;
  const { id } = await jobs.create(account, {
    items: [{ zpid: '114303858' }, { zpid: '15192198' }, { zpid: '114303858' }],
    webhookUrl: null,
    options: { raw: false },
  });
  const final = (await follow(jobs, account, id)).pop()!;
  expect(store.failed).toBe(2);
  expect(await failedRuns()).toBeGreaterThan(before);
  expect(final).toMatchObject({ status: 'completed', done: 3, succeeded: 3, failed: 0, credits: 2 });
  const lines = await resultsOf(jobs, account, id);
  expect(lines.map((l) => l.ok)).toEqual([true, true, true]);
  expect(await jobCharges(svc.store, account.id, id)).toHaveLength(2);
});

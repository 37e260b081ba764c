// A job chunk whose items meet the store unreachable (issue 25, item 4) runs again, never settles
// store_unavailable results, and bills each home once: the run fails, waits (no attempt of the queue used up),
// and its next run settles what it began. Three ways in: the store fails its first cache reads (as the Redis
// store does when Redis is down), a charge is recorded but its answer is lost, a charge's answer is lost
// before it is recorded. In the last two the run has read and cached the home: the next run finds the
// charge under the chunk's request (chargesOf) or makes it from the held reservation (readBy), and the
// credits the results show equal the ledger. Gated on the store's failures, not on time.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { LookupError } from '../../src/contract/index.js';
import { createJobs } from '../../src/jobs/index.js';
import type { Jobs } from '../../src/jobs/types.js';
import { MemoryStore, type Account, type LedgerEntry } from '../../src/store/index.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { follow, jobCharges, recordingWebhooks, resultsOf } from './helpers.js';

/** A memory store that fails as told: its next cache reads, or its next commits (before or after recording them). */
class FlakyStore extends MemoryStore {
  readFailures = 0;
  commitFailures: Array<'before' | 'after'> = [];
  failed = 0;

  override async getEntries(...args: Parameters<MemoryStore['getEntries']>): ReturnType<MemoryStore['getEntries']> {
    if (this.readFailures > 0) {
      this.readFailures -= 1;
      this.failed += 1;
      throw new LookupError('store_unavailable');
    }
    return super.getEntries(...args);
  }

  override async commit(entry: LedgerEntry): Promise<boolean> {
    const how = this.commitFailures.shift();
    if (how === 'after') await super.commit(entry);
    if (how) {
      this.failed += 1;
      throw new LookupError('store_unavailable');
    }
    return super.commit(entry);
  }
}

let svc: TestService;
let jobs: Jobs;
let account: Account;
const store = new FlakyStore();

beforeAll(async () => {
  svc = await startTestService({
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

const rerunsOf = async () =>
  (await svc.app.core.metrics.jobChunkRuns.get()).values.find((v) => v.labels.outcome === 'store_unavailable')?.value ??
  0;

async function runJob(): Promise<{ id: string; final: Awaited<ReturnType<typeof jobs.get>> }> {
  const { id } = await jobs.create(account, {
    items: [{ zpid: '114303858' }, { zpid: '15192198' }, { zpid: '114303858' }],
    webhookUrl: null,
    options: { raw: false, maxAge: 0 },
  });
  const final = (await follow(jobs, account, id)).pop()!;
  return { id, final };
}

for (const [what, arrange] of [
  ['its first cache reads fail', () => (store.readFailures = 2)],
  ['a charge is recorded and its answer lost', () => (store.commitFailures = ['after'])],
  ['a charge is lost before it is recorded', () => (store.commitFailures = ['before'])],
] as const) {
  it(`${what}: the chunk runs again; its items end ok, each home billed once, results = ledger`, async () => {
    const before = await rerunsOf();
    store.failed = 0;
    arrange();
    const { id, final } = await runJob();
    expect(store.failed).toBeGreaterThan(0);
    expect(await rerunsOf()).toBeGreaterThan(before);
    expect(final).toMatchObject({ status: 'completed', done: 3, succeeded: 3, failed: 0, credits: 2 });
    const lines = await resultsOf(jobs, account, id);
    expect(lines.map((l) => l.ok)).toEqual([true, true, true]);
    expect(lines.reduce((n, l) => n + l.meta.credits, 0)).toBe(2);
    expect(await jobCharges(svc.store, account.id, id)).toHaveLength(2);
  });
}

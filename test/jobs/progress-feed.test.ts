// The event streams of one job share one feed per process (issue 25, item 5): 50 open streams of a job cost one
// store read per poll, not one per stream; the feed stops with its last stream. The store is wrapped to count its
// reads; the poll is driven by fake timers (each tick advanced by hand), so nothing here waits on the clock.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { createJobs, PROGRESS_POLL_MS } from '../../src/jobs/index.js';
import { MemoryJobStore, type JobStore } from '../../src/jobs/store.js';
import type { Jobs, JobView } from '../../src/jobs/types.js';
import type { Account } from '../../src/store/index.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';
import { newJobRecord, recordingWebhooks } from './helpers.js';

const STREAMS = 50;

/** The store, with its reads of a job (get) counted. */
function countingStore(inner: MemoryJobStore): JobStore & { reads: number } {
  const counter = { reads: 0 };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'reads') return counter.reads;
      if (prop === 'get') {
        return (id: string) => {
          counter.reads += 1;
          return target.get(id);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as JobStore & { reads: number };
}

describe('job progress streams share one feed per job', () => {
  let svc: TestService;
  let jobs: Jobs;
  let account: Account;
  const inner = new MemoryJobStore();
  const store = countingStore(inner);

  beforeAll(async () => {
    svc = await startTestService({
      accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
      env: { JOB_MAX_EVENT_STREAMS_PER_ACCOUNT: String(STREAMS) },
    });
    account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
    jobs = createJobs(svc.app.core, recordingWebhooks(), { ...partsFor(svc.app.core).jobs(), store });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  afterAll(async () => {
    await jobs?.close();
    await svc?.close();
  });

  /** A job written to the store but never queued: it changes only when the test changes it. */
  async function quietJob(id: string): Promise<void> {
    const job = newJobRecord(account.id, 1, { id });
    await inner.create(job, [[{ zpid: 'nope' }]]);
  }

  it(`${STREAMS} streams of one job: one store read per poll, and none once they all closed`, async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const id = 'job_sharedfeed1';
    await quietJob(id);
    const stop = new AbortController();
    const streams: Array<AsyncIterator<JobView>> = [];
    for (let i = 0; i < STREAMS; i++) {
      const it = (await jobs.progress(account, id, stop.signal))[Symbol.asyncIterator]();
      expect((await it.next()).value).toMatchObject({ id, status: 'queued' });
      streams.push(it);
    }
    // Every stream now waits for its next view.
    const next = streams.map((it) => it.next());
    const before = store.reads;

    // Another process starts the job (no change seen here): the next poll reads it once for all fifty.
    await inner.startChunk(id, 0, Date.now(), new Date().toISOString());
    await vi.advanceTimersByTimeAsync(PROGRESS_POLL_MS);
    const views = await Promise.all(next);
    expect(views.map((v) => v.value?.status)).toEqual(Array(STREAMS).fill('running'));
    expect(store.reads - before).toBe(1);

    // Four more polls with nothing changed: four reads, whatever the number of streams.
    const pending = streams.map((it) => it.next());
    await vi.advanceTimersByTimeAsync(4 * PROGRESS_POLL_MS);
    expect(store.reads - before).toBe(5);

    // The streams close: the feed stops, and no poll reads any more.
    stop.abort();
    expect((await Promise.all(pending)).every((r) => r.done)).toBe(true);
    const closed = store.reads;
    await vi.advanceTimersByTimeAsync(10 * PROGRESS_POLL_MS);
    expect(store.reads).toBe(closed);
  });

  it('a change made in this process wakes every stream of the job with one read', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const id = 'job_sharedfeed2';
    await quietJob(id);
    const stop = new AbortController();
    const streams: Array<AsyncIterator<JobView>> = [];
    for (let i = 0; i < 10; i++) {
      const it = (await jobs.progress(account, id, stop.signal))[Symbol.asyncIterator]();
      await it.next();
      streams.push(it);
    }
    const next = streams.map((it) => it.next());
    const before = store.reads;
    // The cancel (no timer advanced) reads the job for its own answer, and the feed reads it once for the streams.
    const cancelled = await jobs.cancel(account, id);
    expect(cancelled.status).toBe('cancelled');
    const views = await Promise.all(next);
    expect(views.map((v) => v.value?.status)).toEqual(Array(10).fill('cancelled'));
    // owned() and the answer's read by the cancel, one by the feed.
    expect(store.reads - before).toBe(3);
    stop.abort();
  });
});

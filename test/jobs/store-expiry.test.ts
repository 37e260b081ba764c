// A job lives JOB_TTL_MS from the store's write, on the store's own clock, whatever its created_at says:
// the memory store judges by the clock it was given, at the write; a job stamped a year earlier (a service
// clock behind) is not born expired. (Redis: test/e2e/clock-skew.test.ts reads the keys' PTTLs.)
import { describe, expect, it } from 'vitest';
import { MemoryJobStore, type JobRecord } from '../../src/jobs/store.js';
import { JOB_TTL_MS } from '../../src/jobs/types.js';

const job = (id: string, createdAt: string): JobRecord => ({
  id,
  accountId: 'acct',
  status: 'queued',
  count: 1,
  done: 0,
  succeeded: 0,
  failed: 0,
  cache_hits: 0,
  credits: 0,
  created_at: createdAt,
  started_at: null,
  finished_at: null,
  webhook_url: null,
  waiting: 0,
  waiting_until: null,
  options: { raw: false },
  chunks: 1,
  chunks_done: 0,
});

describe('the memory job store keeps a job JOB_TTL_MS on its own clock', () => {
  it('from the write, not from created_at', async () => {
    let now = 1_000_000_000_000;
    const store = new MemoryJobStore(() => now);
    await store.create(job('job_old', new Date(now - 365 * 86_400_000).toISOString()), [[{ zpid: '1' }]]);
    await store.create(job('job_ahead', new Date(now + 365 * 86_400_000).toISOString()), [[{ zpid: '1' }]]);
    expect((await store.get('job_old'))?.id).toBe('job_old');
    now += JOB_TTL_MS - 1;
    expect((await store.get('job_old'))?.id).toBe('job_old');
    expect((await store.list('acct', 10, null)).ids).toEqual(['job_ahead', 'job_old']);
    now += 1;
    expect(await store.get('job_old')).toBeNull();
    expect(await store.get('job_ahead')).toBeNull();
    expect(await store.items('job_old', 0)).toEqual([]);
    expect((await store.list('acct', 10, null)).ids).toEqual([]);
  });

  it('a store given a shorter lifetime keeps its jobs that long', async () => {
    let now = 0;
    const store = new MemoryJobStore(() => now, 1_000);
    await store.create(job('job_short', new Date(0).toISOString()), [[{ zpid: '1' }]]);
    now = 999;
    expect(await store.get('job_short')).not.toBeNull();
    now = 1_000;
    expect(await store.get('job_short')).toBeNull();
  });
});

// A cancelled job's chunk whose round had begun (its worker died mid-run) is run again only to settle what
// that run began: it reads nothing new live, the items the dead run did not read get no result, and the
// job reaches cancelled with its finished_at. Before, the run read every unread item of the chunk live and
// billed it, after the cancel. The dead run is the store's begun round (startChunk) with no settle.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { runChunk } from '../../src/jobs/chunk.js';
import { MemoryJobStore } from '../../src/jobs/store.js';
import type { Account } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { jobCharges, newJobRecord } from './helpers.js';

let svc: TestService;
let account: Account;

beforeAll(async () => {
  svc = await startTestService({
    accounts: { paid: { key: 'test_paid_key_0001', plan: 'paid', included: 1000, overage: false } },
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
});

afterAll(async () => {
  await svc?.close();
});

it('reads nothing new live; the job is cancelled with its finished_at, nothing billed', async () => {
  const jobs = new MemoryJobStore();
  const items = [{ zpid: '114303858' }, { zpid: '15192198' }];
  const job = newJobRecord(account.id, items.length, { options: { raw: false, maxAge: 0 } });
  await jobs.create(job, [items]);
  const iso = new Date().toISOString();
  // A run that began and died before reading anything; then the cancel, while its round is begun.
  expect(await jobs.startChunk(job.id, 0, Date.now(), iso)).toMatchObject({
    state: 'run',
    rerun: false,
    cancelled: false,
  });
  expect(await jobs.finish(job.id, 'cancelled', iso)).toBe(true);
  expect(await jobs.get(job.id)).toMatchObject({ status: 'cancelled', finished_at: null });

  const reads = svc.replay.requests.length;
  expect(await runChunk(svc.app.core, jobs, (await jobs.get(job.id))!, account, 0)).toEqual({
    kind: 'done',
    completed: true,
  });
  expect(svc.replay.requests.length).toBe(reads);
  expect(await jobs.get(job.id)).toMatchObject({
    status: 'cancelled',
    done: 0,
    credits: 0,
    finished_at: expect.any(String),
  });
  expect(await jobs.results(job.id, 0)).toBe('');
  expect(await jobCharges(svc.store, account.id, job.id)).toEqual([]);
});

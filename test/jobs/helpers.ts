// Shared by the jobs tests: a recording Webhooks, waiting on a job through its progress, reading its
// results, the ledger of a job's charges, and a new job's record.
import { randomUUID } from 'node:crypto';
import type { JobRecord } from '../../src/jobs/store.js';
import type { Jobs, JobView } from '../../src/jobs/types.js';
import type { Account, Store } from '../../src/store/index.js';
import type { WebhookEvent, Webhooks } from '../../src/webhooks/types.js';

export interface Sent {
  accountId: string;
  url: string;
  event: WebhookEvent;
}

/** Webhooks that record what they are asked to send. */
export function recordingWebhooks(): Webhooks & { sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    async checkUrl(raw) {
      if (typeof raw !== 'string' || !/^https?:\/\//.test(raw)) throw new Error('bad url');
      return raw;
    },
    async send(account, url, event) {
      sent.push({ accountId: account.id, url, event });
      return `msg_${sent.length}`;
    },
    async startWorker() {},
    async close() {},
  };
}

/** Follows the job's progress until it is final (or `until` says stop); returns every view seen. */
export async function follow(
  jobs: Jobs,
  account: Account,
  id: string,
  until: (v: JobView) => boolean = () => false,
): Promise<JobView[]> {
  const seen: JobView[] = [];
  const stop = new AbortController();
  for await (const v of await jobs.progress(account, id, stop.signal)) {
    seen.push(v);
    if (until(v)) {
      stop.abort();
      break;
    }
  }
  return seen;
}

/** The job's results as parsed lines. */
export async function resultsOf(
  jobs: Jobs,
  account: Account,
  id: string,
  range?: { from?: number; limit?: number },
): Promise<any[]> {
  const lines: any[] = [];
  for await (const line of await jobs.results(account, id, range)) lines.push(JSON.parse(line));
  return lines;
}

/** The account's charges under the job's chunks' request ids. */
export async function jobCharges(store: Store, accountId: string, jobId: string) {
  return (await store.ledger(accountId)).filter((e) => e.requestId.startsWith(`job:${jobId}:`));
}

/** A new job's record as the jobs core makes it (queued, nothing done), for tests that drive a store or a chunk directly. */
export function newJobRecord(accountId: string, count: number, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id: `job_${randomUUID().replace(/-/g, '')}`,
    accountId,
    status: 'queued',
    count,
    done: 0,
    succeeded: 0,
    failed: 0,
    cache_hits: 0,
    credits: 0,
    created_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    webhook_url: null,
    waiting: 0,
    waiting_until: null,
    options: { raw: false },
    chunks: 1,
    chunks_done: 0,
    ...over,
  };
}

// Shared by the jobs tests: a recording Webhooks, waiting on a job through its progress, reading its
// results, and the ledger of a job's charges.
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

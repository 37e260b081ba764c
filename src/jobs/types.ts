// What the faces see of lookup jobs: bulk lookups of up to MAX_JOB_ITEMS items that outlive the request
// that made them, run by workers (BullMQ on Redis, or in this process without Redis), billed as lookups.
import type { JobRequest } from '../contract/job-input.js';
import type { JobView } from '../contract/jobs.js';
import type { Account } from '../store/index.js';

export { JOB_TTL_MS, MAX_JOB_ITEMS, type JobStatus, type JobView } from '../contract/jobs.js';
export type { JobRequest } from '../contract/job-input.js';

export interface JobPage {
  jobs: JobView[];
  /** Pass as `cursor` for the next (older) page; null: no more. */
  next_cursor: string | null;
}

export interface Jobs {
  /**
   * Validates and queues a job (1 to MAX_JOB_ITEMS items, else bad_body / too_many_items; a bad
   * webhook_url bad_param). The account is the caller's; jobs are the account's own.
   */
  create(account: Account, request: JobRequest): Promise<JobView>;
  /** The account's job; LookupError not_found when it is not the account's or is gone. */
  get(account: Account, id: string): Promise<JobView>;
  /** The account's jobs, newest first. */
  list(account: Account, page: { limit: number; cursor: string | null }): Promise<JobPage>;
  /**
   * Cancels what has not started; chunks already running finish and are billed. Returns the job as it
   * then stands (finished_at null while chunks run). Its job.completed, finished_at and the progress
   * stream's end come once no chunk of it still runs.
   */
  cancel(account: Account, id: string): Promise<JobView>;
  /**
   * The results of the items that are done, in item order, each one batch-shaped result as a JSON line
   * (`{"index":…,"ok":true,"data":…,"meta":…}` or `{"index":…,"ok":false,"error":…}`), read from the
   * store a chunk at a time (never the whole result in memory). `from`: the first item index; `limit`:
   * at most this many lines.
   */
  results(account: Account, id: string, range?: { from?: number; limit?: number }): Promise<AsyncIterable<string>>;
  /**
   * The job's progress until it is final (its current state first, then each change); stops on `signal`.
   * A cancelled job is shown only once final (its running chunks settled).
   */
  progress(account: Account, id: string, signal: AbortSignal): Promise<AsyncIterable<JobView>>;
  /** Starts running jobs in this process (the service with WORK_IN_SERVICE, and `npm run worker`). */
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

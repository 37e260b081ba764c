// What the faces see of lookup jobs: bulk lookups of up to MAX_JOB_ITEMS items that outlive the request
// that made them, run by workers (BullMQ on Redis, or in this process without Redis), billed as lookups.
import type { LookupOptions } from '../contract/index.js';
import type { Account } from '../store/index.js';

export const MAX_JOB_ITEMS = 10_000;
/** How long a job and its results are kept after it was made. */
export const JOB_TTL_MS = 7 * 24 * 3600_000;

export type JobStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';

/** A job as GET /v1/portal/jobs/<id> shows it (snake_case; GraphQL shows the same fields in camelCase). */
export interface JobView {
  id: string;
  status: JobStatus;
  count: number;
  done: number;
  succeeded: number;
  failed: number;
  cache_hits: number;
  credits: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  webhook_url: string | null;
  /** Items held for the daily live-lookup limit (live_lookups_capped), to be read after `waiting_until`. */
  waiting: number;
  /** When held items run again (00:00 UTC), or null. */
  waiting_until: string | null;
}

/** A job as a client asked for it, after the face read its body (JSON, CSV or NDJSON). */
export interface JobRequest {
  /** The items as sent, in the batch's item forms (each validated when run; a bad one is its error result). */
  items: unknown[];
  webhookUrl: string | null;
  /** The job's options (max_age, status, raw), as for a batch. */
  options: LookupOptions;
}

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

// Where lookup jobs live (the interface and the memory store here; the Redis one in redis-store.ts): the
// job (its counters and status), its items and its results per chunk of CHUNK_SIZE items, each chunk's state (when its current round began, the results settled by earlier
// rounds, the homes those billed), the account's index of jobs. In memory, or on Redis where every key
// of one job carries the job's hash tag (`P{job:<id>}:…`, one slot on a cluster) so a chunk's results and
// the job's counters are written by one script, atomically and once (a re-run finds the chunk settled).
// Everything expires JOB_TTL_MS after the job was made, on the store's own clock: Redis keys by a relative
// TTL (a key written later takes the job key's remaining PTTL), the memory store by its clock at the write,
// so a service whose clock is skewed from Redis' keeps its jobs their whole lifetime.
import type { LookupOptions } from '../contract/index.js';
import { JOB_TTL_MS, type JobStatus, type JobView } from './types.js';

/** Items per chunk: a batch's worth, one queue job each. */
export const CHUNK_SIZE = 50;

export interface JobRecord extends Omit<JobView, 'webhook_url'> {
  accountId: string;
  webhook_url: string | null;
  options: LookupOptions;
  chunks: number;
  chunks_done: number;
}

/** A chunk as a run starts it. */
export type ChunkStart =
  | { state: 'gone' }
  /**
   * The job is final (cancelled, failed, completed) or this chunk is settled: nothing to run. `round`, `billed`
   * and `begun` (its round began and did not settle) say whether it had runs whose charges no line shows.
   */
  | { state: 'skip'; status: JobStatus; settled: boolean; round: number; billed: string[]; begun: boolean }
  | {
      state: 'run';
      /** The round (one per wait for the daily limit) this run belongs to; its write must name it. */
      round: number;
      /** When this round first began (ms): a re-run after a crash takes reads since then as fresh. */
      roundStart: number;
      /** Another run of this round began before (and did not settle it). */
      rerun: boolean;
      /** Result lines settled by earlier rounds, NDJSON. */
      partial: string;
      /** Entry keys earlier rounds billed (one per charge). */
      billed: string[];
      /** How many adjusts (adjustChunk) the chunk has had: the run's write names it (adjustsSeen). */
      adjusts: number;
      /** The job was cancelled: the run settles what an earlier run of its round began, and reads nothing new. */
      cancelled: boolean;
    };

export interface ChunkWrite {
  round: number;
  /** Settles the chunk: `lines` completes it (with `partial`). Else the lines are kept and a new round waits. */
  final: boolean;
  /** The result lines of this write, in item order (final: the chunk's whole text, partial lines included). */
  text: string;
  counts: { done: number; succeeded: number; failed: number; cache_hits: number; credits: number };
  /** Items held for the daily limit after this write, and when they run. */
  held: number;
  waitingUntil: string | null;
  billed: string[];
  /**
   * How many adjusts the chunk had when the run read its settled lines (its start, or readSettled), before it
   * read the chunk's charges: the write is refused (adjusted) when there have been more since, a refused run
   * having recorded a charge the run may not have read, and perhaps moved it onto settled lines.
   */
  adjustsSeen: number;
  now: string;
}

/**
 * What became of a write: settled; refused (the job gone, the chunk done, or its round written by another run);
 * or adjusted (the round still open, but a refused run adjusted the chunk since the run read it: the run reads
 * the settled lines and the charges again with readSettled, recomputes what it reports and writes again).
 */
export type SettleAnswer = 'settled' | 'refused' | 'adjusted';

/** A change to a settled chunk (chunk.ts adoptCharges): its new lines, the keys it now bills too, counter deltas. */
export interface ChunkAdjust {
  text: string;
  billed: string[];
  counts: { succeeded: number; failed: number; cache_hits: number; credits: number };
}

/** The per-account bounds a new job is counted against (JOB_MAX_ACTIVE_PER_ACCOUNT, JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT). */
export interface JobBounds {
  maxActive: number;
  maxQueuedItems: number;
}

/** Which bound a job would pass, its value, and what the account has counted now. */
export type JobRefusal =
  | { limit: 'jobs_active'; max: number; active: number }
  | { limit: 'job_items_queued'; max: number; queued: number };

export interface JobStore {
  /**
   * Counts a new job (its id and item count) against its account's bounds, atomically across instances; null
   * when counted, else the bound it would pass (nothing counted). A job stays counted until it is final:
   * completed (settleChunk), failed or cancelled (finish; a cancelled job at once, before its running chunks settle).
   */
  admit(accountId: string, jobId: string, items: number, bounds: JobBounds): Promise<JobRefusal | null>;
  /** Takes a job off its account's count; a job not counted (already released) changes nothing. */
  release(accountId: string, jobId: string): Promise<void>;
  /** The account's counted jobs and their items. */
  counted(accountId: string): Promise<{ jobs: number; items: number }>;
  /**
   * Opens one job event stream of the account (a lease of `ttlMs`, renewed by renewStreams while it is open): false,
   * and nothing held, when the account already has `max` open.
   */
  openStream(accountId: string, streamId: string, max: number, ttlMs: number): Promise<boolean>;
  /** Renews the leases of the account's streams this process holds (one command for them all). */
  renewStreams(accountId: string, streamIds: readonly string[], ttlMs: number): Promise<void>;
  closeStream(accountId: string, streamId: string): Promise<void>;
  create(job: JobRecord, chunkItems: unknown[][]): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /** The account's job ids, newest first, after `cursor`. */
  list(accountId: string, limit: number, cursor: string | null): Promise<{ ids: string[]; next: string | null }>;
  items(id: string, chunk: number): Promise<unknown[]>;
  startChunk(id: string, chunk: number, now: number, nowIso: string): Promise<ChunkStart>;
  /**
   * Applies the write unless this round was already written (refused) or the chunk had an adjust since the run
   * read it (adjusted: nothing written); the last running chunk of a cancelled job sets its finished_at.
   */
  settleChunk(id: string, chunk: number, write: ChunkWrite): Promise<SettleAnswer>;
  /**
   * The chunk's settled lines (all of them when done, else the partial lines of earlier rounds), billed keys and
   * how many adjusts it has had.
   */
  readSettled(id: string, chunk: number): Promise<{ text: string; billed: string[]; adjusts: number }>;
  /**
   * Sets a queued or running job to `status` (cancelled, failed); returns whether it changed. A job
   * cancelled while chunks of it run gets its finished_at when the last of them settles (settleChunk);
   * `failed` on such a job finishes it (its chunk failed past its retries: nothing more will settle).
   */
  finish(id: string, status: 'cancelled' | 'failed', nowIso: string): Promise<boolean>;
  /**
   * Changes a settled chunk's lines and counters by `adopt` (given its result lines and billed keys; null:
   * nothing to change), atomically; the number of charges it moved in. Counts one adjust of the chunk in the
   * same step, whether or not anything changed: a run that read the chunk's charges before the adjusting run
   * recorded its own has its settle refused (adjusted) and reads them again.
   */
  adjustChunk(
    id: string,
    chunk: number,
    adopt: (text: string, billed: string[]) => ChunkAdjust | null,
  ): Promise<number>;
  /** The chunk's result lines: all of a settled chunk, or the lines settled so far. */
  results(id: string, chunk: number): Promise<string>;
  /** The chunks whose round has begun and not settled (a run under way, dead, or waiting for its retry). */
  begunChunks(id: string): Promise<number[]>;
  /** Claims the job's final notice (SET NX); false when it was already claimed. */
  claimNotice(id: string): Promise<boolean>;
  releaseNotice(id: string): Promise<void>;
  close(): Promise<void>;
}

/** A Redis store checks an account's counted jobs against the jobs at most this often per process (a refused job asks). */
export const RECONCILE_MS = 5_000;

const COUNTERS = ['done', 'succeeded', 'failed', 'cache_hits', 'credits'] as const;
export const isFinal = (s: JobStatus): boolean => s === 'completed' || s === 'cancelled' || s === 'failed';

interface MemoryChunk {
  round: number;
  roundStart: number | null;
  partial: string;
  billed: string[];
  /** Adjusts so far (adjustChunk), each counted whether or not it changed anything. */
  adjusts: number;
  held: number;
  done: boolean;
  results: string | null;
}

/** Jobs in this process (no Redis): lost on restart, as docs/jobs.md says. */
export class MemoryJobStore implements JobStore {
  readonly #jobs = new Map<
    string,
    { job: JobRecord; items: unknown[][]; chunks: MemoryChunk[]; notice: boolean; expiresAt: number }
  >();
  readonly #byAccount = new Map<string, string[]>();
  /** Per account: its counted jobs (id to items) and their items together. */
  readonly #counted = new Map<string, { jobs: Map<string, number>; items: number }>();
  /** Per account: its open event streams and when each lease ends. */
  readonly #streams = new Map<string, Map<string, number>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = JOB_TTL_MS,
  ) {}

  #live(id: string) {
    const j = this.#jobs.get(id);
    if (j && j.expiresAt <= this.now()) {
      this.#jobs.delete(id);
      // A job gone while still counted (queued or running at its expiry) leaves its account's bounds too.
      this.#releaseNow(j.job.accountId, id);
      return undefined;
    }
    return j;
  }

  async admit(accountId: string, jobId: string, items: number, bounds: JobBounds): Promise<JobRefusal | null> {
    // Counted jobs that expired unseen (#live releases them) count no more.
    for (const id of [...(this.#counted.get(accountId)?.jobs.keys() ?? [])]) if (this.#jobs.has(id)) this.#live(id);
    const c = this.#counted.get(accountId) ?? { jobs: new Map<string, number>(), items: 0 };
    if (c.jobs.has(jobId)) return null;
    if (c.jobs.size >= bounds.maxActive) return { limit: 'jobs_active', max: bounds.maxActive, active: c.jobs.size };
    if (c.items + items > bounds.maxQueuedItems)
      return { limit: 'job_items_queued', max: bounds.maxQueuedItems, queued: c.items };
    c.jobs.set(jobId, items);
    c.items += items;
    this.#counted.set(accountId, c);
    return null;
  }

  async release(accountId: string, jobId: string): Promise<void> {
    this.#releaseNow(accountId, jobId);
  }

  /** Synchronous, so a final transition and its release are one step (exactly once: a released job is no longer counted). */
  #releaseNow(accountId: string, jobId: string): void {
    const c = this.#counted.get(accountId);
    const n = c?.jobs.get(jobId);
    if (!c || n === undefined) return;
    c.jobs.delete(jobId);
    c.items -= n;
    if (c.jobs.size === 0) this.#counted.delete(accountId);
  }

  async counted(accountId: string): Promise<{ jobs: number; items: number }> {
    const c = this.#counted.get(accountId);
    return { jobs: c?.jobs.size ?? 0, items: c?.items ?? 0 };
  }

  async openStream(accountId: string, streamId: string, max: number, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const open = this.#streams.get(accountId) ?? new Map<string, number>();
    for (const [id, until] of open) if (until <= now) open.delete(id);
    if (!open.has(streamId) && open.size >= max) return false;
    open.set(streamId, now + ttlMs);
    this.#streams.set(accountId, open);
    return true;
  }

  async renewStreams(accountId: string, streamIds: readonly string[], ttlMs: number): Promise<void> {
    const open = this.#streams.get(accountId);
    for (const id of streamIds) if (open?.has(id)) open.set(id, this.now() + ttlMs);
  }

  async closeStream(accountId: string, streamId: string): Promise<void> {
    const open = this.#streams.get(accountId);
    open?.delete(streamId);
    if (open?.size === 0) this.#streams.delete(accountId);
  }

  async create(job: JobRecord, chunkItems: unknown[][]): Promise<void> {
    const chunks = chunkItems.map(
      (): MemoryChunk => ({
        round: 0,
        roundStart: null,
        partial: '',
        billed: [],
        adjusts: 0,
        held: 0,
        done: false,
        results: null,
      }),
    );
    this.#jobs.set(job.id, {
      job: { ...job },
      items: chunkItems,
      chunks,
      notice: false,
      expiresAt: this.now() + this.ttlMs,
    });
    const ids = (this.#byAccount.get(job.accountId) ?? []).filter((i) => this.#live(i));
    ids.push(job.id);
    this.#byAccount.set(job.accountId, ids);
  }

  async get(id: string): Promise<JobRecord | null> {
    const j = this.#live(id);
    return j ? { ...j.job } : null;
  }

  async list(accountId: string, limit: number, cursor: string | null) {
    const ids = (this.#byAccount.get(accountId) ?? []).filter((i) => this.#live(i)).reverse();
    const from = cursor === null ? 0 : ids.indexOf(cursor) + 1;
    if (cursor !== null && from === 0) return { ids: [], next: null };
    const page = ids.slice(from, from + limit);
    return { ids: page, next: from + limit < ids.length ? page[page.length - 1]! : null };
  }

  async items(id: string, chunk: number): Promise<unknown[]> {
    return this.#live(id)?.items[chunk] ?? [];
  }

  async startChunk(id: string, chunk: number, now: number, nowIso: string): Promise<ChunkStart> {
    const j = this.#live(id);
    const c = j?.chunks[chunk];
    if (!j || !c) return { state: 'gone' };
    // A cancelled job's chunk that was running (its run died) is run again to settle what it began.
    if (c.done || (isFinal(j.job.status) && !(j.job.status === 'cancelled' && c.roundStart !== null)))
      return {
        state: 'skip',
        status: j.job.status,
        settled: c.done,
        round: c.round,
        billed: [...c.billed],
        begun: c.roundStart !== null,
      };
    if (j.job.status === 'queued') Object.assign(j.job, { status: 'running', started_at: nowIso });
    const rerun = c.roundStart !== null;
    c.roundStart ??= now;
    return {
      state: 'run',
      round: c.round,
      roundStart: c.roundStart,
      rerun,
      partial: c.partial,
      billed: [...c.billed],
      adjusts: c.adjusts,
      cancelled: j.job.status === 'cancelled',
    };
  }

  async settleChunk(id: string, chunk: number, w: ChunkWrite): Promise<SettleAnswer> {
    const j = this.#live(id);
    const c = j?.chunks[chunk];
    if (!j || !c || c.done || c.round !== w.round) return 'refused';
    if (c.adjusts > w.adjustsSeen) return 'adjusted';
    for (const k of COUNTERS) j.job[k] += w.counts[k];
    j.job.waiting += w.held - c.held;
    c.held = w.held;
    c.billed.push(...w.billed);
    if (w.final) {
      c.done = true;
      c.results = w.text;
      c.partial = '';
      j.job.chunks_done += 1;
      if (j.job.chunks_done === j.job.chunks && !isFinal(j.job.status)) {
        Object.assign(j.job, { status: 'completed', finished_at: w.now });
        this.#releaseNow(j.job.accountId, id);
      }
    } else {
      c.partial += w.text;
      c.round += 1;
      c.roundStart = null;
    }
    if (w.waitingUntil !== null) j.job.waiting_until = w.waitingUntil;
    if (j.job.waiting === 0) j.job.waiting_until = null;
    if (
      j.job.status === 'cancelled' &&
      j.job.finished_at === null &&
      !j.chunks.some((x) => !x.done && x.roundStart !== null)
    )
      j.job.finished_at = w.now;
    return 'settled';
  }

  async readSettled(id: string, chunk: number): Promise<{ text: string; billed: string[]; adjusts: number }> {
    const c = this.#live(id)?.chunks[chunk];
    return { text: c ? (c.results ?? c.partial) : '', billed: [...(c?.billed ?? [])], adjusts: c?.adjusts ?? 0 };
  }

  async adjustChunk(
    id: string,
    chunk: number,
    adopt: (text: string, billed: string[]) => ChunkAdjust | null,
  ): Promise<number> {
    const j = this.#live(id);
    const c = j?.chunks[chunk];
    if (!j || !c) return 0;
    const change = adopt(c.results ?? c.partial, [...c.billed]);
    c.adjusts += 1;
    if (!change) return 0;
    if (c.results !== null) c.results = change.text;
    else c.partial = change.text;
    c.billed.push(...change.billed);
    for (const k of ['succeeded', 'failed', 'cache_hits', 'credits'] as const) j.job[k] += change.counts[k];
    return change.billed.length;
  }

  async finish(id: string, status: 'cancelled' | 'failed', nowIso: string): Promise<boolean> {
    const j = this.#live(id);
    if (!j) return false;
    if (j.job.status === 'cancelled' && j.job.finished_at === null && status === 'failed') {
      j.job.finished_at = nowIso;
      return true;
    }
    if (isFinal(j.job.status)) return false;
    const running = status === 'cancelled' && j.chunks.some((x) => !x.done && x.roundStart !== null);
    Object.assign(j.job, { status, finished_at: running ? null : nowIso });
    // Cancelled counts as final for the account's bounds at once: its running chunks only settle.
    this.#releaseNow(j.job.accountId, id);
    return true;
  }

  async results(id: string, chunk: number): Promise<string> {
    const c = this.#live(id)?.chunks[chunk];
    return c ? (c.results ?? c.partial) : '';
  }

  async begunChunks(id: string): Promise<number[]> {
    return (this.#live(id)?.chunks ?? []).flatMap((c, n) => (!c.done && c.roundStart !== null ? [n] : []));
  }

  async claimNotice(id: string): Promise<boolean> {
    const j = this.#live(id);
    if (!j || j.notice) return false;
    j.notice = true;
    return true;
  }

  async releaseNotice(id: string): Promise<void> {
    const j = this.#live(id);
    if (j) j.notice = false;
  }

  async close(): Promise<void> {}
}

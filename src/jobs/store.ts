// Where lookup jobs live: the job (its counters and status), its items and its results per chunk of
// CHUNK_SIZE items, each chunk's state (when its current round began, the results settled by earlier
// rounds, the homes those billed), the account's index of jobs. In memory, or on Redis where every key
// of one job carries the job's hash tag (`P{job:<id>}:…`, one slot on a cluster) so a chunk's results and
// the job's counters are written by one script, atomically and once (a re-run finds the chunk settled).
// Everything expires JOB_TTL_MS after the job was made, on the store's own clock: Redis keys by a relative
// TTL (a key written later takes the job key's remaining PTTL), the memory store by its clock at the write,
// so a service whose clock is skewed from Redis' keeps its jobs their whole lifetime.
import type { LookupOptions } from '../contract/index.js';
import { classifiedCall, type StoreCall } from '../store/fail-fast.js';
import type { RedisClient } from '../store/redis-connection.js';
import { lua } from '../store/lua.js';
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
  /** The job is final (cancelled, failed, completed) or this chunk is settled: nothing to run. */
  | { state: 'skip'; status: JobStatus; settled: boolean }
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
  now: string;
}

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
  /** Applies the write unless this round was already written (false); the last running chunk of a cancelled job sets its finished_at. */
  settleChunk(id: string, chunk: number, write: ChunkWrite): Promise<boolean>;
  /**
   * Sets a queued or running job to `status` (cancelled, failed); returns whether it changed. A job
   * cancelled while chunks of it run gets its finished_at when the last of them settles (settleChunk);
   * `failed` on such a job finishes it (its chunk failed past its retries: nothing more will settle).
   */
  finish(id: string, status: 'cancelled' | 'failed', nowIso: string): Promise<boolean>;
  /**
   * Changes a settled chunk's lines and counters by `adopt` (given its result lines and billed keys; null:
   * nothing to change), atomically; the number of charges it moved in.
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
const RECONCILE_MS = 5_000;

const COUNTERS = ['done', 'succeeded', 'failed', 'cache_hits', 'credits'] as const;
const isFinal = (s: JobStatus): boolean => s === 'completed' || s === 'cancelled' || s === 'failed';

interface MemoryChunk {
  round: number;
  roundStart: number | null;
  partial: string;
  billed: string[];
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
      return undefined;
    }
    return j;
  }

  async admit(accountId: string, jobId: string, items: number, bounds: JobBounds): Promise<JobRefusal | null> {
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
      (): MemoryChunk => ({ round: 0, roundStart: null, partial: '', billed: [], held: 0, done: false, results: null }),
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
      return { state: 'skip', status: j.job.status, settled: c.done };
    if (j.job.status === 'queued') Object.assign(j.job, { status: 'running', started_at: nowIso });
    const rerun = c.roundStart !== null;
    c.roundStart ??= now;
    return { state: 'run', round: c.round, roundStart: c.roundStart, rerun, partial: c.partial, billed: [...c.billed] };
  }

  async settleChunk(id: string, chunk: number, w: ChunkWrite): Promise<boolean> {
    const j = this.#live(id);
    const c = j?.chunks[chunk];
    if (!j || !c || c.done || c.round !== w.round) return false;
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
    return true;
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

// --- Redis ---------------------------------------------------------------------------------------

// The scripts (their KEYS, ARGV and reply in each file's header, src/jobs/lua/). A key of the job written
// after its creation lives as long as the job key has left (Redis' clock): job-ttl.lua, included by those
// that write one.
const LUA_START = lua(new URL('./lua/start.lua', import.meta.url));
const LUA_SETTLE = lua(new URL('./lua/settle.lua', import.meta.url));
const LUA_READ_SETTLED = lua(new URL('./lua/read-settled.lua', import.meta.url));
const LUA_ADJUST = lua(new URL('./lua/adjust.lua', import.meta.url));
const LUA_INDEX = lua(new URL('./lua/index.lua', import.meta.url));
const LUA_FINISH = lua(new URL('./lua/finish.lua', import.meta.url));
const LUA_ADMIT = lua(new URL('./lua/account-admit.lua', import.meta.url));
const LUA_RELEASE = lua(new URL('./lua/account-release.lua', import.meta.url));
const LUA_STREAM_OPEN = lua(new URL('./lua/stream-open.lua', import.meta.url));
const LUA_STREAM_RENEW = lua(new URL('./lua/stream-renew.lua', import.meta.url));

type Scripted = RedisClient & {
  jobStart(k1: string, k2: string, ...args: (string | number)[]): Promise<string[]>;
  jobSettle(k1: string, k2: string, k3: string, ...args: (string | number)[]): Promise<number | string>;
  jobFinish(k1: string, ...args: string[]): Promise<[number, string]>;
  jobAdmit(k1: string, k2: string, ...args: (string | number)[]): Promise<[string, number]>;
  jobRelease(k1: string, k2: string, id: string): Promise<number>;
  jobStreamOpen(k1: string, ...args: (string | number)[]): Promise<number>;
  jobStreamRenew(k1: string, ...args: (string | number)[]): Promise<number>;
  jobReadSettled(k1: string, k2: string, k3: string): Promise<[string, string]>;
  jobAdjust(k1: string, k2: string, k3: string, ...args: (string | number)[]): Promise<number>;
  jobIndex(k1: string, id: string, ttlMs: number): Promise<number>;
};

/** Jobs on Redis, shared by every instance and worker. */
export class RedisJobStore implements JobStore {
  readonly #redis: Scripted;
  /** Every Redis call goes through it: bounded and classified (store/fail-fast.ts), as the service's store's. */
  readonly #run: StoreCall;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlMs: number = JOB_TTL_MS,
    run: StoreCall = classifiedCall,
  ) {
    this.#run = run;
    redis.defineCommand('jobStart', { numberOfKeys: 2, lua: LUA_START });
    redis.defineCommand('jobSettle', { numberOfKeys: 3, lua: LUA_SETTLE });
    redis.defineCommand('jobFinish', { numberOfKeys: 1, lua: LUA_FINISH });
    redis.defineCommand('jobReadSettled', { numberOfKeys: 3, lua: LUA_READ_SETTLED });
    redis.defineCommand('jobAdjust', { numberOfKeys: 3, lua: LUA_ADJUST });
    redis.defineCommand('jobIndex', { numberOfKeys: 1, lua: LUA_INDEX });
    redis.defineCommand('jobAdmit', { numberOfKeys: 2, lua: LUA_ADMIT });
    redis.defineCommand('jobRelease', { numberOfKeys: 2, lua: LUA_RELEASE });
    redis.defineCommand('jobStreamOpen', { numberOfKeys: 1, lua: LUA_STREAM_OPEN });
    redis.defineCommand('jobStreamRenew', { numberOfKeys: 1, lua: LUA_STREAM_RENEW });
    this.#redis = redis as Scripted;
  }

  #key(id: string, part: string): string {
    return `${this.prefix}{job:${id}}:${part}`;
  }

  #index(accountId: string): string {
    return `${this.prefix}{jobs:${accountId}}:index`;
  }

  #account(accountId: string, part: 'counted' | 'counted_items' | 'streams'): string {
    return `${this.prefix}{jobs:${accountId}}:${part}`;
  }

  /** When each account's counted jobs were last checked against their jobs (reconcile), in this process. */
  readonly #reconciled = new Map<string, number>();

  async admit(accountId: string, jobId: string, items: number, bounds: JobBounds): Promise<JobRefusal | null> {
    const attempt = async (): Promise<JobRefusal | null> => {
      const [verdict, now] = await this.#run(() =>
        this.#redis.jobAdmit(
          this.#account(accountId, 'counted'),
          this.#account(accountId, 'counted_items'),
          jobId,
          items,
          bounds.maxActive,
          bounds.maxQueuedItems,
          this.ttlMs,
        ),
      );
      if (verdict === 'jobs_active') return { limit: verdict, max: bounds.maxActive, active: Number(now) };
      if (verdict === 'job_items_queued') return { limit: verdict, max: bounds.maxQueuedItems, queued: Number(now) };
      return null;
    };
    const refused = await attempt();
    if (!refused || !(await this.#reconcile(accountId))) return refused;
    return attempt();
  }

  /**
   * A job counted whose final write ran but whose release did not (the process died between the two scripts:
   * on a cluster they are in different slots) is released here: the account's counted jobs that are final or
   * gone. Run when a job is refused, at most once a RECONCILE_MS per account and process. True when it released any.
   */
  async #reconcile(accountId: string): Promise<boolean> {
    const last = this.#reconciled.get(accountId) ?? 0;
    if (Date.now() - last < RECONCILE_MS) return false;
    this.#reconciled.set(accountId, Date.now());
    if (this.#reconciled.size > 10_000) this.#reconciled.delete(this.#reconciled.keys().next().value!);
    const ids = await this.#run(() => this.#redis.hkeys(this.#account(accountId, 'counted')));
    const statuses = await Promise.all(
      ids.map((id) => this.#run(() => this.#redis.hget(this.#key(id, 'job'), 'status'))),
    );
    const over = ids.filter((_, i) => statuses[i] === null || isFinal(statuses[i] as JobStatus));
    for (const id of over) await this.release(accountId, id);
    return over.length > 0;
  }

  async release(accountId: string, jobId: string): Promise<void> {
    await this.#run(() =>
      this.#redis.jobRelease(this.#account(accountId, 'counted'), this.#account(accountId, 'counted_items'), jobId),
    );
  }

  async counted(accountId: string): Promise<{ jobs: number; items: number }> {
    const [jobs, items] = await this.#run(() =>
      Promise.all([
        this.#redis.hlen(this.#account(accountId, 'counted')),
        this.#redis.get(this.#account(accountId, 'counted_items')),
      ]),
    );
    return { jobs, items: Number(items ?? 0) };
  }

  async openStream(accountId: string, streamId: string, max: number, ttlMs: number): Promise<boolean> {
    return (
      (await this.#run(() => this.#redis.jobStreamOpen(this.#account(accountId, 'streams'), streamId, max, ttlMs))) ===
      1
    );
  }

  async renewStreams(accountId: string, streamIds: readonly string[], ttlMs: number): Promise<void> {
    if (streamIds.length > 0)
      await this.#run(() => this.#redis.jobStreamRenew(this.#account(accountId, 'streams'), ttlMs, ...streamIds));
  }

  async closeStream(accountId: string, streamId: string): Promise<void> {
    await this.#run(() => this.#redis.zrem(this.#account(accountId, 'streams'), streamId));
  }

  async create(job: JobRecord, chunkItems: unknown[][]): Promise<void> {
    const { options, ...rest } = job;
    const fields: Record<string, string> = { options: JSON.stringify(options) };
    for (const [k, v] of Object.entries(rest)) fields[k] = v === null ? '' : String(v);
    const multi = this.#redis
      .multi()
      .hset(this.#key(job.id, 'job'), fields)
      .pexpire(this.#key(job.id, 'job'), this.ttlMs);
    chunkItems.forEach((items, n) =>
      multi.set(this.#key(job.id, `items:${n}`), JSON.stringify(items), 'PX', this.ttlMs),
    );
    await this.#run(() => multi.exec());
    await this.#run(() => this.#redis.jobIndex(this.#index(job.accountId), job.id, this.ttlMs));
  }

  async get(id: string): Promise<JobRecord | null> {
    const h = await this.#run(() => this.#redis.hgetall(this.#key(id, 'job')));
    if (!h.id) return null;
    const num = (k: string) => Number(h[k] ?? 0);
    const str = (k: string) => (h[k] ? h[k]! : null);
    return {
      id: h.id,
      accountId: h.accountId!,
      status: h.status as JobStatus,
      count: num('count'),
      done: num('done'),
      succeeded: num('succeeded'),
      failed: num('failed'),
      cache_hits: num('cache_hits'),
      credits: num('credits'),
      created_at: h.created_at!,
      started_at: str('started_at'),
      finished_at: str('finished_at'),
      webhook_url: str('webhook_url'),
      waiting: num('waiting'),
      waiting_until: str('waiting_until'),
      options: JSON.parse(h.options ?? '{"raw":false}') as LookupOptions,
      chunks: num('chunks'),
      chunks_done: num('chunks_done'),
    };
  }

  async list(accountId: string, limit: number, cursor: string | null) {
    const index = this.#index(accountId);
    let max = '+inf';
    if (cursor !== null) {
      const score = await this.#run(() => this.#redis.zscore(index, cursor));
      if (score === null) return { ids: [], next: null };
      max = score;
    }
    // Members of one score come in reverse lexical order; those of the cursor's score up to it are skipped.
    const raw = await this.#run(() =>
      this.#redis.zrevrangebyscore(index, max, '-inf', 'WITHSCORES', 'LIMIT', 0, limit + 1000),
    );
    const ids: string[] = [];
    let past = cursor === null;
    for (let i = 0; i < raw.length; i += 2) {
      const id = raw[i]!;
      if (!past) {
        if (raw[i + 1] !== max || id < cursor!) past = true;
        else continue;
      }
      ids.push(id);
    }
    const page = ids.slice(0, limit);
    return { ids: page, next: ids.length > limit ? page[page.length - 1]! : null };
  }

  async items(id: string, chunk: number): Promise<unknown[]> {
    const text = await this.#run(() => this.#redis.get(this.#key(id, `items:${chunk}`)));
    return text ? (JSON.parse(text) as unknown[]) : [];
  }

  async startChunk(id: string, chunk: number, now: number, nowIso: string): Promise<ChunkStart> {
    const r = await this.#run(() =>
      this.#redis.jobStart(this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), now, nowIso),
    );
    if (r[0] === 'gone') return { state: 'gone' };
    if (r[0] === 'skip') return { state: 'skip', status: r[1] as JobStatus, settled: r[2] === '1' };
    return {
      state: 'run',
      round: Number(r[1]),
      roundStart: Number(r[2]),
      rerun: r[3] === '1',
      partial: r[4] ?? '',
      billed: r[5] ? r[5].split(' ') : [],
    };
  }

  async settleChunk(id: string, chunk: number, w: ChunkWrite): Promise<boolean> {
    const c = w.counts;
    const applied = await this.#run(() =>
      this.#redis.jobSettle(
        this.#key(id, 'job'),
        this.#key(id, `chunk:${chunk}`),
        this.#key(id, `results:${chunk}`),
        w.round,
        w.final ? '1' : '0',
        w.text,
        c.done,
        c.succeeded,
        c.failed,
        c.cache_hits,
        c.credits,
        w.held,
        w.waitingUntil ?? '',
        w.billed.join(' '),
        w.now,
      ),
    );
    // The write that completed the job returns its account: the job leaves the account's count.
    if (typeof applied === 'string') await this.release(applied, id);
    return applied !== 0;
  }

  async adjustChunk(
    id: string,
    chunk: number,
    adopt: (text: string, billed: string[]) => ChunkAdjust | null,
  ): Promise<number> {
    const keys = [this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), this.#key(id, `results:${chunk}`)] as const;
    // Read, change, write if unchanged: another adjusting run in between makes this one read again.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const [text, billed] = await this.#run(() => this.#redis.jobReadSettled(...keys));
      const change = adopt(text, billed ? billed.split(' ') : []);
      if (!change) return 0;
      const c = change.counts;
      const adjusted = await this.#run(() =>
        this.#redis.jobAdjust(
          ...keys,
          text,
          billed,
          change.text,
          change.billed.join(' '),
          c.succeeded,
          c.failed,
          c.cache_hits,
          c.credits,
        ),
      );
      if (adjusted === 1) return change.billed.length;
    }
    throw new Error(`job ${id} chunk ${chunk}: adjust kept losing to other writes`);
  }

  async finish(id: string, status: 'cancelled' | 'failed', nowIso: string): Promise<boolean> {
    const [changed, accountId] = await this.#run(() => this.#redis.jobFinish(this.#key(id, 'job'), status, nowIso));
    if (accountId) await this.release(accountId, id);
    return changed === 1;
  }

  async results(id: string, chunk: number): Promise<string> {
    const done = await this.#run(() => this.#redis.get(this.#key(id, `results:${chunk}`)));
    return done ?? (await this.#run(() => this.#redis.hget(this.#key(id, `chunk:${chunk}`), 'partial'))) ?? '';
  }

  async begunChunks(id: string): Promise<number[]> {
    const chunks = Number((await this.#run(() => this.#redis.hget(this.#key(id, 'job'), 'chunks'))) ?? 0);
    if (chunks === 0) return [];
    const multi = this.#redis.multi();
    for (let n = 0; n < chunks; n += 1) multi.hmget(this.#key(id, `chunk:${n}`), 'round_start', 'done');
    const rows = (await this.#run(() => multi.exec())) ?? [];
    return rows.flatMap(([, v], n) => {
      const [roundStart, done] = (v ?? []) as (string | null)[];
      return roundStart && done !== '1' ? [n] : [];
    });
  }

  async claimNotice(id: string): Promise<boolean> {
    return (await this.#run(() => this.#redis.set(this.#key(id, 'notice'), '1', 'PX', this.ttlMs, 'NX'))) === 'OK';
  }

  async releaseNotice(id: string): Promise<void> {
    await this.#run(() => this.#redis.del(this.#key(id, 'notice')));
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

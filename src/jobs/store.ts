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

export interface JobStore {
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
  adjustChunk(id: string, chunk: number, adopt: (text: string, billed: string[]) => ChunkAdjust | null): Promise<number>;
  /** The chunk's result lines: all of a settled chunk, or the lines settled so far. */
  results(id: string, chunk: number): Promise<string>;
  /** The chunks whose round has begun and not settled (a run under way, dead, or waiting for its retry). */
  begunChunks(id: string): Promise<number[]>;
  /** Claims the job's final notice (SET NX); false when it was already claimed. */
  claimNotice(id: string): Promise<boolean>;
  releaseNotice(id: string): Promise<void>;
  close(): Promise<void>;
}

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
  readonly #jobs = new Map<string, { job: JobRecord; items: unknown[][]; chunks: MemoryChunk[]; notice: boolean; expiresAt: number }>();
  readonly #byAccount = new Map<string, string[]>();

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

  async create(job: JobRecord, chunkItems: unknown[][]): Promise<void> {
    const chunks = chunkItems.map((): MemoryChunk => ({ round: 0, roundStart: null, partial: '', billed: [], held: 0, done: false, results: null }));
    this.#jobs.set(job.id, { job: { ...job }, items: chunkItems, chunks, notice: false, expiresAt: this.now() + this.ttlMs });
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
    if (c.done || (isFinal(j.job.status) && !(j.job.status === 'cancelled' && c.roundStart !== null))) return { state: 'skip', status: j.job.status, settled: c.done };
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
      if (j.job.chunks_done === j.job.chunks && !isFinal(j.job.status)) Object.assign(j.job, { status: 'completed', finished_at: w.now });
    } else {
      c.partial += w.text;
      c.round += 1;
      c.roundStart = null;
    }
    if (w.waitingUntil !== null) j.job.waiting_until = w.waitingUntil;
    if (j.job.waiting === 0) j.job.waiting_until = null;
    if (j.job.status === 'cancelled' && j.job.finished_at === null && !j.chunks.some((x) => !x.done && x.roundStart !== null)) j.job.finished_at = w.now;
    return true;
  }

  async adjustChunk(id: string, chunk: number, adopt: (text: string, billed: string[]) => ChunkAdjust | null): Promise<number> {
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

// A key of the job written after its creation lives as long as the job key has left (Redis' clock).
const LUA_JOB_TTL = `
local function expireWithJob(key)
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then redis.call('PEXPIRE', key, left) end
end
`;

// KEYS: job, chunk. ARGV: now ms, now ISO.
const LUA_START = `${LUA_JOB_TTL}
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
local done = redis.call('HGET', KEYS[2], 'done')
local rs = redis.call('HGET', KEYS[2], 'round_start')
-- A cancelled job's chunk that was running (its run died) is run again to settle what it began.
if done == '1' or status == 'completed' or status == 'failed' or (status == 'cancelled' and not rs) then
  return {'skip', status, done == '1' and '1' or '0'}
end
if status == 'queued' then redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[2]) end
local rerun = '1'
if not rs then
  rs = ARGV[1]
  rerun = '0'
  redis.call('HINCRBY', KEYS[1], 'running', 1)
  redis.call('HSET', KEYS[2], 'round_start', rs)
  expireWithJob(KEYS[2])
end
return {'run', redis.call('HGET', KEYS[2], 'round') or '0', rs, rerun, redis.call('HGET', KEYS[2], 'partial') or '', redis.call('HGET', KEYS[2], 'billed') or ''}
`;

// KEYS: job, chunk, results. ARGV: round, final, text, done, succeeded, failed, cache_hits, credits, held,
// waiting_until ('' none), billed (space-separated), now ISO.
const LUA_SETTLE = `${LUA_JOB_TTL}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[2], 'done') == '1' then return 0 end
if tonumber(redis.call('HGET', KEYS[2], 'round') or '0') ~= tonumber(ARGV[1]) then return 0 end
-- This round's run ends here (running counts chunks with a round begun and not settled).
local running = redis.call('HINCRBY', KEYS[1], 'running', -1)
local names = {'done', 'succeeded', 'failed', 'cache_hits', 'credits'}
for i, name in ipairs(names) do redis.call('HINCRBY', KEYS[1], name, ARGV[3 + i]) end
local held = tonumber(ARGV[9])
local waiting = redis.call('HINCRBY', KEYS[1], 'waiting', held - tonumber(redis.call('HGET', KEYS[2], 'held') or '0'))
redis.call('HSET', KEYS[2], 'held', held)
if ARGV[11] ~= '' then
  local b = redis.call('HGET', KEYS[2], 'billed')
  redis.call('HSET', KEYS[2], 'billed', b and (b .. ' ' .. ARGV[11]) or ARGV[11])
end
if ARGV[2] == '1' then
  redis.call('SET', KEYS[3], ARGV[3])
  expireWithJob(KEYS[3])
  redis.call('HSET', KEYS[2], 'done', '1')
  redis.call('HDEL', KEYS[2], 'partial')
  local n = redis.call('HINCRBY', KEYS[1], 'chunks_done', 1)
  local status = redis.call('HGET', KEYS[1], 'status')
  if n == tonumber(redis.call('HGET', KEYS[1], 'chunks')) and (status == 'queued' or status == 'running') then
    redis.call('HSET', KEYS[1], 'status', 'completed', 'finished_at', ARGV[12])
  end
else
  redis.call('HSET', KEYS[2], 'partial', (redis.call('HGET', KEYS[2], 'partial') or '') .. ARGV[3])
  redis.call('HINCRBY', KEYS[2], 'round', 1)
  redis.call('HDEL', KEYS[2], 'round_start')
end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'waiting_until', ARGV[10]) end
if waiting == 0 then redis.call('HSET', KEYS[1], 'waiting_until', '') end
if running <= 0 and redis.call('HGET', KEYS[1], 'status') == 'cancelled' and (redis.call('HGET', KEYS[1], 'finished_at') or '') == '' then
  redis.call('HSET', KEYS[1], 'finished_at', ARGV[12])
end
expireWithJob(KEYS[2])
return 1
`;

// KEYS: job, chunk, results. A settled chunk's lines (the results when done, else the partial lines) and billed keys.
const LUA_READ_SETTLED = `
local text
if redis.call('HGET', KEYS[2], 'done') == '1' then text = redis.call('GET', KEYS[3]) else text = redis.call('HGET', KEYS[2], 'partial') end
return {text or '', redis.call('HGET', KEYS[2], 'billed') or ''}
`;

// KEYS: job, chunk, results. ARGV: text read, billed read, new text, billed added, succeeded, failed,
// cache_hits, credits (deltas). Applied only if lines and billed keys are still what was read (else 0).
const LUA_ADJUST = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local done = redis.call('HGET', KEYS[2], 'done') == '1'
local text
if done then text = redis.call('GET', KEYS[3]) else text = redis.call('HGET', KEYS[2], 'partial') end
if (text or '') ~= ARGV[1] or (redis.call('HGET', KEYS[2], 'billed') or '') ~= ARGV[2] then return 0 end
if done then redis.call('SET', KEYS[3], ARGV[3], 'KEEPTTL') else redis.call('HSET', KEYS[2], 'partial', ARGV[3]) end
redis.call('HSET', KEYS[2], 'billed', ARGV[2] ~= '' and (ARGV[2] .. ' ' .. ARGV[4]) or ARGV[4])
local names = {'succeeded', 'failed', 'cache_hits', 'credits'}
for i, name in ipairs(names) do redis.call('HINCRBY', KEYS[1], name, ARGV[4 + i]) end
return 1
`;

// KEYS: the account's job index. ARGV: job id, ttl ms. Scored by Redis' clock at the insert; ids older than
// a job lives are dropped (their jobs are gone).
const LUA_INDEX = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

// KEYS: job. ARGV: status, now ISO. A job cancelled while chunks run gets finished_at when the last settles.
const LUA_FINISH = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'cancelled' and ARGV[1] == 'failed' and (redis.call('HGET', KEYS[1], 'finished_at') or '') == '' then
  redis.call('HSET', KEYS[1], 'finished_at', ARGV[2])
  return 1
end
if status ~= 'queued' and status ~= 'running' then return 0 end
local running = tonumber(redis.call('HGET', KEYS[1], 'running') or '0')
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', (ARGV[1] == 'cancelled' and running > 0) and '' or ARGV[2])
return 1
`;

type Scripted = RedisClient & {
  jobStart(k1: string, k2: string, ...args: (string | number)[]): Promise<string[]>;
  jobSettle(k1: string, k2: string, k3: string, ...args: (string | number)[]): Promise<number>;
  jobFinish(k1: string, ...args: string[]): Promise<number>;
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
    this.#redis = redis as Scripted;
  }

  #key(id: string, part: string): string {
    return `${this.prefix}{job:${id}}:${part}`;
  }

  #index(accountId: string): string {
    return `${this.prefix}{jobs:${accountId}}:index`;
  }

  async create(job: JobRecord, chunkItems: unknown[][]): Promise<void> {
    const { options, ...rest } = job;
    const fields: Record<string, string> = { options: JSON.stringify(options) };
    for (const [k, v] of Object.entries(rest)) fields[k] = v === null ? '' : String(v);
    const multi = this.#redis.multi().hset(this.#key(job.id, 'job'), fields).pexpire(this.#key(job.id, 'job'), this.ttlMs);
    chunkItems.forEach((items, n) => multi.set(this.#key(job.id, `items:${n}`), JSON.stringify(items), 'PX', this.ttlMs));
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
    const raw = await this.#run(() => this.#redis.zrevrangebyscore(index, max, '-inf', 'WITHSCORES', 'LIMIT', 0, limit + 1000));
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
    const r = await this.#run(() => this.#redis.jobStart(this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), now, nowIso));
    if (r[0] === 'gone') return { state: 'gone' };
    if (r[0] === 'skip') return { state: 'skip', status: r[1] as JobStatus, settled: r[2] === '1' };
    return { state: 'run', round: Number(r[1]), roundStart: Number(r[2]), rerun: r[3] === '1', partial: r[4] ?? '', billed: r[5] ? r[5].split(' ') : [] };
  }

  async settleChunk(id: string, chunk: number, w: ChunkWrite): Promise<boolean> {
    const c = w.counts;
    const applied = await this.#run(() => this.#redis.jobSettle(
      this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), this.#key(id, `results:${chunk}`),
      w.round, w.final ? '1' : '0', w.text, c.done, c.succeeded, c.failed, c.cache_hits, c.credits, w.held, w.waitingUntil ?? '', w.billed.join(' '), w.now,
    ));
    return applied === 1;
  }

  async adjustChunk(id: string, chunk: number, adopt: (text: string, billed: string[]) => ChunkAdjust | null): Promise<number> {
    const keys = [this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), this.#key(id, `results:${chunk}`)] as const;
    // Read, change, write if unchanged: another adjusting run in between makes this one read again.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const [text, billed] = await this.#run(() => this.#redis.jobReadSettled(...keys));
      const change = adopt(text, billed ? billed.split(' ') : []);
      if (!change) return 0;
      const c = change.counts;
      const adjusted = await this.#run(() => this.#redis.jobAdjust(...keys, text, billed, change.text, change.billed.join(' '), c.succeeded, c.failed, c.cache_hits, c.credits));
      if (adjusted === 1) return change.billed.length;
    }
    throw new Error(`job ${id} chunk ${chunk}: adjust kept losing to other writes`);
  }

  async finish(id: string, status: 'cancelled' | 'failed', nowIso: string): Promise<boolean> {
    return (await this.#run(() => this.#redis.jobFinish(this.#key(id, 'job'), status, nowIso))) === 1;
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

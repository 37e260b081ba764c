// The job store on Redis, shared by every instance and worker: every key of one job carries the job's hash
// tag (`P{job:<id>}:…`, one slot on a cluster), so a chunk's results and the job's counters are written by
// one script (jobs/lua/), atomically and once; the account's bounds are kept under the account's tag. The
// interface and the memory store are store.ts's.
import type { LookupOptions } from '../contract/index.js';
import { classifiedCall, type StoreCall } from '../store/fail-fast.js';
import { lua } from '../store/lua.js';
import type { RedisClient } from '../store/redis-connection.js';
import {
  isFinal,
  RECONCILE_MS,
  type ChunkAdjust,
  type ChunkStart,
  type ChunkWrite,
  type JobBounds,
  type JobRecord,
  type JobRefusal,
  type JobStore,
  type SettleAnswer,
} from './store.js';
import { JOB_TTL_MS, type JobStatus } from './types.js';

/** How long a counted job may be missing (admitted on another instance, not yet written) before it is released. */
const MISSING_GRACE_MS = 60_000;

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
  jobReadSettled(k1: string, k2: string, k3: string): Promise<[string, string, string]>;
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
  /**
   * Counted jobs seen without their job (ms first seen so). Another instance may have admitted one and not
   * yet written it: it is released only when still missing a grace later, never on first sight.
   */
  readonly #missingSince = new Map<string, number>();

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
    const now = Date.now();
    const over = ids.filter((id, i) => {
      if (statuses[i] !== null) return isFinal(statuses[i] as JobStatus);
      const since = this.#missingSince.get(id);
      if (since === undefined) this.#missingSince.set(id, now);
      return since !== undefined && now - since >= MISSING_GRACE_MS;
    });
    for (const id of over) {
      await this.release(accountId, id);
      this.#missingSince.delete(id);
    }
    if (this.#missingSince.size > 10_000) this.#missingSince.delete(this.#missingSince.keys().next().value!);
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
    if (r[0] === 'skip')
      return {
        state: 'skip',
        status: r[1] as JobStatus,
        settled: r[2] === '1',
        round: Number(r[3] ?? 0),
        billed: r[4] ? r[4].split(' ') : [],
        begun: r[5] === '1',
      };
    return {
      state: 'run',
      round: Number(r[1]),
      roundStart: Number(r[2]),
      rerun: r[3] === '1',
      partial: r[4] ?? '',
      billed: r[5] ? r[5].split(' ') : [],
      adjusts: Number(r[7] ?? 0),
      cancelled: r[6] === 'cancelled',
    };
  }

  async settleChunk(id: string, chunk: number, w: ChunkWrite): Promise<SettleAnswer> {
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
        w.adjustsSeen,
      ),
    );
    // The write that completed the job returns its account: the job leaves the account's count.
    if (typeof applied === 'string') await this.release(applied, id);
    return applied === 0 ? 'refused' : applied === -1 ? 'adjusted' : 'settled';
  }

  async readSettled(id: string, chunk: number): Promise<{ text: string; billed: string[]; adjusts: number }> {
    const [text, billed, adjusts] = await this.#run(() =>
      this.#redis.jobReadSettled(
        this.#key(id, 'job'),
        this.#key(id, `chunk:${chunk}`),
        this.#key(id, `results:${chunk}`),
      ),
    );
    return { text, billed: billed ? billed.split(' ') : [], adjusts: Number(adjusts) };
  }

  async adjustChunk(
    id: string,
    chunk: number,
    adopt: (text: string, billed: string[]) => ChunkAdjust | null,
  ): Promise<number> {
    const keys = [this.#key(id, 'job'), this.#key(id, `chunk:${chunk}`), this.#key(id, `results:${chunk}`)] as const;
    // Read, change, write if unchanged: another write in between makes this one read again. Nothing to
    // change is written too (the adjust is counted), on the lines and billed keys it was judged on.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const [text, billed] = await this.#run(() => this.#redis.jobReadSettled(...keys));
      const change = adopt(text, billed ? billed.split(' ') : []) ?? {
        text,
        billed: [],
        counts: { succeeded: 0, failed: 0, cache_hits: 0, credits: 0 },
      };
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
      // The job is gone (expired, deleted): nothing to adjust, as in memory.
      if (adjusted === -1) return 0;
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

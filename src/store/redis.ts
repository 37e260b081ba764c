// The shared store on Redis: accounts, the 24 h cache, memos, usage and the single-flight lock,
// for any number of service instances at once.
//
// Exactness: every check-and-charge is ONE Lua script (reserve, commit, release), so it runs
// atomically on the server whatever the number of callers. Reservation expiry uses the server's
// clock (`TIME` inside the scripts), so instances with skewed clocks agree on what is expired.
//
// Scripts declare every key they touch in KEYS (the Redis rule, and what Redis Cluster needs), and
// all the keys of one script share one hash slot: `{bill}` for billing, `{acct}` for accounts.
// Where a script needs a key the caller does not know (the usage bucket and budget counter of a
// reservation, an account's previous key index entry), the caller reads it first and the script
// checks it is still the right one (-1: read again). Records never change once written, so that
// retry does not happen in practice.
//
// Redis Cluster (REDIS_CLUSTER_NODES): the same store on an ioredis Cluster. Keys used together share
// a hash tag: a home's entry and raw record `{<cacheKey>}` (one MULTI, one MGET; on a cluster only, so a
// single server keeps the names it always had and an upgrade keeps its cache), billing `{bill}`,
// accounts `{acct}`. A read over many homes or aliases (one MGET on a single server, the hot path) is
// cut into one MGET per hash slot on a cluster, sent at once; lease renewals, one pipeline on a single
// server, are sent as separate calls at once (a cluster pipeline must stay on one node). Nothing
// scans: the sweep, listAccounts and the ledger read keys of one slot. Pub/sub (account changes)
// reaches every node of a cluster. The fail-fast rules below hold for the cluster client too.
//
// Outage: the rule of every Redis call a request waits on (fail-fast.ts): the client fails fast (no
// offline queue, no retries of a command, the connection retried forever in the background, every
// ≤ 1 s), every call is bounded by the command timeout (judged only while this process was free to hear
// an answer: a busy one sheds the call as 503 `upstream_busy`, reason `overloaded`), and every failure of
// any method surfaces as LookupError('store_unavailable'), whose retry-after (30 s) comes from the
// contract's error table. The same instance recovers by itself once Redis is back.
//
// Key layout (P = the configured prefix, default `pl:`):
//   P{acct}:account:<id>        JSON of the Account
//   P{acct}:key:<keyHash>       → account id (the key index)
//   P{acct}:ids                 SET of account ids
//   P{acct}:epoch               a random id set once: when it is gone or changed, Redis lost its data (checkEpoch)
//   P{acct}:changes             pub/sub channel: an account id each time that account is written
//   P{bill}:usage:<acct>:<per>  HASH used, reserved, overage_used, overage_reserved (held as overage)
//   P{bill}:budget:<scope>:<d>  counter of live lookups held + committed that UTC day (expires 48 h)
//   P{bill}:res:<reservation>   HASH account, period, kind (as held), included, day, scope, bucket, budget, expires_at
//   P{bill}:res-by-expiry       ZSET reservation id → expires_at (ms, server time)
//   P{bill}:ledger              STREAM of charges: reservation, account, cache_key, request, kind, at; trimmed
//                               to LEDGER_RETENTION_DAYS (MINID, about) by each charge
//   P{bill}:charges:<request>   HASH reservation → the stream id of its charge, the request's charges (PX 48 h):
//                               a void or a job chunk's re-run finds them at once, with no scan of the ledger
//   Pentry4:<cacheKey>          the CacheEntry as entry-format.ts keeps it (version 4), PX keep (its lifetime + STALE_TTL_MS)
//   Praw4:<cacheKey>            its raw record's JSON, brotli-compressed behind the write's id, PX ttl (written with it);
//                               on a cluster `Pentry4:{<cacheKey>}`, `Praw4:{<cacheKey>}`: the tag puts both in one slot
//                               (older code's `Pcache:<cacheKey>` is another name: never read)
//   Palias:<aliasKey>           target cache key, PX ttl
//   Pmemo:<key>                 JSON ErrorBody, PX ttl
//   Plock:<key>                 single-flight token, SET NX PX
//   Pidem:<slot>                HASH body_hash, and token (claimed, PX lease) or answer (packed, PX 24 h);
//                               slot = sha256(account, idempotency key): per account, any characters
import { randomUUID } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { LookupError } from '../contract/errors.js';
import type { ErrorBody } from '../contract/index.js';
import { decodeEntry, encodeEntry, ENTRY_FORMAT, readWithRaw } from './entry-format.js';
import { boundStoreCall, failFastOptions, storeUnavailable as unavailable } from './fail-fast.js';
import { idempotencySlot, packAnswer, unpackAnswer } from './idempotency-store.js';
import { lua } from './lua.js';
import { createRedisClient, keySlot, type RedisClient, type RedisTarget } from './redis-connection.js';
import type {
  Account, CacheEntry, ClaimRef, ClaimResult, EntryWithRaw, LedgerEntry, LockRef, ReserveRequest, ReserveResult, StoredAnswer, Store,
  UsageCounters, VoidRef,
} from './types.js';
import { DEFAULT_LEDGER_RETENTION_MS } from './types.js';

export interface RedisStoreOptions {
  /** Prefix of every key (default `pl:`). Must not contain `{` or `}` (they would change the hash slot). */
  prefix?: string;
  /**
   * A command that has not answered within this time, while the event loop was mostly idle, fails
   * with store_unavailable (default 1000 ms). Windows the loop spent busy do not count (fail-fast.ts).
   */
  commandTimeoutMs?: number;
  /** How long a charge stays in the ledger stream (LEDGER_RETENTION_DAYS). */
  ledgerRetentionMs?: number;
  /** TCP connect timeout (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts (default 1000 ms). */
  maxReconnectDelayMs?: number;
  /** How long `connect` waits for the first connection before returning anyway (default 1500 ms). */
  startupWaitMs?: number;
  /** Connection errors (the client keeps reconnecting by itself); default: ignored. */
  onError?: (error: Error) => void;
}

/** A daily budget counter outlives its day by a day, then expires. */
const BUDGET_KEY_TTL_MS = 48 * 3600_000;
/**
 * How long a request's charges are found by its id (chargesOf, voidReservation): a lost answer is taken back
 * within the request's life, a job chunk's re-run comes within its lock's time.
 */
const CHARGES_TTL_MS = 48 * 3600_000;
const SWEEP_BATCH = 500;
/** Reads of a record's keys before a script that checks them; only a record replaced meanwhile needs another. */
const KEY_READ_ATTEMPTS = 3;
/** Failed unlocks kept for a retry on reconnect (a lock's ttl is shorter than this age). */
const MAX_PENDING_UNLOCKS = 10_000;
const PENDING_UNLOCK_MAX_AGE_MS = 10 * 60_000;
/** How often a cluster's pending unlocks are sent again. */
const UNLOCK_RETRY_MS = 1000;
const LEDGER_PAGE = 1000;

// ---------------------------------------------------------------------------------------------
// Lua. All integers cross as strings; replies are arrays of strings/integers. Each script's KEYS, ARGV
// and reply are stated in its file's header (src/store/lua/).

const LUA_RESERVE = lua(new URL('./lua/reserve.lua', import.meta.url));
const LUA_COMMIT = lua(new URL('./lua/commit.lua', import.meta.url));
const LUA_RELEASE = lua(new URL('./lua/release.lua', import.meta.url));
const LUA_RELEASE_EXPIRED = lua(new URL('./lua/release-expired.lua', import.meta.url));
const LUA_EXPIRED = lua(new URL('./lua/expired.lua', import.meta.url));
const LUA_PUT_ACCOUNT = lua(new URL('./lua/put-account.lua', import.meta.url));
const LUA_UNLOCK = lua(new URL('./lua/unlock.lua', import.meta.url));
const LUA_RENEW_LOCK = lua(new URL('./lua/renew-lock.lua', import.meta.url));
const LUA_RENEW_RESERVATION = lua(new URL('./lua/renew-reservation.lua', import.meta.url));
const LUA_VOID_CHARGE = lua(new URL('./lua/void-charge.lua', import.meta.url));
const LUA_IDEM_CLAIM = lua(new URL('./lua/idem-claim.lua', import.meta.url));
const LUA_IDEM_COMPLETE = lua(new URL('./lua/idem-complete.lua', import.meta.url));
const LUA_IDEM_RELEASE = lua(new URL('./lua/idem-release.lua', import.meta.url));
const LUA_IDEM_RENEW = lua(new URL('./lua/idem-renew.lua', import.meta.url));

type Reply = string | number | null;

interface ScriptCommands {
  plReserve(...args: string[]): Promise<Reply[]>;
  plCommit(...args: string[]): Promise<number>;
  plRelease(...args: string[]): Promise<number>;
  plReleaseExpired(...args: string[]): Promise<number>;
  plExpired(...args: string[]): Promise<string[]>;
  plPutAccount(...args: string[]): Promise<number>;
  plUnlock(...args: string[]): Promise<number>;
  plVoidCharge(...args: string[]): Promise<number>;
  plIdemClaimBuffer(...args: (string | Buffer)[]): Promise<Buffer[]>;
  plIdemComplete(...args: (string | Buffer)[]): Promise<number>;
  plIdemRelease(...args: string[]): Promise<number>;
}

/** Lease renewals go in one pipeline per beat. */
interface PipelineScripts {
  plRenewReservation(...args: string[]): PipelineScripts;
  plRenewLock(...args: string[]): PipelineScripts;
  plIdemRenew(...args: string[]): PipelineScripts;
  exec(): Promise<[Error | null, unknown][] | null>;
}

// ---------------------------------------------------------------------------------------------

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  private readonly k: ReturnType<typeof redisKeys>;
  private readonly scripts: ScriptCommands;
  /** Unlocks that failed (Redis unreachable): retried on reconnect, so no lock outlives its holder's intent. */
  private readonly pendingUnlocks = new Map<string, { key: string; token: string; since: number }>();
  /** On a cluster, the timer retrying pendingUnlocks while there are any. */
  private unlockRetry: NodeJS.Timeout | undefined;
  /** The connections of watchAccounts (a subscribed connection can send nothing else). */
  private readonly watchers = new Set<RedisClient>();
  /** The marker of the data this instance has been using (null until first contact); see checkEpoch. */
  private epoch: string | null = null;
  private readonly resetHandlers: Array<() => Promise<void>> = [];
  private recovering: Promise<void> | null = null;

  private constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly timeoutMs: number,
    private readonly ledgerRetentionMs: number,
  ) {
    this.k = redisKeys(prefix, redis.isCluster);
    redis.defineCommand('plReserve', { numberOfKeys: 4, lua: LUA_RESERVE });
    redis.defineCommand('plCommit', { numberOfKeys: 5, lua: LUA_COMMIT });
    redis.defineCommand('plRelease', { numberOfKeys: 4, lua: LUA_RELEASE });
    redis.defineCommand('plReleaseExpired', { numberOfKeys: 4, lua: LUA_RELEASE_EXPIRED });
    redis.defineCommand('plExpired', { numberOfKeys: 1, lua: LUA_EXPIRED });
    redis.defineCommand('plPutAccount', { numberOfKeys: 4, lua: LUA_PUT_ACCOUNT });
    redis.defineCommand('plUnlock', { numberOfKeys: 1, lua: LUA_UNLOCK });
    redis.defineCommand('plRenewLock', { numberOfKeys: 1, lua: LUA_RENEW_LOCK });
    redis.defineCommand('plRenewReservation', { numberOfKeys: 2, lua: LUA_RENEW_RESERVATION });
    redis.defineCommand('plVoidCharge', { numberOfKeys: 4, lua: LUA_VOID_CHARGE });
    redis.defineCommand('plIdemClaim', { numberOfKeys: 1, lua: LUA_IDEM_CLAIM });
    redis.defineCommand('plIdemComplete', { numberOfKeys: 1, lua: LUA_IDEM_COMPLETE });
    redis.defineCommand('plIdemRelease', { numberOfKeys: 1, lua: LUA_IDEM_RELEASE });
    redis.defineCommand('plIdemRenew', { numberOfKeys: 1, lua: LUA_IDEM_RENEW });
    this.scripts = redis as unknown as ScriptCommands;
    redis.on('ready', () => {
      this.retryUnlocks();
      // A reconnection may be to a Redis that restarted empty: found out (and re-seeded) at once.
      this.checkEpoch().catch(() => undefined);
    });
  }

  /**
   * Connects to Redis. Never hangs and never throws because Redis is down: after at most
   * `startupWaitMs` it returns a store whose calls fail fast with store_unavailable until the
   * background reconnection succeeds. `target`: a server's URL, or the configuration's server or cluster.
   */
  static async connect(target: string | RedisTarget, opts: RedisStoreOptions = {}): Promise<RedisStore> {
    const prefix = opts.prefix ?? 'pl:';
    if (/[{}]/.test(prefix)) throw new Error(`REDIS_PREFIX must not contain { or } (got "${prefix}")`);
    const options: RedisOptions = failFastOptions({
      ...(opts.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: opts.connectTimeoutMs }),
      ...(opts.maxReconnectDelayMs === undefined ? {} : { maxReconnectDelayMs: opts.maxReconnectDelayMs }),
    });
    const redis = createRedisClient(typeof target === 'string' ? { redisUrl: target, redisClusterNodes: null } : target, options);
    redis.on('error', (e: Error) => opts.onError?.(e));
    const store = new RedisStore(redis, prefix, opts.commandTimeoutMs ?? 1000, opts.ledgerRetentionMs ?? DEFAULT_LEDGER_RETENTION_MS);
    // The first attempt may fail (Redis down): the retry strategy keeps trying in the background.
    const first = redis.connect().catch(() => undefined);
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, opts.startupWaitMs ?? 1500).unref())]);
    return store;
  }

  /** True when commands can be sent now (for a readiness probe). */
  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  async ping(): Promise<void> {
    if (this.redis.status !== 'ready') throw unavailable(new Error(`redis status ${this.redis.status}`));
    await this.run(() => this.redis.ping());
    await this.checkEpoch();
  }

  onReset(handler: () => Promise<void>): void {
    this.resetHandlers.push(handler);
  }

  /**
   * Checks that Redis still holds the data this instance has been using: the epoch marker is the one
   * it saw before. If not (Redis restarted empty, or was flushed), the reset handlers re-seed the
   * accounts and a new epoch is adopted; until that succeeds this throws store_unavailable with
   * `details.reason: store_reset`. Returns true when it found (and recovered from) a reset now.
   */
  private async checkEpoch(): Promise<boolean> {
    const current = await this.run(() => this.redis.get(this.k.epoch));
    if (this.epoch === null) {
      // First contact: whatever Redis holds is what this instance starts from.
      this.epoch = current ?? (await this.adoptEpoch());
      return false;
    }
    if (current === this.epoch) return false;
    this.recovering ??= this.recoverFromReset().finally(() => {
      this.recovering = null;
    });
    await this.recovering;
    return true;
  }

  private async recoverFromReset(): Promise<void> {
    try {
      for (const handler of this.resetHandlers) await handler();
      this.epoch = await this.adoptEpoch();
    } catch (cause) {
      throw new LookupError('store_unavailable', {
        message: 'The store lost its data (restarted empty) and the accounts could not be seeded again yet. Retry in 30 seconds.',
        details: { reason: 'store_reset' },
        cause,
      });
    }
  }

  /** The epoch every instance agrees on: the first one set wins. */
  private async adoptEpoch(): Promise<string> {
    await this.run(() => this.redis.set(this.k.epoch, randomUUID(), 'NX'));
    return (await this.run(() => this.redis.get(this.k.epoch))) ?? '';
  }

  async close(): Promise<void> {
    clearInterval(this.unlockRetry);
    for (const w of this.watchers) w.disconnect(false);
    this.watchers.clear();
    if (this.redis.status === 'end') return;
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // fall through: drop the connection
      }
    }
    this.redis.disconnect(false);
  }

  // --- accounts ---------------------------------------------------------------------------

  /** Two reads (index, then account); an account whose key changed in between is not the caller's. */
  async getAccountByKeyHash(keyHash: string): Promise<Account | null> {
    let id = await this.run(() => this.redis.get(this.k.keyIndex(keyHash)));
    // An unknown key may be one that a store reset lost: then it is looked up again once re-seeded.
    if (id === null && (await this.checkEpoch())) id = await this.run(() => this.redis.get(this.k.keyIndex(keyHash)));
    if (id === null) return null;
    const account = await this.getAccount(id);
    return account && account.keyHash === keyHash ? account : null;
  }

  async getAccount(id: string): Promise<Account | null> {
    const json = await this.run(() => this.redis.get(this.k.account(id)));
    return json ? parseAccount(json) : null;
  }

  async putAccount(account: Account): Promise<void> {
    const key = this.k.account(account.id);
    const index = this.k.keyIndex(account.keyHash);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const prev = await this.run(() => this.redis.get(key));
      const prevHash = prev === null ? null : parseJson<Partial<Account>>(prev)?.keyHash;
      const prevIndex = typeof prevHash === 'string' ? this.k.keyIndex(prevHash) : index;
      const n = await this.run(() =>
        this.scripts.plPutAccount(key, index, this.k.accountIds, prevIndex, JSON.stringify(account), account.id, prev ?? '', this.k.accountChanges),
      );
      if (Number(n) === 1) return;
    }
    throw unavailable(new Error(`account ${account.id} kept changing while being written`));
  }

  /**
   * A connection of its own, subscribed to the account-change channel. Each time it is (re)connected
   * it calls onChange too: notices sent while it was away are lost.
   */
  watchAccounts(onChange: () => void): () => void {
    const sub = this.redis.duplicate();
    this.watchers.add(sub);
    sub.on('error', () => undefined); // it reconnects by itself; onChange on 'ready' covers the gap
    sub.on('message', () => onChange());
    sub.on('ready', () => {
      sub.subscribe(this.k.accountChanges).then(() => onChange(), () => undefined);
    });
    sub.connect().catch(() => undefined);
    return () => {
      this.watchers.delete(sub);
      sub.disconnect(false);
    };
  }

  async listAccounts(): Promise<Account[]> {
    const ids = await this.run(() => this.redis.smembers(this.k.accountIds));
    if (ids.length === 0) return [];
    ids.sort();
    const jsons = await this.run(() => this.redis.mget(ids.map((id) => this.k.account(id))));
    return jsons.filter((j): j is string => j !== null).map(parseAccount);
  }

  // --- cache, aliases, memo ------------------------------------------------------------------

  async getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]> {
    if (keys.length === 0) return [];
    const values = await this.mget(keys.map((key) => this.k.entry(key)));
    return values.map(decodeEntry);
  }

  /** The entry and its raw record in one transaction; the entry kept `keepMs`, its raw record `ttlMs`. */
  async putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number, keepMs = ttlMs): Promise<void> {
    const { text, raw } = await encodeEntry(entry, rawJson);
    const ttl = ms(ttlMs);
    await this.run(() => {
      const tx = this.redis.multi().set(this.k.entry(key), text, 'PX', ms(Math.max(ttlMs, keepMs)));
      return (raw === null ? tx.del(this.k.raw(key)) : tx.set(this.k.raw(key), raw, 'PX', ttl)).exec().then(failedStep);
    });
  }

  /** Each entry and its raw record in one MGET, so both are of one moment. */
  async getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]> {
    if (keys.length === 0) return [];
    const values = await this.mget(keys.flatMap((key) => [this.k.entry(key), this.k.raw(key)]), true);
    return Promise.all(keys.map((_, i) => readWithRaw(values[2 * i]?.toString('utf8') ?? null, values[2 * i + 1] ?? null)));
  }

  async getAliases(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    return this.mget(keys.map((key) => this.k.alias(key)));
  }

  /**
   * The values of `keys`, in order: one MGET on a single server; on a cluster one MGET per hash slot,
   * all sent at once (a cluster refuses an MGET across slots). Buffers when `buffers`.
   */
  private mget(keys: string[]): Promise<(string | null)[]>;
  private mget(keys: string[], buffers: true): Promise<(Buffer | null)[]>;
  private mget(keys: string[], buffers = false): Promise<(string | Buffer | null)[]> {
    const one = (ks: string[]) => this.run<(string | Buffer | null)[]>(() => (buffers ? this.redis.mgetBuffer(ks) : this.redis.mget(ks)));
    return this.redis.isCluster ? this.mgetBySlot(keys, one) : one(keys);
  }

  private async mgetBySlot(keys: string[], one: (keys: string[]) => Promise<(string | Buffer | null)[]>): Promise<(string | Buffer | null)[]> {
    const bySlot = new Map<number, number[]>();
    keys.forEach((key, i) => {
      const slot = keySlot(key);
      const at = bySlot.get(slot);
      if (at) at.push(i);
      else bySlot.set(slot, [i]);
    });
    const out = new Array<string | Buffer | null>(keys.length);
    await Promise.all([...bySlot.values()].map(async (at) => {
      const values = await one(at.map((i) => keys[i]!));
      at.forEach((i, j) => (out[i] = values[j] ?? null));
    }));
    return out;
  }

  async putAlias(key: string, target: string, ttlMs: number): Promise<void> {
    await this.run(() => this.redis.set(this.k.alias(key), target, 'PX', ms(ttlMs)));
  }

  async getMemo(key: string): Promise<ErrorBody | null> {
    return parseJson<ErrorBody>(await this.run(() => this.redis.get(this.k.memo(key))));
  }

  async putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void> {
    await this.run(() => this.redis.set(this.k.memo(key), JSON.stringify(body), 'PX', ms(ttlMs)));
  }

  // --- billing ----------------------------------------------------------------------------------

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const reply = await this.run(() =>
      this.scripts.plReserve(
        this.k.reservation(req.reservationId),
        this.k.usage(req.accountId, req.period),
        this.k.budget(req.budget.scope, req.budget.day),
        this.k.reservationsByExpiry,
        req.reservationId,
        req.accountId,
        req.period,
        int(req.included),
        req.overage ? '1' : '0',
        req.overage ? int(req.overage.rateMicroUsd) : '0',
        req.overage && req.overage.spendLimitMicroUsd !== null ? int(req.overage.spendLimitMicroUsd) : '-1',
        req.budget.day,
        req.budget.scope,
        req.budget.cap === null ? '-1' : int(req.budget.cap),
        ms(req.ttlMs),
        String(BUDGET_KEY_TTL_MS),
      ),
    );
    const [ok, what, ...figures] = reply;
    if (Number(ok) === 1) return { ok: true, kind: what === 'overage' ? 'overage' : 'included' };
    const [a, b, c] = figures.map((n) => Number(n ?? 0));
    switch (what) {
      case 'credits_exhausted':
        return { ok: false, reason: 'credits_exhausted', inFlight: a ?? 0 };
      case 'spend_limit_reached':
        return { ok: false, reason: 'spend_limit_reached', overageUsed: a ?? 0, overageInFlight: b ?? 0, inFlight: c ?? 0 };
      case 'live_lookups_capped':
        return { ok: false, reason: 'live_lookups_capped' };
      default:
        throw unavailable(new Error(`unexpected reserve reply ${JSON.stringify(reply)}`));
    }
  }

  async commit(entry: LedgerEntry): Promise<boolean> {
    const rec = this.k.reservation(entry.reservationId);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const bucket = await this.run(() => this.redis.hget(rec, 'bucket'));
      if (bucket === null) return false;
      const n = Number(await this.run(() =>
        this.scripts.plCommit(
          rec, this.k.reservationsByExpiry, this.k.ledger, bucket, this.k.charges(entry.requestId),
          entry.reservationId, entry.cacheKey, entry.requestId, entry.at, String(CHARGES_TTL_MS), String(this.ledgerRetentionMs),
        ),
      ));
      if (n !== -1) return n === 1;
    }
    throw unavailable(new Error(`reservation ${entry.reservationId} kept changing while being committed`));
  }

  release(reservationId: string): Promise<boolean> {
    return this.releaseBy(this.scripts.plRelease.bind(this.scripts), reservationId);
  }

  private async releaseBy(script: (...args: string[]) => Promise<number>, reservationId: string): Promise<boolean> {
    const rec = this.k.reservation(reservationId);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const [bucket, budget] = await this.run(() => this.redis.hmget(rec, 'bucket', 'budget'));
      const n = Number(await this.run(() => script(rec, this.k.reservationsByExpiry, bucket ?? rec, budget ?? rec, reservationId)));
      if (n !== -1) return n === 1;
    }
    throw unavailable(new Error(`reservation ${reservationId} kept changing while being released`));
  }

  /** Releases the reservations past their expiry (server clock), in batches; one renewed meanwhile stays held. */
  async sweep(): Promise<number> {
    const releaseExpired = this.scripts.plReleaseExpired.bind(this.scripts);
    let total = 0;
    for (;;) {
      const ids = await this.run(() => this.scripts.plExpired(this.k.reservationsByExpiry, String(SWEEP_BATCH)));
      for (const id of ids) if (await this.releaseBy(releaseExpired, id)) total++;
      if (ids.length < SWEEP_BATCH) return total;
    }
  }

  async voidReservation(ref: VoidRef): Promise<'released' | 'voided' | 'none'> {
    if (await this.release(ref.reservationId)) return 'released';
    const n = await this.run(() =>
      this.scripts.plVoidCharge(this.k.ledger, this.k.usage(ref.accountId, ref.period), this.k.budget(ref.scope, ref.day), this.k.charges(ref.requestId), ref.reservationId),
    );
    return Number(n) === 1 ? 'voided' : 'none';
  }

  async renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const replies = await this.runRenewal(() => this.renewEach(ids, (p, id) => p.plRenewReservation(this.k.reservation(id), this.k.reservationsByExpiry, id, ms(ttlMs))));
    return ids.filter((_, i) => Number(replies?.[i]?.[1]) !== 1);
  }

  async renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]> {
    if (locks.length === 0) return [];
    const replies = await this.runRenewal(() => this.renewEach(locks, (p, l) => p.plRenewLock(this.k.lock(l.key), l.token, ms(ttlMs))));
    return locks.filter((_, i) => Number(replies?.[i]?.[1]) !== 1).map((l) => l.key);
  }

  /**
   * One renewal script per item, as [error, reply] pairs in order: one pipeline on a single server; on a
   * cluster each its own call, all sent at once (a cluster pipeline must not span nodes).
   */
  private renewEach<T>(items: readonly T[], add: (p: PipelineScripts, item: T) => void): Promise<[Error | null, unknown][] | null> {
    if (!this.redis.isCluster) {
      const p = this.redis.pipeline() as unknown as PipelineScripts;
      for (const item of items) add(p, item);
      return p.exec();
    }
    return Promise.all(items.map((item) => {
      const single = this.redis.pipeline() as unknown as PipelineScripts;
      add(single, item);
      return single.exec().then((r) => r?.[0] ?? [new Error('no reply'), null] as [Error | null, unknown], (e: Error) => [e, null] as [Error | null, unknown]);
    }));
  }

  private runRenewal<T>(call: () => Promise<T>): Promise<T> {
    try {
      return renewalBound(call(), this.timeoutMs);
    } catch (e) {
      return Promise.reject(unavailable(e));
    }
  }

  async usage(accountId: string, period: string): Promise<UsageCounters> {
    const [used, reserved, overageUsed] = await this.run(() =>
      this.redis.hmget(this.k.usage(accountId, period), 'used', 'reserved', 'overage_used'),
    );
    return { used: Number(used ?? 0), reserved: Number(reserved ?? 0), overageUsed: Number(overageUsed ?? 0) };
  }

  async budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number> {
    return Number((await this.run(() => this.redis.get(this.k.budget(scope, day)))) ?? 0);
  }

  async chargesOf(requestId: string): Promise<LedgerEntry[]> {
    const ids = Object.values(await this.run(() => this.redis.hgetall(this.k.charges(requestId))));
    if (ids.length === 0) return [];
    // One slot ({bill}): one pipeline, also on a cluster.
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.xrange(this.k.ledger, id, id);
    const replies = (await this.run(() => pipeline.exec())) ?? [];
    return replies.flatMap(([err, page]) => {
      if (err) throw unavailable(err);
      return (page as [string, string[]][]).map(([, fields]) => ledgerEntry(fields));
    });
  }

  async ledger(accountId?: string): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let start = '-';
    for (;;) {
      const page = await this.run(() => this.redis.xrange(this.k.ledger, start, '+', 'COUNT', LEDGER_PAGE));
      for (const [, fields] of page) {
        const e = ledgerEntry(fields);
        if (accountId === undefined || e.accountId === accountId) out.push(e);
      }
      if (page.length < LEDGER_PAGE) return out;
      start = `(${page[page.length - 1]![0]}`;
    }
  }

  // --- idempotency keys ---------------------------------------------------------------------------

  async claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    const key = this.k.idempotency(ref.accountId, ref.key);
    let damaged: Buffer | string = '';
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const startedAt = ref.startedAt === undefined ? '' : String(Math.floor(ref.startedAt));
      const [state, hash, packed] = await this.run(() => this.scripts.plIdemClaimBuffer(key, ref.token, bodyHash, ms(leaseMs), damaged, startedAt));
      const what = state!.toString();
      if (what === 'claimed') return hash && hash.length > 0 ? { state: 'claimed', since: Number(hash.toString()) } : { state: 'claimed' };
      if (what === 'running') return { state: 'running', bodyHash: hash!.toString() };
      const answer = await unpackAnswer(packed!);
      if (answer) return { state: 'done', bodyHash: hash!.toString(), answer };
      // A damaged answer reads as absent: dropped (if still the one read) and the key claimed.
      damaged = packed!;
    }
    throw unavailable(new Error(`idempotency key of ${ref.accountId} kept changing while being claimed`));
  }

  async completeIdempotency(ref: ClaimRef, answer: StoredAnswer, ttlMs: number): Promise<boolean> {
    const packed = await packAnswer(answer);
    const n = await this.run(() => this.scripts.plIdemComplete(this.k.idempotency(ref.accountId, ref.key), ref.token, packed, ms(ttlMs)));
    return Number(n) === 1;
  }

  async releaseIdempotency(ref: ClaimRef, keepMs?: number): Promise<void> {
    await this.run(() => this.scripts.plIdemRelease(this.k.idempotency(ref.accountId, ref.key), ref.token, keepMs ? ms(keepMs) : '0'));
  }

  async renewIdempotency(refs: readonly ClaimRef[], leaseMs: number): Promise<string[]> {
    if (refs.length === 0) return [];
    const replies = await this.runRenewal(() => this.renewEach(refs, (p, r) => p.plIdemRenew(this.k.idempotency(r.accountId, r.key), r.token, ms(leaseMs))));
    return refs.filter((_, i) => Number(replies?.[i]?.[1]) !== 1).map((r) => r.token);
  }

  // --- single flight ----------------------------------------------------------------------------

  async tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    const lockKey = this.k.lock(key);
    try {
      return (await this.run(() => this.redis.set(lockKey, token, 'PX', ms(ttlMs), 'NX'))) === 'OK';
    } catch (e) {
      // The SET may have run although its answer was lost: the caller does not hold the lock, so
      // make sure nobody does under this token once Redis is back.
      this.rememberUnlock(lockKey, token);
      throw e;
    }
  }

  /**
   * Compare-and-delete. If Redis cannot be reached, the unlock is also remembered and retried as soon
   * as the connection is back (so is a tryLock whose answer was lost): otherwise a lock whose holder
   * lost Redis mid-lookup (and which an append-only Redis keeps across a restart) would block that
   * home for its whole ttl.
   */
  async unlock(key: string, token: string): Promise<void> {
    const lockKey = this.k.lock(key);
    try {
      await this.run(() => this.scripts.plUnlock(lockKey, token));
    } catch (e) {
      this.rememberUnlock(lockKey, token);
      throw e;
    }
  }

  private rememberUnlock(lockKey: string, token: string): void {
    if (this.pendingUnlocks.size < MAX_PENDING_UNLOCKS) {
      this.pendingUnlocks.set(`${lockKey}\u0000${token}`, { key: lockKey, token, since: Date.now() });
    }
    // A cluster is 'ready' only once: a master back from a crash says nothing, so retry until they are gone.
    if (this.redis.isCluster) this.unlockRetry ??= setInterval(() => this.retryUnlocks(), UNLOCK_RETRY_MS).unref();
  }

  /** Number of unlocks waiting for Redis to come back. */
  get pendingUnlockCount(): number {
    return this.pendingUnlocks.size;
  }

  private retryUnlocks(): void {
    if (this.pendingUnlocks.size === 0) {
      clearInterval(this.unlockRetry);
      this.unlockRetry = undefined;
      return;
    }
    const cutoff = Date.now() - PENDING_UNLOCK_MAX_AGE_MS;
    for (const [id, u] of this.pendingUnlocks) {
      if (u.since < cutoff) {
        this.pendingUnlocks.delete(id);
        continue;
      }
      this.scripts.plUnlock(u.key, u.token).then(
        () => this.pendingUnlocks.delete(id),
        () => undefined, // still unreachable: the next 'ready' retries
      );
    }
  }

  /**
   * Runs one Redis call; any failure (down, no answer, reply error) becomes store_unavailable, and
   * a process too busy to read the answer sheds the call as upstream_busy, reason overloaded (the rule of fail-fast.ts).
   */
  private run<T>(call: () => Promise<T>): Promise<T> {
    return boundStoreCall(call, this.timeoutMs);
  }
}

/**
 * Runs a lease renewal, bounded by the command timeout alone: never held for busy windows the way
 * `run` holds other calls, since a renewal waiting there outlives the lease it renews. One that times
 * out fails (store_unavailable) and the next beat sends another (config.ts: a lease outlasts both).
 */
function renewalBound<T>(pending: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(new Error(`renewal not answered within ${timeoutMs} ms`))), timeoutMs);
  });
  return Promise.race([pending.catch((e: unknown) => Promise.reject(unavailable(e))), late]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------

/** The store's key names under prefix `p` (see the layout at the top); exported for tests that reach behind the store. */
export function redisKeys(p: string, cluster = false) {
  // Tagged on a cluster only: renaming a single server's entries would make every cached home a billed miss once.
  const home = cluster ? (key: string) => `{${key}}` : (key: string) => key;
  return {
    account: (id: string) => `${p}{acct}:account:${id}`,
    keyIndex: (keyHash: string) => `${p}{acct}:key:${keyHash}`,
    accountIds: `${p}{acct}:ids`,
    accountChanges: `${p}{acct}:changes`,
    epoch: `${p}{acct}:epoch`,
    usage: (accountId: string, period: string) => `${p}{bill}:usage:${accountId}:${period}`,
    budget: (scope: string, day: string) => `${p}{bill}:budget:${scope}:${day}`,
    reservation: (id: string) => `${p}{bill}:res:${id}`,
    reservationsByExpiry: `${p}{bill}:res-by-expiry`,
    ledger: `${p}{bill}:ledger`,
    charges: (requestId: string) => `${p}{bill}:charges:${requestId}`,
    entry: (key: string) => `${p}entry${ENTRY_FORMAT}:${home(key)}`,
    raw: (key: string) => `${p}raw${ENTRY_FORMAT}:${home(key)}`,
    alias: (key: string) => `${p}alias:${key}`,
    memo: (key: string) => `${p}memo:${key}`,
    lock: (key: string) => `${p}lock:${key}`,
    idempotency: (accountId: string, key: string) => `${p}idem:${idempotencySlot(accountId, key)}`,
  };
}

/** A transaction's replies; throws the first command's error (exec resolves with them, it does not reject). */
function failedStep(replies: [Error | null, unknown][] | null): void {
  if (replies === null) throw new Error('transaction aborted');
  for (const [error] of replies) if (error) throw error;
}

/** A positive whole number of milliseconds, as Redis wants it. */
function ms(n: number): string {
  return String(Math.max(1, Math.ceil(n)));
}

function int(n: number): string {
  return String(Math.trunc(n));
}

function parseAccount(json: string): Account {
  return JSON.parse(json) as Account;
}

/** A value that does not parse is treated as absent (a cache miss), never as a failure. */
function parseJson<T>(v: string | null): T | null {
  if (v === null) return null;
  try {
    return JSON.parse(v) as T;
  } catch {
    return null;
  }
}

function ledgerEntry(fields: string[]): LedgerEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  return {
    reservationId: f.reservation ?? '',
    accountId: f.account ?? '',
    cacheKey: f.cache_key ?? '',
    requestId: f.request ?? '',
    kind: f.kind === 'overage' ? 'overage' : 'included',
    at: f.at ?? '',
  };
}

// The shared store on Redis: accounts, the 24 h cache, memos, usage and the single-flight lock,
// for any number of service instances at once. RedisStore is the sum of one module per concern
// (redis/accounts.ts, redis/cache.ts, redis/billing.ts, redis/locks.ts, redis/idempotency.ts,
// redis/history.ts, redis/figures.ts), as `Store` is the sum of their interfaces (types.ts); they share one connection (redis/connection.ts: the client,
// the bounded call, the epoch) and one key layout (redis/keys.ts, the table of every key).
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
import type { ErrorBody } from '../contract/index.js';
import type { RedisTarget } from './redis-connection.js';
import { RedisAccounts } from './redis/accounts.js';
import { RedisBilling } from './redis/billing.js';
import { RedisCache } from './redis/cache.js';
import { firstConnection, openRedis, RedisConnection, type RedisStoreOptions } from './redis/connection.js';
import { RedisHistory } from './redis/history.js';
import { RedisFigures } from './redis/figures.js';
import { RedisIdempotency } from './redis/idempotency.js';
import { RedisLocks } from './redis/locks.js';
import type {
  Account,
  AccountChargesPage,
  CacheEntry,
  DayCounts,
  ClaimRef,
  ClaimResult,
  EntryWithRaw,
  FigureAdd,
  FigureCounts,
  LedgerEntry,
  LockRef,
  ReserveRequest,
  ReserveResult,
  StoredAnswer,
  StoredHistoryEvent,
  Store,
  UsageCounters,
  UsageDay,
  VoidRef,
} from './types.js';
import { DEFAULT_LEDGER_RETENTION_MS } from './types.js';
import { DEFAULT_HISTORY_LIMITS, type HistoryLimits } from './history-store.js';

export type { RedisStoreOptions } from './redis/connection.js';
export { redisKeys } from './redis/keys.js';

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  /**
   * The client's script commands: one object, the client itself, through which each concern calls its
   * scripts (so a test can stand in for one script whichever module runs it).
   */
  private readonly scripts: unknown;
  private readonly accounts: RedisAccounts;
  private readonly cache: RedisCache;
  private readonly billing: RedisBilling;
  private readonly locks: RedisLocks;
  private readonly idempotency: RedisIdempotency;
  private readonly history: RedisHistory;
  private readonly figures: RedisFigures;

  private constructor(
    private readonly conn: RedisConnection,
    ledgerRetentionMs: number,
    historyLimits: HistoryLimits,
  ) {
    this.accounts = new RedisAccounts(conn);
    this.cache = new RedisCache(conn);
    this.billing = new RedisBilling(conn, ledgerRetentionMs);
    this.locks = new RedisLocks(conn);
    this.idempotency = new RedisIdempotency(conn);
    this.history = new RedisHistory(conn, historyLimits);
    this.figures = new RedisFigures(conn);
    this.scripts = conn.redis;
    conn.redis.on('ready', () => {
      this.locks.retryUnlocks();
      // A reconnection may be to a Redis that restarted empty: found out (and re-seeded) at once.
      this.conn.checkEpoch().catch(() => undefined);
    });
  }

  /**
   * Connects to Redis. Never hangs and never throws because Redis is down: after at most
   * `startupWaitMs` it returns a store whose calls fail fast with store_unavailable until the
   * background reconnection succeeds. `target`: a server's URL, or the configuration's server or cluster.
   */
  static async connect(target: string | RedisTarget, opts: RedisStoreOptions = {}): Promise<RedisStore> {
    const { redis, prefix } = openRedis(target, opts);
    const store = new RedisStore(
      new RedisConnection(redis, prefix, opts.commandTimeoutMs ?? 1000),
      opts.ledgerRetentionMs ?? DEFAULT_LEDGER_RETENTION_MS,
      opts.history ?? DEFAULT_HISTORY_LIMITS,
    );
    await firstConnection(redis, opts.startupWaitMs);
    return store;
  }

  // --- the connection ------------------------------------------------------------------------

  /** True when commands can be sent now (for a readiness probe). */
  get ready(): boolean {
    return this.conn.ready;
  }

  ping(): Promise<void> {
    return this.conn.ping();
  }

  onReset(handler: () => Promise<void>): void {
    this.conn.onReset(handler);
  }

  async close(): Promise<void> {
    this.locks.stop();
    this.accounts.stopWatching();
    await this.conn.close();
  }

  // --- accounts (redis/accounts.ts) -----------------------------------------------------------

  getAccountByKeyHash(keyHash: string): Promise<Account | null> {
    return this.accounts.getAccountByKeyHash(keyHash);
  }

  getAccount(id: string): Promise<Account | null> {
    return this.accounts.getAccount(id);
  }

  putAccount(account: Account): Promise<void> {
    return this.accounts.putAccount(account);
  }

  watchAccounts(onChange: () => void): () => void {
    return this.accounts.watchAccounts(onChange);
  }

  listAccounts(): Promise<Account[]> {
    return this.accounts.listAccounts();
  }

  // --- cache, aliases, memo (redis/cache.ts) ---------------------------------------------------

  getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]> {
    return this.cache.getEntries(keys);
  }

  putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number, keepMs = ttlMs): Promise<void> {
    return this.cache.putEntry(key, entry, rawJson, ttlMs, keepMs);
  }

  getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]> {
    return this.cache.getEntriesWithRaw(keys);
  }

  getAliases(keys: readonly string[]): Promise<(string | null)[]> {
    return this.cache.getAliases(keys);
  }

  putAlias(key: string, target: string, ttlMs: number): Promise<void> {
    return this.cache.putAlias(key, target, ttlMs);
  }

  getMemo(key: string): Promise<ErrorBody | null> {
    return this.cache.getMemo(key);
  }

  putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void> {
    return this.cache.putMemo(key, body, ttlMs);
  }

  // --- billing (redis/billing.ts) --------------------------------------------------------------

  reserve(req: ReserveRequest): Promise<ReserveResult> {
    return this.billing.reserve(req);
  }

  commit(entry: LedgerEntry): Promise<boolean> {
    return this.billing.commit(entry);
  }

  release(reservationId: string): Promise<boolean> {
    return this.billing.release(reservationId);
  }

  sweep(): Promise<number> {
    return this.billing.sweep();
  }

  voidReservation(ref: VoidRef): Promise<'released' | 'voided' | 'none'> {
    return this.billing.voidReservation(ref);
  }

  renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]> {
    return this.billing.renewReservations(ids, ttlMs);
  }

  usage(accountId: string, period: string): Promise<UsageCounters> {
    return this.billing.usage(accountId, period);
  }

  budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number> {
    return this.billing.budgetUsage(day, scope);
  }

  chargesOf(requestId: string): Promise<LedgerEntry[]> {
    return this.billing.chargesOf(requestId);
  }

  ledger(accountId?: string): Promise<LedgerEntry[]> {
    return this.billing.ledger(accountId);
  }

  accountCharges(accountId: string, opts: { limit: number; before?: string }): Promise<AccountChargesPage> {
    return this.billing.accountCharges(accountId, opts);
  }

  addDayCounts(counts: readonly DayCounts[]): Promise<void> {
    return this.billing.addDayCounts(counts);
  }

  usageDays(accountId: string, days: readonly string[]): Promise<UsageDay[]> {
    return this.billing.usageDays(accountId, days);
  }

  markUsageAlert(accountId: string, period: string, alert: string): Promise<boolean> {
    return this.billing.markUsageAlert(accountId, period, alert);
  }

  // --- idempotency keys (redis/idempotency.ts) -------------------------------------------------

  claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    return this.idempotency.claimIdempotency(ref, bodyHash, leaseMs);
  }

  completeIdempotency(ref: ClaimRef, answer: StoredAnswer, ttlMs: number): Promise<boolean> {
    return this.idempotency.completeIdempotency(ref, answer, ttlMs);
  }

  releaseIdempotency(ref: ClaimRef, keepMs?: number): Promise<void> {
    return this.idempotency.releaseIdempotency(ref, keepMs);
  }

  renewIdempotency(refs: readonly ClaimRef[], leaseMs: number): Promise<string[]> {
    return this.idempotency.renewIdempotency(refs, leaseMs);
  }

  // --- homes' history (redis/history.ts) ------------------------------------------------------

  appendHistory(homeKey: string, event: string): Promise<string> {
    return this.history.appendHistory(homeKey, event);
  }

  readHistory(homeKey: string, limit: number, before: string | null): Promise<StoredHistoryEvent[]> {
    return this.history.readHistory(homeKey, limit, before);
  }

  // --- the public figures (redis/figures.ts) -------------------------------------------------

  addFigures(adds: readonly FigureAdd[]): Promise<void> {
    return this.figures.addFigures(adds);
  }

  readFigures(buckets: readonly string[]): Promise<FigureCounts[]> {
    return this.figures.readFigures(buckets);
  }

  putInstanceState(instance: string, state: string, ttlMs: number): Promise<void> {
    return this.figures.putInstanceState(instance, state, ttlMs);
  }

  instanceStates(): Promise<string[]> {
    return this.figures.instanceStates();
  }

  // --- single flight (redis/locks.ts) ----------------------------------------------------------

  tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    return this.locks.tryLock(key, token, ttlMs);
  }

  unlock(key: string, token: string): Promise<void> {
    return this.locks.unlock(key, token);
  }

  renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]> {
    return this.locks.renewLocks(locks, ttlMs);
  }

  /** Number of unlocks waiting for Redis to come back. */
  get pendingUnlockCount(): number {
    return this.locks.pendingUnlockCount;
  }
}

// The store: accounts, the 24 h cache, memos, usage and the single-flight lock.
// Every check-and-charge is one atomic operation of the store (reserve → commit | release),
// so billing stays exact with many requests and many service instances at once.
import type { ErrorBody, LookupSource } from '../contract/index.js';

export type Plan = 'free' | 'paid';

export interface Account {
  id: string;
  /** HMAC-SHA256 (hex) of the API key under the server secret; the key itself is never stored. */
  keyHash: string;
  /** The key's first characters, shown to support and to the holder. */
  keyPrefix: string;
  plan: Plan;
  /** Free plan: one-time lookups. */
  allotment: number;
  /** Paid plan: lookups included per billing period. */
  included: number;
  overage: boolean;
  overageRateUsd: number;
  spendLimitUsd: number | null;
  paymentFailing: boolean;
  revoked: boolean;
  createdAt: string;
  label: string | null;
}

/**
 * What a cache hit needs (entry-format.ts says how it is kept). The unmapped source record (`raw`)
 * is kept apart, with the same lifetime, and read only for raw=true.
 */
export interface CacheEntry {
  /** The mapped record (PortalProperty without `raw`) as JSON text: a REST hit sends it as is. */
  record: string;
  fetchedAt: string;
  source: LookupSource;
  zpid: string | null;
}

/** An entry with its raw record's JSON (null: the home was read with none), of one write. */
export interface EntryWithRaw {
  entry: CacheEntry;
  rawJson: string | null;
}

export interface ReserveRequest {
  reservationId: string;
  accountId: string;
  /** Usage bucket: `lifetime` for the free plan, `YYYY-MM` for a paid plan's billing period. */
  period: string;
  /** Lookups the bucket includes. */
  included: number;
  /** Usage past `included`, when allowed now (null: not allowed, or paused while a payment fails). */
  overage: { rateMicroUsd: number; spendLimitMicroUsd: number | null } | null;
  /** The daily live-lookup budget this lookup draws on (`day` is YYYY-MM-DD UTC). */
  budget: { day: string; scope: 'service' | 'paid'; cap: number | null };
  /** A reservation not committed or released within this time is swept (released). */
  ttlMs: number;
}

export type ReserveResult =
  /** `kind`: what the lookup is held as; the kind charged is decided at commit. */
  | { ok: true; kind: 'included' | 'overage' }
  /** `inFlight`: the bucket's lookups held in flight; while there are some, the refusal may not be final. */
  | { ok: false; reason: 'credits_exhausted'; inFlight: number }
  /**
   * Based on `overageUsed` (charged) plus `overageInFlight` (lookups in flight that would be charged
   * as overage were they all to succeed).
   */
  | { ok: false; reason: 'spend_limit_reached'; overageUsed: number; overageInFlight: number; inFlight: number }
  | { ok: false; reason: 'live_lookups_capped' };

export interface LedgerEntry {
  reservationId: string;
  accountId: string;
  cacheKey: string;
  requestId: string;
  /** The kind charged, decided by the store at commit (a caller's value is ignored). */
  kind: 'included' | 'overage';
  at: string;
}

export interface VoidRef {
  reservationId: string;
  accountId: string;
  period: string;
  day: string;
  scope: 'service' | 'paid';
  since: number;
}

export interface LockRef {
  key: string;
  token: string;
}

export interface UsageCounters {
  /** Committed lookups in the bucket (included + overage). */
  used: number;
  /** Reservations in flight. */
  reserved: number;
  /** Committed lookups past the included ones. */
  overageUsed: number;
}

export interface Store {
  readonly kind: 'memory' | 'redis';
  /**
   * Throws LookupError('store_unavailable') when the store cannot be reached now, or when it lost its
   * data (details.reason `store_reset`) and has not been seeded again yet.
   */
  ping(): Promise<void>;
  /**
   * Runs `handler` (re-seeding accounts) when the store is found to have lost its data: Redis
   * restarted empty or flushed. The memory store cannot lose its data while the process lives.
   */
  onReset(handler: () => Promise<void>): void;
  close(): Promise<void>;

  getAccountByKeyHash(keyHash: string): Promise<Account | null>;
  getAccount(id: string): Promise<Account | null>;
  /** Creates or replaces an account (and its key index). */
  putAccount(account: Account): Promise<void>;
  listAccounts(): Promise<Account[]>;
  /**
   * Calls `onChange` after any account is written (by any instance or the accounts command), and
   * whenever such a notice may have been missed (the store was unreachable). Returns how to stop.
   */
  watchAccounts(onChange: () => void): () => void;

  /** Entries of another format version (written by older code) read as misses. */
  getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]>;
  /** Stores the entry and, apart from it with the same lifetime, its raw record's JSON (compressed; null: none). */
  putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number): Promise<void>;
  /**
   * Entries with their raw records, each pair read together (one round trip); an entry whose raw record
   * is missing or not of the same write is null, a miss: never an entry with another's raw record.
   */
  getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]>;
  /** Alias keys (e.g. `addr:…`, `bldg:…`) point at a cache key (`zpid:…`). */
  getAliases(keys: readonly string[]): Promise<(string | null)[]>;
  putAlias(key: string, target: string, ttlMs: number): Promise<void>;
  getMemo(key: string): Promise<ErrorBody | null>;
  putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void>;

  /**
   * Atomically checks the account's allowance and the daily budget, and holds one unit of each.
   * The spend limit is checked against the worst case (every lookup in flight is charged, all past
   * the remaining included ones as overage), so a refusal while included lookups are in flight may
   * be transient.
   */
  reserve(req: ReserveRequest): Promise<ReserveResult>;
  /**
   * Turns a held reservation into a charge and appends it to the ledger; false if it was not held.
   * The charge is included while the bucket's charged included lookups (used - overageUsed) are fewer
   * than the `included` it was reserved with, else overage; the ledger entry carries that kind and the
   * reservation's account.
   */
  commit(entry: LedgerEntry): Promise<boolean>;
  /** Gives a held reservation back; false if it was not held. */
  release(reservationId: string): Promise<boolean>;
  /**
   * For a reservation whose commit went unanswered: released if still held, or its charge taken back
   * (ledger entry and counters) if the commit was applied. `since` (ms) bounds the ledger search: a
   * time before the reservation was made, allowing for clock skew.
   */
  voidReservation(ref: VoidRef): Promise<'released' | 'voided' | 'none'>;
  /** Extends held reservations' leases to `ttlMs` from now; returns the ids that are no longer held. */
  renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]>;
  /** Releases reservations past their ttl (after a crash); returns how many. The memory store also drops its expired keys. */
  sweep(): Promise<number>;
  usage(accountId: string, period: string): Promise<UsageCounters>;
  /** Live lookups committed plus held against a daily budget. */
  budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number>;
  ledger(accountId?: string): Promise<LedgerEntry[]>;

  /** Single flight across instances: an expiring lock that only the token's owner can release. */
  tryLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  unlock(key: string, token: string): Promise<void>;
  /** Extends locks this token holds to `ttlMs` from now; returns the keys no longer held under their token. */
  renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]>;
}

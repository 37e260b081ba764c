// The store, one interface per concern, so a backend implements (and a consumer depends on) one concern
// at a time: accounts, the cache, billing, the single-flight lock, idempotency keys, homes' history, the public figures. `Store` is all of
// them with the connection's own calls, as the service wires it; MemoryStore and RedisStore implement it.
import type { AccountStore } from './account-store.js';
import type { BillingStore } from './billing-store.js';
import type { CacheStore } from './cache-store.js';
import type { HistoryStore } from './history-store.js';
import type { FiguresStore } from './figures-store.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { LockStore } from './lock-store.js';

export type * from './account-store.js';
export type * from './billing-store.js';
export type * from './cache-store.js';
export type * from './history-store.js';
export type * from './figures-store.js';
export type * from './idempotency-store.js';
export type * from './lock-store.js';

/** The connection itself: which backend, whether it answers, its data-loss notice, closing. */
export interface StoreConnection {
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
}

export interface Store
  extends StoreConnection,
    AccountStore,
    CacheStore,
    BillingStore,
    LockStore,
    IdempotencyStore,
    HistoryStore,
    FiguresStore {}

/** How long a charge stays in the ledger unless LEDGER_RETENTION_DAYS says otherwise: 400 days. */
export const DEFAULT_LEDGER_RETENTION_MS = 400 * 86_400_000;

/** How long an account's day counters (its lookups and credits of a UTC day) are kept: 400 days. */
export const USAGE_DAY_TTL_MS = 400 * 86_400_000;

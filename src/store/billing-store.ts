// Billing in the store: every check-and-charge is one atomic operation (reserve → commit | release),
// so billing stays exact with many requests and many service instances at once; held reservations
// expire unless renewed, and the ledger records each charge.

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
  /** What served the home charged for: the own collector or the fallback provider (absent on older entries). */
  source?: 'self_hosted' | 'fallback';
}

/** A charge as the account's own record lists it: its ledger entry and its place in the ledger (a cursor). */
export interface AccountCharge extends LedgerEntry {
  /** The charge's id in the ledger (Redis: the stream id, `<ms>-<seq>`), increasing with time. */
  id: string;
}

/** A page of an account's charges, newest first; `next` is the id to read on from (exclusive), null at the end. */
export interface AccountChargesPage {
  charges: AccountCharge[];
  next: string | null;
}

/** The lookup outcomes of one account on one UTC day (added as lookups settle, in any process). */
export interface DayCounts {
  accountId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** Every outcome: live + hits + stale + failed. */
  lookups: number;
  /** Found by a live read (the site or the fallback), charged or not. */
  live: number;
  /** Answered from the cache. */
  hits: number;
  /** A stale answer: the live read failed and the last good record stood in (free). */
  stale: number;
  /** Failed lookups (never charged). */
  failed: number;
}

/** One UTC day of an account's record: its lookup outcomes and the credits committed that day (the ledger's). */
export interface UsageDay extends Omit<DayCounts, 'accountId'> {
  credits: number;
}

export interface VoidRef {
  reservationId: string;
  accountId: string;
  period: string;
  day: string;
  scope: 'service' | 'paid';
  /** The request whose charge it may be (its charges are indexed by request, no ledger scan). */
  requestId: string;
  /** The `at` its commit was sent with (its day's credits are taken back); absent: the reservation's `day`. */
  chargedAt?: string;
}

export interface UsageCounters {
  /** Committed lookups in the bucket (included + overage). */
  used: number;
  /** Reservations in flight. */
  reserved: number;
  /** Committed lookups past the included ones. */
  overageUsed: number;
}

export interface BillingStore {
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
   * (ledger entry and counters) if the commit was applied (found among its request's charges).
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
  /**
   * An account's charges, newest first, from its own index (written by the same commit as the ledger, kept
   * as long): never a scan of the ledger. `before`: a charge id, read on from the one before it.
   */
  accountCharges(accountId: string, opts: { limit: number; before?: string }): Promise<AccountChargesPage>;
  /** Adds lookup outcomes to their account's day counters (kept USAGE_DAY_TTL_MS). */
  addDayCounts(counts: readonly DayCounts[]): Promise<void>;
  /**
   * The account's days `days` (YYYY-MM-DD), in the order given: its outcome counters and the credits its
   * commits charged that day (written by the commit itself, taken back by a void: their sum is the ledger's).
   */
  usageDays(accountId: string, days: readonly string[]): Promise<UsageDay[]>;
  /**
   * Marks a usage alert of the account's period as sent: true the first time (for this `alert` and
   * period), false after. Kept with the usage bucket.
   */
  markUsageAlert(accountId: string, period: string, alert: string): Promise<boolean>;
  /** The charges recorded under `requestId` in the last 48 h (a job chunk's, on its re-run), oldest first; no ledger scan. */
  chargesOf(requestId: string): Promise<LedgerEntry[]>;
}

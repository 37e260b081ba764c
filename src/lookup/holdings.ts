// What this process holds in the store, kept honest while it lives and freed soon after it dies.
//
// Leases: a held reservation, a single-flight lock and a claimed idempotency key expire LEASE_TTL_MS
// after their last renewal.
// The process renews everything it holds every third of that, in one round trip, so its own last
// as long as it is alive; a crashed process's lapse, so its reservations are swept (by the sweeper,
// or by a lookup waiting for those credits), its locks taken over by a follower, and its idempotency
// keys claimed by the client's retry.
//
// Charges to take back: a commit whose answer was lost may or may not have been recorded. The home
// is then served with credits 0 and the reservation voided here (released if held, its charge taken
// back if recorded), retried until the store answers, so what is reported is what is recorded.
import type { Logger } from 'pino';
import type { BillingStore, ClaimRef, IdempotencyStore, LockRef, LockStore, VoidRef } from '../store/index.js';
import { underlyingStore } from '../observability/instrument.js';

const VOID_RETRY_MS = 1_000;
/** Voids kept for retry while the store is away (each is one reservation: a few hundred bytes). */
const MAX_PENDING_VOIDS = 100_000;

/** What a process holds leases in. */
type LeaseStore = BillingStore & LockStore & IdempotencyStore;

export class Holdings {
  private readonly reservations = new Set<string>();
  private readonly locks = new Map<string, LockRef>();
  private readonly claims = new Set<ClaimRef>();
  private readonly voids = new Map<string, VoidRef>();
  private renewer: NodeJS.Timeout | null = null;
  private voider: NodeJS.Timeout | null = null;
  private renewing = false;
  private voiding: Promise<void> | null = null;

  constructor(
    private readonly store: LeaseStore,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  holdReservation(id: string): void {
    this.reservations.add(id);
    this.startRenewing();
  }

  dropReservation(id: string): void {
    this.reservations.delete(id);
    this.stopRenewingIfIdle();
  }

  holdLock(key: string, token: string): void {
    this.locks.set(`${key}\u0000${token}`, { key, token });
    this.startRenewing();
  }

  dropLock(key: string, token: string): void {
    this.locks.delete(`${key}\u0000${token}`);
    this.stopRenewingIfIdle();
  }

  holdClaim(ref: ClaimRef): void {
    this.claims.add(ref);
    this.startRenewing();
  }

  dropClaim(ref: ClaimRef): void {
    this.claims.delete(ref);
    this.stopRenewingIfIdle();
  }

  /** Takes back a reservation whose commit went unanswered, now or as soon as the store answers. */
  voidReservation(ref: VoidRef): void {
    this.dropReservation(ref.reservationId);
    if (this.voids.size >= MAX_PENDING_VOIDS) {
      // The sweep only frees what is still held: a charge that was recorded stays until reconciled.
      this.logger.error(
        { reservationId: ref.reservationId },
        'too many unanswered commits pending: this one is not taken back; reconcile it against the ledger',
      );
      return;
    }
    this.voids.set(ref.reservationId, ref);
    void this.runVoids();
  }

  /** Reservations voided but not yet confirmed by the store. */
  get pendingVoids(): number {
    return this.voids.size;
  }

  private startRenewing(): void {
    if (this.renewer) return;
    this.renewer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.renewer.unref();
  }

  private stopRenewingIfIdle(): void {
    if (this.renewer && this.reservations.size === 0 && this.locks.size === 0 && this.claims.size === 0) {
      clearInterval(this.renewer);
      this.renewer = null;
    }
  }

  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const claims = [...this.claims];
      const [lostReservations, lostLocks, lostClaims] = await Promise.all([
        this.store.renewReservations([...this.reservations], this.ttlMs),
        this.store.renewLocks([...this.locks.values()], this.ttlMs),
        this.store.renewIdempotency(claims, this.ttlMs),
      ]);
      // A lease that lapsed (the store was away longer than the lease) was freed: its lookup goes on,
      // its commit then finds nothing held and serves the home free.
      for (const id of lostReservations) this.reservations.delete(id);
      for (const l of this.locks.values()) if (lostLocks.includes(l.key)) this.locks.delete(`${l.key}\u0000${l.token}`);
      // A lapsed idempotency key may be claimed by a retry meanwhile: this run's answer is then not kept.
      for (const c of claims) if (lostClaims.includes(c.token)) this.claims.delete(c);
      if (lostReservations.length + lostLocks.length + lostClaims.length > 0) {
        this.logger.warn(
          { reservations: lostReservations.length, locks: lostLocks.length, idempotencyKeys: lostClaims.length },
          'leases lapsed before their renewal',
        );
      }
      this.stopRenewingIfIdle();
    } catch (err) {
      this.logger.warn({ err }, 'lease renewal failed; retried at the next beat');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Tries the pending voids again until none is left or `until` (epoch ms) has passed (at least once);
   * returns the reservation ids still pending. For the shutdown: the retry timer does not keep the
   * process alive.
   */
  async flushVoids(until: number): Promise<string[]> {
    for (;;) {
      await this.runVoids();
      const left = until - Date.now();
      if (this.voids.size === 0 || left <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(VOID_RETRY_MS, left)));
    }
    if (this.voider) clearTimeout(this.voider);
    this.voider = null;
    return [...this.voids.keys()];
  }

  private runVoids(): Promise<void> {
    this.voiding ??= this.voidPending().finally(() => {
      this.voiding = null;
      this.retryVoidsLater();
    });
    return this.voiding;
  }

  private async voidPending(): Promise<void> {
    for (const [id, ref] of this.voids) {
      try {
        const outcome = await this.store.voidReservation(ref);
        this.voids.delete(id);
        this.logger.warn({ reservationId: id, outcome }, 'unanswered commit taken back; the home was served free');
      } catch {
        // still unreachable: retried later
      }
    }
  }

  private retryVoidsLater(): void {
    if (this.voids.size > 0 && !this.voider) {
      this.voider = setTimeout(() => {
        this.voider = null;
        void this.runVoids();
      }, VOID_RETRY_MS);
      this.voider.unref();
    }
  }
}

const byStore = new WeakMap<LeaseStore, Holdings>();

/** Unanswered commits of this process not yet taken back in `store`. */
export const pendingVoidsIn = (store: LeaseStore): number => byStore.get(underlyingStore(store))?.pendingVoids ?? 0;

/**
 * At shutdown: takes back this process's unanswered commits while the store answers, until `until`
 * (epoch ms); every one still pending is logged at error level by reservation id, for reconciliation
 * against the ledger (a recorded charge for a home served free).
 */
export async function settleVoids(store: LeaseStore, until: number, logger: Logger): Promise<void> {
  const left = (await byStore.get(underlyingStore(store))?.flushVoids(until)) ?? [];
  for (const reservationId of left)
    logger.error(
      { reservationId },
      'unanswered commit not taken back before shutdown: reconcile it against the ledger',
    );
}

/** The holdings of this process in `store` (one per store, shared by every request). */
export function holdingsOf(store: LeaseStore, leaseTtlMs: number, logger: Logger): Holdings {
  // Kept per store itself, not per measured view of it (observability/instrument.ts): shutdown settles
  // the voids of the store it was given.
  const key = underlyingStore(store);
  let h = byStore.get(key);
  if (!h) {
    h = new Holdings(store, leaseTtlMs, logger);
    byStore.set(key, h);
  }
  return h;
}

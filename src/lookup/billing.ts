// A live lookup's billing: one credit and one daily-budget slot reserved before the read (a lease,
// renewed while this process lives: holdings.ts), then committed once the home is cached, or released
// on any failure. live.ts reads; this is what it pays with.
import { LookupError } from '../contract/index.js';
import { refusal, reserveRequest } from '../accounts/index.js';
import type { ReserveResult, VoidRef } from '../store/index.js';
import { holdingsOf, type Holdings } from './holdings.js';
import { sleep, throwIfAborted } from './deadline.js';
import type { RequestContext } from './types.js';

export interface Reservation {
  id: string;
  kind: 'included' | 'overage';
  /**
   * Its id is the request's for the home (a job chunk's, the same in every run of the chunk's round): a run after
   * this one finds its charge under the request (chargesOf) or charges it itself (jobs/chunk.ts), so an
   * unanswered commit fails the run instead of being voided (a void would take back that later run's charge).
   */
  adoptable: boolean;
  /** What it takes to void it if its commit goes unanswered. */
  ref: VoidRef;
}

const CREDIT_POLL_MIN_MS = 50;
const CREDIT_POLL_MAX_MS = 500;

const holdings = (ctx: RequestContext): Holdings =>
  holdingsOf(ctx.deps.store, ctx.deps.config.leaseTtlMs, ctx.deps.logger);

/** A refusal that may not be final: the account's lookups in flight hold what this one needs. */
export class HeldInFlight extends Error {
  constructor(readonly refusal: LookupError) {
    super(refusal.message);
  }
}

const heldInFlight = (r: Exclude<ReserveResult, { ok: true }>): boolean =>
  r.reason !== 'live_lookups_capped' && r.inFlight > 0;

/**
 * Waits for an account's lookups in flight to settle, so a lookup is refused only for credits that
 * are really used up (spec 7: 402 "used up"). Bounded by CREDIT_WAIT_MS (lookups in flight settle
 * within the lookup timeout, a crashed holder's within the lease) and by the request's deadline
 * (then batch_deadline, never a 402 that might be wrong); past the bound, the refusal says how many
 * lookups were still in flight.
 */
export class CreditWait {
  private readonly until: number;
  private pause = CREDIT_POLL_MIN_MS;

  constructor(private readonly ctx: RequestContext) {
    this.until = Date.now() + ctx.deps.config.creditWaitMs;
  }

  async next(held: HeldInFlight): Promise<void> {
    if (Date.now() >= this.until) throw held.refusal;
    // A crashed holder's reservations come back once their lease lapses: a waiter sweeps them itself.
    await this.ctx.deps.store.sweep().catch(() => 0);
    await sleep(this.pause, this.ctx);
    this.pause = Math.min(this.pause * 2, CREDIT_POLL_MAX_MS);
    throwIfAborted(this.ctx);
  }
}

/** Holds one credit and one daily-budget slot (a lease), or throws the plan's refusal or HeldInFlight. */
export async function reserveOnce(ctx: RequestContext, homeKey: string): Promise<Reservation> {
  const { store, config, clock } = ctx.deps;
  const now = clock();
  const id = ctx.reservationIdFor?.(homeKey) ?? ctx.deps.newId();
  const request = reserveRequest(ctx.account, config, now, id);
  const result = await store.reserve(request);
  if (!result.ok) {
    const err = refusal(result, ctx.account, config, now);
    throw heldInFlight(result) ? new HeldInFlight(err) : err;
  }
  holdings(ctx).holdReservation(id);
  const ref: VoidRef = {
    reservationId: id,
    accountId: request.accountId,
    period: request.period,
    day: request.budget.day,
    scope: request.budget.scope,
    requestId: ctx.requestId,
  };
  return { id, kind: result.kind, ref, adoptable: ctx.reservationIdFor !== undefined };
}

/** Holds one credit and one daily-budget slot for a live lookup, waiting for lookups in flight if they hold them. */
export async function reserve(ctx: RequestContext, homeKey: string): Promise<Reservation> {
  const wait = new CreditWait(ctx);
  for (;;) {
    try {
      return await reserveOnce(ctx, homeKey);
    } catch (e) {
      if (!(e instanceof HeldInFlight)) throw e;
      await wait.next(e);
    }
  }
}

export async function release(ctx: RequestContext, r: Reservation): Promise<void> {
  holdings(ctx).dropReservation(r.id);
  await ctx.deps.store
    .release(r.id)
    .catch((e: unknown) =>
      ctx.logger.warn({ err: e, reservationId: r.id }, 'release failed; the sweep will return it'),
    );
}

/**
 * Charges the reservation for the home cached under `cacheKey`, exactly once; true when the charge is
 * recorded. An answer of false means the reservation was gone before the commit (its lease lapsed and
 * it was swept): not charged, so the home is served free. When the answer is lost (the store went away
 * or did not answer) the charge may or may not be recorded: the home is served (it is read and cached)
 * with credits 0, and the reservation is voided (holdings.ts: released if held, its charge taken back if
 * recorded) as soon as the store answers. So meta.credits always equals what the ledger ends up holding.
 * Once called, the reservation is no longer the caller's to release.
 */
export async function commit(
  ctx: RequestContext,
  reservation: Reservation,
  cacheKey: string,
  source: 'self_hosted' | 'fallback',
): Promise<boolean> {
  const reservationId = reservation.id;
  const at = ctx.deps.clock().toISOString();
  try {
    const held = await ctx.deps.store.commit({
      reservationId,
      accountId: ctx.account.id,
      cacheKey,
      requestId: ctx.requestId,
      kind: reservation.kind,
      at,
      source,
    });
    holdings(ctx).dropReservation(reservationId);
    if (!held) ctx.logger.warn({ reservationId }, 'reservation vanished before commit; served without charge');
    else ctx.deps.charges?.emit({ account: ctx.account, period: reservation.ref.period, at });
    return held;
  } catch (err) {
    if (reservation.adoptable) {
      // Left as it is (held or charged): the run fails, and the one after it settles the charge.
      holdings(ctx).dropReservation(reservationId);
      ctx.logger.warn({ err, reservationId }, 'commit unanswered: the run fails and its next run settles the charge');
      throw new LookupError('store_unavailable', { cause: err });
    }
    ctx.logger.error({ err, reservationId }, 'commit unanswered: the home is served free and the charge taken back');
    // Its day's credit too, if it was recorded: the day of the `at` it was sent with.
    holdings(ctx).voidReservation({ ...reservation.ref, chargedAt: at });
    return false;
  }
}

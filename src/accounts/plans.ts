// Plans → what a live lookup may draw on (spec 7, 8). The store applies it atomically.
import { LookupError } from '../contract/index.js';
import type { Config } from '../config.js';
import type { Account, ReserveRequest, ReserveResult, UsageCounters } from '../store/index.js';

export const FREE_ALLOTMENT = 50;
const MICRO = 1_000_000;

/** The free plan's bucket never resets; a paid plan's is the calendar month (UTC). */
export function periodOf(account: Account, now: Date): string {
  return account.plan === 'free' ? 'lifetime' : now.toISOString().slice(0, 7);
}

export function periodEnd(account: Account, now: Date): Date | null {
  if (account.plan === 'free') return null;
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export const includedOf = (account: Account): number =>
  account.plan === 'free' ? account.allotment : account.included;

/**
 * What a usage alert's percents are of: the lookups the account may use in its period before it is refused.
 * Free: its one-time allotment. Paid: its included lookups, or with overage on and a spend limit, the
 * included lookups plus the overage the limit pays for (100% is the limit reached). Null: no such limit
 * (none included, and overage without a limit).
 */
export function usageAlertBasis(
  account: Account,
): { basis: 'allotment' | 'included' | 'spend_limit'; lookups: number } | null {
  if (account.plan === 'free') return account.allotment > 0 ? { basis: 'allotment', lookups: account.allotment } : null;
  if (account.overage && account.spendLimitUsd !== null && account.overageRateUsd > 0) {
    const overage = Math.floor((account.spendLimitUsd * MICRO) / Math.round(account.overageRateUsd * MICRO));
    return { basis: 'spend_limit', lookups: account.included + overage };
  }
  return account.included > 0 ? { basis: 'included', lookups: account.included } : null;
}

/** What a live lookup of the account may draw on now: the plan's terms of a reservation, without its id and lease. */
export type ReserveTerms = Omit<ReserveRequest, 'reservationId' | 'ttlMs'>;

export function reserveTerms(account: Account, config: Config, now: Date): ReserveTerms {
  const paid = account.plan === 'paid';
  return {
    accountId: account.id,
    period: periodOf(account, now),
    included: includedOf(account),
    overage:
      paid && account.overage && !account.paymentFailing
        ? {
            rateMicroUsd: Math.round(account.overageRateUsd * MICRO),
            spendLimitMicroUsd: account.spendLimitUsd === null ? null : Math.round(account.spendLimitUsd * MICRO),
          }
        : null,
    budget: {
      day: now.toISOString().slice(0, 10),
      scope: paid ? 'paid' : 'service',
      cap: paid ? config.paidDailyLiveLookupBudget : config.dailyLiveLookupBudget,
    },
  };
}

export function reserveRequest(account: Account, config: Config, now: Date, reservationId: string): ReserveRequest {
  return {
    reservationId,
    ...reserveTerms(account, config, now),
    // A lease: its holder renews it while alive (src/lookup/holdings.ts), so only a crashed holder's is swept.
    ttlMs: config.leaseTtlMs,
  };
}

/**
 * How many live lookups the store would reserve now, one after another, on these terms (null: no
 * limit): the included lookups left less those held in flight, then overage up to the spend limit
 * (counting the overage in flight, as the reservation does), all within the daily budget's room.
 * The reserve decision's arithmetic (store/memory.ts decideReserve, the Redis script), read-only.
 */
export function lookupsAffordable(terms: ReserveTerms, u: UsageCounters, budgetUsed: number): number | null {
  const remaining = Math.max(0, terms.included - (u.used - u.overageUsed));
  const included = Math.max(0, remaining - u.reserved);
  let plan: number | null = included;
  if (terms.overage) {
    const { rateMicroUsd, spendLimitMicroUsd } = terms.overage;
    if (spendLimitMicroUsd === null || rateMicroUsd <= 0) plan = null;
    else {
      const overageInFlight = Math.max(0, u.reserved - remaining);
      plan = included + Math.max(0, Math.floor(spendLimitMicroUsd / rateMicroUsd) - u.overageUsed - overageInFlight);
    }
  }
  const budget = terms.budget.cap === null ? null : Math.max(0, terms.budget.cap - budgetUsed);
  if (plan === null) return budget;
  return budget === null ? plan : Math.min(plan, budget);
}

const usd = (amount: number): number => Math.round(amount * 100) / 100;

const nextMidnightUtc = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

export const secondsToMidnightUtc = (now: Date): number =>
  Math.max(1, Math.ceil((nextMidnightUtc(now).getTime() - now.getTime()) / 1000));

/** A refused reservation as the spec's error. */
export function refusal(
  result: Exclude<ReserveResult, { ok: true }>,
  account: Account,
  config: Config,
  now: Date,
): LookupError {
  switch (result.reason) {
    case 'credits_exhausted':
      return new LookupError('credits_exhausted', {
        details: {
          plan: account.plan,
          upgrade_url: config.upgradeUrl,
          ...(account.paymentFailing ? { reason: 'payment_failing' } : {}),
          // Only once the wait for them ran out: lookups still running hold the rest.
          ...(result.inFlight > 0 ? { in_flight_lookups: result.inFlight } : {}),
        },
      });
    case 'spend_limit_reached':
      // What the refusal was based on: the overage charged, plus the lookups in flight that would be
      // charged as overage if they all succeed (the limit can never be passed, whatever they do).
      return new LookupError('spend_limit_reached', {
        details: {
          spend_limit_usd: account.spendLimitUsd,
          overage_rate_usd: account.overageRateUsd,
          overage_used_usd: usd(result.overageUsed * account.overageRateUsd),
          overage_lookups: result.overageUsed,
          overage_in_flight_lookups: result.overageInFlight,
          overage_in_flight_usd: usd(result.overageInFlight * account.overageRateUsd),
          dashboard_url: config.dashboardUrl,
        },
      });
    case 'live_lookups_capped':
      return new LookupError('live_lookups_capped', {
        retryAfter: secondsToMidnightUtc(now),
        details: {
          scope: account.plan === 'paid' ? 'paid_daily_budget' : 'service_daily_budget',
          resets_at: nextMidnightUtc(now).toISOString(),
        },
      });
  }
}

import type { AccountUsage } from '../contract/index.js';
import type { Config } from '../config.js';
import type { Account, BillingStore } from '../store/index.js';
import { includedOf, lookupsAffordable, periodEnd, periodOf, reserveTerms } from './plans.js';

/** What the account holder sees of their own usage (GET /v1/account, Query.account). */
export async function accountUsage(store: BillingStore, account: Account, now: Date): Promise<AccountUsage> {
  const u = await store.usage(account.id, periodOf(account, now));
  const included = includedOf(account);
  const end = periodEnd(account, now);
  return {
    plan: account.plan,
    key_prefix: account.keyPrefix,
    used: u.used,
    included,
    remaining: Math.max(0, included - (u.used - u.overageUsed)),
    period_end: end ? end.toISOString() : null,
    overage_enabled: account.plan === 'paid' && account.overage,
    overage_used: u.overageUsed,
    overage_usd: Math.round(u.overageUsed * account.overageRateUsd * 100) / 100,
    spend_limit_usd: account.spendLimitUsd,
  };
}

/**
 * Live lookups the account could pay for now (null: no limit), read from the same counters and plan
 * terms a reservation checks; nothing is held (a cost preview).
 */
export async function creditsAvailable(
  store: BillingStore,
  account: Account,
  config: Config,
  now: Date,
): Promise<number | null> {
  const terms = reserveTerms(account, config, now);
  const [u, budgetUsed] = await Promise.all([
    store.usage(account.id, terms.period),
    terms.budget.cap === null ? 0 : store.budgetUsage(terms.budget.day, terms.budget.scope),
  ]);
  return lookupsAffordable(terms, u, budgetUsed);
}

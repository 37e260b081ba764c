import type { AccountUsage } from '../contract/index.js';
import type { Account, BillingStore } from '../store/index.js';
import { includedOf, periodEnd, periodOf } from './plans.js';

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

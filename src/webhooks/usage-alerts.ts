// Usage alerts (docs/accounts.md#usage-alerts): after each charge of an account that has them, its lookups
// used are compared with its thresholds (whole percents of the plan's limit, accounts/plans.ts
// usageAlertBasis); a threshold reached is claimed in the store for the period (one claimer, whatever the
// number of instances and racing charges) and its claimer sends one signed `account.usage_threshold` event,
// whose webhook-id is derived from the account, the period and the threshold: a send repeated after a
// crash is the same delivery. An account without alerts costs nothing; one with them, one read of its usage
// per charge until every threshold of the period is claimed (then none: this process remembers).
import type { Logger } from 'pino';
import { periodEnd, usageAlertBasis } from '../accounts/plans.js';
import type { Charged, ChargeFeed } from '../lookup/charge-feed.js';
import type { BillingStore } from '../store/index.js';
import type { Webhooks } from './types.js';

/** Thresholds this process knows are claimed, kept up to this many (then forgotten: the store still knows). */
const MAX_REMEMBERED = 10_000;

export function watchUsageAlerts(
  feed: ChargeFeed,
  deps: { store: BillingStore; logger: Logger },
  webhooks: () => Webhooks,
): () => void {
  const claimed = new Set<string>();
  const log = deps.logger.child({ component: 'usage-alerts' });

  async function check({ account, period, at }: Charged): Promise<void> {
    const alert = account.usageAlert;
    const basis = usageAlertBasis(account);
    if (!alert || !basis) return;
    const key = (t: number) => `${account.id}\u0000${period}\u0000${t}`;
    const open = alert.thresholds.filter((t) => !claimed.has(key(t)));
    if (open.length === 0) return;
    const u = await deps.store.usage(account.id, period);
    for (const t of open) {
      if (u.used < Math.ceil((basis.lookups * t) / 100)) break;
      if (claimed.size >= MAX_REMEMBERED) claimed.clear();
      claimed.add(key(t));
      if (!(await deps.store.markUsageAlert(account.id, period, String(t)))) continue;
      const end = periodEnd(account, new Date(at));
      const id = await webhooks().send(account, alert.url, {
        type: 'account.usage_threshold',
        id: `${period}:${t}`,
        data: {
          account_id: account.id,
          period,
          threshold_percent: t,
          basis: basis.basis,
          limit: basis.lookups,
          used: u.used,
          overage_used: u.overageUsed,
          period_end: end ? end.toISOString() : null,
        },
      });
      log.info({ account: account.id, period, threshold: t, webhookId: id }, 'usage alert sent');
    }
  }

  return feed.on((c) => {
    if (!c.account.usageAlert) return;
    check(c).catch((err: unknown) => log.warn({ err, account: c.account.id }, 'usage alert not checked'));
  });
}

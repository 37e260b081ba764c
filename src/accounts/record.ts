// The account's own record, as its holder reads it (REST GET /v1/account/usage and /v1/account/charges,
// GraphQL Query.account, MCP account_usage and account_charges): its lookups by UTC day and its charges.
// Read from the account's own keys (its days, its charges' index), never by a scan of every account's.
// Free: no credit and no unit of the rate window.
import type { Logger } from 'pino';
import { chargeLine, chargesCursor, type ChargeLine, type UsageDay } from '../contract/account-record.js';
import type { Account, BillingStore } from '../store/index.js';
import { dayTallyOf } from './usage-days.js';

/** The account's days (from usageDays of the contract), oldest first; this process's own outcomes sent first. */
export async function accountDays(
  store: BillingStore,
  logger: Logger,
  account: Pick<Account, 'id'>,
  days: readonly string[],
): Promise<UsageDay[]> {
  await dayTallyOf(store, logger).flush();
  return (await store.usageDays(account.id, days)).map((d) => ({
    day: d.day,
    lookups: d.lookups,
    live_reads: d.live,
    cache_hits: d.hits,
    stale: d.stale,
    failed: d.failed,
    credits: d.credits,
  }));
}

/** A page of the account's charges, newest first, and the cursor of the next (null: none). */
export async function accountCharges(
  store: BillingStore,
  account: Pick<Account, 'id'>,
  limit: number,
  before: string | null,
): Promise<{ lines: ChargeLine[]; nextCursor: string | null }> {
  const page = await store.accountCharges(account.id, before === null ? { limit } : { limit, before });
  return { lines: page.charges.map(chargeLine), nextCursor: page.next === null ? null : chargesCursor(page.next) };
}

// Each lookup's outcome, recorded once, here in the core, below every face: in the metrics
// (lookups_total), in the request's stats (its log line), and in the account's day counters (its own
// record, accounts/usage-days.ts: live reads, cache hits, stale answers, failed).
import { dayTallyOf, type DayOutcome } from '../accounts/index.js';
import { recordFailed, recordFound } from '../observability/request-stats.js';
import type { Sections } from '../contract/index.js';
import type { RequestContext } from './types.js';

function countDay(ctx: RequestContext, outcome: DayOutcome): void {
  const { store, logger, clock } = ctx.deps;
  dayTallyOf(store, logger).add(ctx.account.id, clock().toISOString().slice(0, 10), outcome);
}

/** A found home, as its consumer (a lookup, a batch item, a GraphQL field) sees it. */
export function foundOutcome(
  ctx: RequestContext,
  found: { cached: boolean; credits: number; provider: string; stale?: boolean; sections?: Sections },
): void {
  recordFound(ctx.deps.metrics, ctx.stats, found);
  countDay(ctx, found.stale ? 'stale' : found.cached ? 'hits' : 'live');
}

/** A failed lookup (its code): never billed. */
export function failedOutcome(ctx: RequestContext, code: string): void {
  recordFailed(ctx.deps.metrics, ctx.stats, code);
  countDay(ctx, 'failed');
}

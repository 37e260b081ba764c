// The per-key rate window, taken by the core's entry points (lookupOne, startBatch, lookupBatch), so
// REST, GraphQL and MCP count the same way: one unit per lookup, a batch's all or none. A GraphQL
// operation takes its lookups' units as a whole before it runs (admitOperation), so it too is all or none.
import { rateLimitedError } from '../accounts/rate-limit.js';
import { failedOutcome } from './outcomes.js';
import type { RequestContext } from './types.js';

/**
 * Takes `lookups` units of the account's window, or throws 429 rate_limited (taking nothing). Background
 * work (job items, watch checks) takes none: its cache hits run at cache speed, and its live reads are
 * bounded by the key's background slots, the site's concurrency and the account's credits.
 */
export async function admitLookups(ctx: RequestContext, lookups: number): Promise<void> {
  if (lookups === 0 || ctx.budget === 'background') return;
  const { allowed, window } = await ctx.deps.limits.take(ctx.account.id, lookups);
  // The answer's RateLimit header reports the key's window after this request's takes: the fewest left
  // (takes of one request may settle in any order), unless a later window has begun since.
  const prev = ctx.stats.rate;
  if (window && (!prev || window.resetSeconds > prev.resetSeconds + 1 || window.remaining < prev.remaining))
    ctx.stats.rate = window;
  if (allowed) return;
  ctx.deps.metrics.rateLimited.inc({ limit: 'lookups_per_minute' });
  // Each refused lookup is an outcome the client sees, counted as a live-cap refusal is (lookups_total).
  for (let i = 0; i < lookups; i += 1) failedOutcome(ctx, 'rate_limited');
  throw rateLimitedError(window!, lookups);
}

/**
 * The units an operation of several lookups took as one (all or none): its lookups draw on them
 * instead of taking their own, and each one of a refused operation fails with its refusal.
 */
export class Admission {
  #left: number;
  readonly #refusal: Promise<unknown>;

  constructor(
    private readonly ctx: RequestContext,
    lookups: number,
  ) {
    this.#left = lookups;
    // Settled as a value: an operation whose lookups never draw (all invalid) leaves nothing unhandled.
    this.#refusal = admitLookups(ctx, lookups).then(
      () => null,
      (e: unknown) => e,
    );
  }

  /** Draws `lookups` units, or throws the operation's refusal. Past what was counted up front, takes the rest. */
  async draw(lookups: number): Promise<void> {
    const refused = await this.#refusal;
    if (refused) throw refused;
    const counted = Math.min(lookups, this.#left);
    this.#left -= counted;
    if (lookups > counted) await admitLookups(this.ctx, lookups - counted);
  }
}

/** Takes the units of all `lookups` an operation asks for, at once. */
export const admitOperation = (ctx: RequestContext, lookups: number): Admission => new Admission(ctx, lookups);

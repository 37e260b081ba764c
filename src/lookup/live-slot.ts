// The key's live-lookup slots (MAX_LIVE_PER_KEY, across its requests and instances) are held only by a
// lookup that reads upstream itself: the leader of a home's read (from the moment it has the flight and
// the home's lock) and an address's resolution. A lookup that joins another's read of the same home, in
// this process or through the cross-instance lock, holds none: followers never crowd out the homes
// nobody is reading, and concurrent asks of one home by one key are never refused for the cap.
import { liveCapError, maxLiveOf } from '../accounts/rate-limit.js';
import { lookupSignal } from './deadline.js';
import type { RequestContext } from './types.js';

/** How long a background lookup waits for one of its key's background slots before it is put off. */
const BACKGROUND_SLOT_WAIT_MS = 2_000;

/**
 * One of the key's live-lookup slots (across its requests and instances). A lookup beside others of
 * its own request waits for one: those end and give theirs back, so a batch never refuses itself; the
 * wait ends with the client, the request's deadline or the lookup timeout. A request with none of
 * its own under way is refused at once: the key's slots are all held by its other requests, and the
 * unit of the window it took is given back (a refusal takes nothing). Background work always waits
 * for one of its own pool's slots, but briefly (BACKGROUND_SLOT_WAIT_MS): it waits holding the home's
 * flight and lock, which other keys' reads of the home would wait on; refused, its item runs in a later
 * round of its chunk (jobs/chunk.ts) or its check again shortly (watches), never failing.
 */
export async function holdLiveSlot(ctx: RequestContext): Promise<() => void> {
  const { limits } = ctx.deps;
  const wait =
    ctx.budget === 'background'
      ? AbortSignal.any([lookupSignal(ctx), ctx.deps.timeLimits.after('background_slot_wait', BACKGROUND_SLOT_WAIT_MS)])
      : ctx.liveLookups > 0
        ? lookupSignal(ctx)
        : undefined;
  ctx.liveLookups += 1;
  let releaseLive: (() => void) | null = null;
  try {
    releaseLive = await limits.holdLive(ctx.account.id, wait, ctx.budget);
  } finally {
    if (!releaseLive) ctx.liveLookups -= 1;
  }
  if (releaseLive) {
    const held = releaseLive;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      ctx.liveLookups -= 1;
      held();
    };
  }
  ctx.deps.metrics.rateLimited.inc({ limit: 'live_lookups' });
  ctx.stats.failed('rate_limited');
  if (ctx.budget === 'interactive') await limits.give(ctx.account.id, 1);
  throw liveCapError(maxLiveOf(limits.settings, ctx.budget));
}

// When a request's lookups stop: its client went away (ctx.signal) or its deadline passed (ctx.deadline).
// And the one place a read's context is built for the collector: aborted by either, or by the lookup
// timeout.
import { LookupError, type LookupOptions } from '../contract/index.js';
import type { ReadContext } from '../collector/types.js';
import type { RequestContext } from './types.js';

export const aborted = (ctx: RequestContext): boolean => ctx.signal.aborted || (ctx.deadline?.aborted ?? false);

export function deadlineError(ctx: RequestContext, cause: unknown): LookupError {
  if (ctx.deadline?.aborted)
    return new LookupError('batch_deadline', { cause, details: { reason: 'aborted at the deadline' } });
  // The face's own reason when it has one (the drain at shutdown: upstream_busy, reason shutting_down).
  if (ctx.signal.reason instanceof LookupError) return ctx.signal.reason;
  return new LookupError('upstream_timeout', { cause, details: { reason: 'client_closed' } });
}

export function throwIfAborted(ctx: RequestContext): void {
  if (aborted(ctx)) throw deadlineError(ctx, undefined);
}

/** Waits `ms`, or less when the request ends meanwhile (the caller then checks throwIfAborted). */
export function sleep(ms: number, ctx: RequestContext): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    const signals = [ctx.signal, ctx.deadline].filter((s): s is AbortSignal => s !== null);
    function done() {
      clearTimeout(t);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    }
    for (const s of signals) s.addEventListener('abort', done, { once: true });
  });
}

/** A signal for one lookup's upstream work starting now: aborted when the client goes, the request's deadline passes or the lookup timeout (LOOKUP_TIMEOUT_MS) runs out. */
export const lookupSignal = (ctx: RequestContext): AbortSignal =>
  AbortSignal.any([
    ctx.signal,
    ctx.deps.timeLimits.after('lookup_timeout', ctx.deps.config.lookupTimeoutMs),
    ...(ctx.deadline ? [ctx.deadline] : []),
  ]);

/**
 * The context of one upstream read (a home's page, an address's resolution) starting now, under
 * lookupSignal; `now` is the lookup date, the status hint the lookup's own.
 */
export function readContextFor(ctx: RequestContext, options: LookupOptions, now: Date): ReadContext {
  return {
    signal: lookupSignal(ctx),
    now,
    deadlineAt: Date.now() + ctx.deps.config.lookupTimeoutMs,
    ...(options.status ? { status: options.status } : {}),
  };
}

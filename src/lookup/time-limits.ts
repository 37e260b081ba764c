// The core's time limits as signals, made in one place: a request's deadline (BATCH_DEADLINE_MS), a
// lookup's upstream time (LOOKUP_TIMEOUT_MS) and a background lookup's wait for a slot. The service
// uses the clock (AbortSignal.timeout); a test hands the core limits it passes itself, once what it
// waits for has happened, instead of tuning a duration that a loaded machine may overrun.
import { setMaxListeners } from 'node:events';

export type TimeLimitKind = 'batch_deadline' | 'lookup_timeout' | 'background_slot_wait';

export interface TimeLimits {
  /** A signal that aborts with a TimeoutError once `ms` have passed (already aborted when `ms` ≤ 0). */
  after(kind: TimeLimitKind, ms: number): AbortSignal;
}

export const timedOut = (message: string): DOMException => new DOMException(message, 'TimeoutError');

/** The clock's limits. Every lookup of a batch may listen to one signal: no listener cap. */
export const clockTimeLimits: TimeLimits = {
  after(_kind, ms) {
    const signal = ms > 0 ? AbortSignal.timeout(Math.ceil(ms)) : AbortSignal.abort(timedOut('The time limit passed.'));
    setMaxListeners(0, signal);
    return signal;
  },
};

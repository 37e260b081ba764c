// One actor run through the asynchronous run API: start it, wait for it (at most 60 s per request),
// read its dataset once it has ended. A run whose lookup is abandoned (the caller left, the batch
// deadline or the lookup's time limit passed, or any failure after the start) is aborted, so it stops
// spending; the abort is sent without waiting for it, so an abandoned lookup answers at once. Its
// own timeout ends before the lookup's deadline, in case the abort cannot reach the platform.
import type { Logger } from 'pino';
import { LookupError, isLookupError } from '../../contract/index.js';
import type { Json } from '../mapping/values.js';
import { transportError } from '../http-errors.js';
import type { ReadContext } from '../types.js';
import type { CostCap } from './cost-cap.js';
import { BELOW_MINIMUM_CAP } from './errors.js';
import { MAX_WAIT_SECONDS, TERMINAL_STATUSES, type PlatformClient, type Run } from './platform.js';

export interface RunResult {
  run: Run;
  /** The dataset's items, whatever the run's status: an aborted or timed-out run may hold (and have charged for) ours. */
  items: unknown[];
}

export interface RunOptions {
  client: PlatformClient;
  cap: CostCap;
  /** How long we wait for the run at most, end to end. */
  timeoutMs: number;
  logger: Logger;
}

const ABORT_MS = 5_000;

/** The run's own timeout: a sixth shorter than our wait (50 s of 60 s), at least one second. */
export const runTimeoutSecs = (waitMs: number): number => Math.max(1, Math.floor((waitMs * 5) / 6 / 1000));

/** Runs the actor on `input` for the lookup `ctx` describes: its caller signal, and the deadline the run gets no time past. */
export async function runActor(
  o: RunOptions,
  input: Json,
  ctx: Pick<ReadContext, 'signal' | 'deadlineAt'>,
): Promise<RunResult> {
  const began = Date.now();
  const waitUntil = Math.min(ctx.deadlineAt ?? Infinity, began + o.timeoutMs);
  const ourLimit = AbortSignal.timeout(Math.max(0, waitUntil - began));
  const signal = AbortSignal.any([ctx.signal, ourLimit]);
  const abandoned = (e: unknown, runId: string | null): LookupError => {
    if (ourLimit.aborted && !ctx.signal.aborted) {
      return new LookupError('upstream_timeout', {
        details: { reason: 'timeout', ...(runId ? { run_id: runId } : {}) },
        cause: e,
      });
    }
    return transportError(e, signal) as LookupError;
  };

  // A run started with no time left would be paid for and aborted at once.
  if (ctx.signal.aborted) throw transportError(ctx.signal.reason, ctx.signal) as LookupError;
  if (waitUntil <= began) throw new LookupError('upstream_timeout', { details: { reason: 'timeout' } });

  const starting = start(o, input, runTimeoutSecs(waitUntil - began), signal);
  let run: Run;
  try {
    run = await untilAborted(starting, signal);
  } catch (e) {
    // The start may still create a run: once its answer names it, it is aborted.
    if (signal.aborted)
      void starting.then(
        (r) => abort(o, r),
        () => undefined,
      );
    throw abandoned(e, null);
  }
  try {
    while (!TERMINAL_STATUSES.has(run.status)) {
      run = await o.client.wait(run.id, Math.min(MAX_WAIT_SECONDS, (waitUntil - Date.now()) / 1000), signal);
    }
    return { run, items: await o.client.items(run.id, signal) };
  } catch (e) {
    void abort(o, run);
    throw signal.aborted || !isLookupError(e) ? abandoned(e, run.id) : e;
  }
}

/** Starts the run; a cap refused as below the actor's minimum is read again and the start retried once, unless the lookup was abandoned meanwhile. */
async function start(o: RunOptions, input: Json, timeoutSecs: number, signal: AbortSignal): Promise<Run> {
  const capUsd = o.cap.current();
  try {
    return await o.client.start(input, { timeoutSecs, maxTotalChargeUsd: capUsd });
  } catch (e) {
    if (!isLookupError(e) || e.details?.provider_error !== BELOW_MINIMUM_CAP) throw e;
    await untilAborted(o.cap.refresh(), signal);
    const raised = o.cap.current();
    if (raised <= capUsd || signal.aborted) throw e;
    return o.client.start(input, { timeoutSecs, maxTotalChargeUsd: raised });
  }
}

/** `p`, or a rejection as soon as `signal` aborts (p goes on; its outcome is then ignored). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Stops a run that is still going; sent and logged, never waited for by the lookup. */
async function abort(o: RunOptions, run: Run): Promise<void> {
  if (TERMINAL_STATUSES.has(run.status)) return;
  try {
    await o.client.abort(run.id, ABORT_MS);
  } catch (err) {
    o.logger.warn({ err, runId: run.id }, 'could not abort an abandoned fallback run; its own timeout ends it');
  }
}

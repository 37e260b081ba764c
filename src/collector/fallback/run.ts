// One actor run through the asynchronous run API: start it, wait for it (at most 60 s per request),
// read its dataset once it has succeeded. A run whose lookup is abandoned (the caller left, the batch
// deadline or the lookup's time limit passed, or any failure after the start) is aborted, so it stops
// spending; its own timeout is shorter than our wait, in case the abort cannot reach the platform.
import type { Logger } from 'pino';
import { LookupError, isLookupError } from '../../contract/index.js';
import type { Json } from '../mapping/values.js';
import { transportError } from '../site-client.js';
import type { CostCap } from './cost-cap.js';
import { BELOW_MINIMUM_CAP } from './errors.js';
import { MAX_WAIT_SECONDS, TERMINAL_STATUSES, type PlatformClient, type Run } from './platform.js';

export interface RunResult {
  run: Run;
  /** The dataset's items; empty unless the run succeeded. */
  items: unknown[];
}

export interface RunOptions {
  client: PlatformClient;
  cap: CostCap;
  /** How long we wait for the run, end to end. */
  timeoutMs: number;
  logger: Logger;
}

const ABORT_MS = 5_000;

/** The run's own timeout: a sixth shorter than our wait (50 s of 60 s), at least one second. */
export const runTimeoutSecs = (waitMs: number): number => Math.max(1, Math.floor((waitMs * 5) / 6 / 1000));

export async function runActor(o: RunOptions, input: Json, callerSignal: AbortSignal): Promise<RunResult> {
  const ourLimit = AbortSignal.timeout(o.timeoutMs);
  const signal = AbortSignal.any([callerSignal, ourLimit]);
  const waitUntil = Date.now() + o.timeoutMs;
  const abandoned = (e: unknown, runId: string | null): LookupError => {
    if (ourLimit.aborted && !callerSignal.aborted) {
      return new LookupError('upstream_timeout', { details: { reason: 'timeout', ...(runId ? { run_id: runId } : {}) }, cause: e });
    }
    return transportError(e, signal) as LookupError;
  };

  let run: Run;
  try {
    run = await start(o, input, signal);
  } catch (e) {
    throw abandoned(e, null);
  }
  try {
    while (!TERMINAL_STATUSES.has(run.status)) {
      run = await o.client.wait(run.id, Math.min(MAX_WAIT_SECONDS, (waitUntil - Date.now()) / 1000), signal);
    }
    const items = run.status === 'SUCCEEDED' ? await o.client.items(run.id, signal) : [];
    return { run, items };
  } catch (e) {
    if (!TERMINAL_STATUSES.has(run.status)) await abort(o, run.id);
    throw signal.aborted || !isLookupError(e) ? abandoned(e, run.id) : e;
  }
}

/** Starts the run; a cap refused as below the actor's minimum is read again and the start retried once. */
async function start(o: RunOptions, input: Json, signal: AbortSignal): Promise<Run> {
  const timeoutSecs = runTimeoutSecs(o.timeoutMs);
  const capUsd = o.cap.current();
  try {
    return await o.client.start(input, { timeoutSecs, maxTotalChargeUsd: capUsd }, signal);
  } catch (e) {
    if (!isLookupError(e) || e.details?.provider_error !== BELOW_MINIMUM_CAP) throw e;
    await o.cap.refresh();
    const raised = o.cap.current();
    if (raised <= capUsd) throw e;
    return o.client.start(input, { timeoutSecs, maxTotalChargeUsd: raised }, signal);
  }
}

async function abort(o: RunOptions, runId: string): Promise<void> {
  try {
    await o.client.abort(runId, ABORT_MS);
  } catch (err) {
    o.logger.warn({ err, runId }, 'could not abort an abandoned fallback run; its own timeout ends it');
  }
}

// Idempotent requests (docs/idempotency.md), the one rule both faces use: a request sent with an
// Idempotency-Key runs once per account and key; a retry of the same request within a day is given the
// first run's answer again (replayed: nothing read, nothing billed), and one arriving while the first
// still runs waits for that answer (at most IDEMPOTENCY_WAIT_MS). The key lives in the store, so a retry
// sent to another instance meets it too.
//
// The first run's claim is a lease (holdings.ts renews it while the run goes on): a crashed instance's
// claim lapses, and the retry then runs again. That second run bills nothing twice: the homes the first
// run read and billed were cached as they were read, so they are hits now.
//
// Which answers are kept: the run's final answer, whatever its status, unless it is a transient refusal
// a retry should run past: a status of 401, 429 or 5xx, or an error with a transient code anywhere in it
// (the error table's `transient` column: the key's rate window or API key, the store, an instance too
// busy, an internal failure, items the batch deadline left unstarted), or an answer made after its
// client went away (its lookups were cut short: the client's retry must not be given that), or an
// answer larger than IDEMPOTENCY_MAX_ANSWER_BYTES (kept a day under any fresh key, free answers of cached
// homes would fill the store). Then the key is released and the retry runs; the store keeps the run's
// start with the key, and the retry takes any home read since as fresh, max_age aside (retryFreshness),
// so what the first run billed is not billed again.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { isTransient, LookupError } from '../contract/index.js';
import type { ClaimRef, StoredAnswer } from '../store/index.js';
import { holdingsOf } from './holdings.js';
import type { Freshness } from './cache-policy.js';
import type { RequestContext } from './types.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set (to `true`) on an answer given again to a retry. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a run's answer is kept for its retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How often a retry waiting for a run on another instance looks again (one on this instance wakes it at once). */
const POLL_MS = 200;

/** A run's answer, with the codes of errors it shows that are no failed lookup (GraphQL: request-level errors); every failed lookup's code is in ctx.stats already. */
export interface RunAnswer extends StoredAnswer {
  codes: readonly string[];
}

export interface IdempotentAnswer {
  answer: StoredAnswer;
  /** True: the answer of an earlier run with the key, given again. */
  replayed: boolean;
}

/** The values of the Idempotency-Key header lines among Node's raw headers (name, value, name, value, …). */
export function idempotencyHeaderLines(rawHeaders: readonly string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === IDEMPOTENCY_HEADER) lines.push(rawHeaders[i + 1]!);
  return lines;
}

/**
 * The Idempotency-Key header's key (one value, or its header lines); null when it is absent. 1 to 255
 * printable ASCII characters (space to `~`) on one line, else bad_param, before anything runs: two lines
 * would read as one key joined by a comma, which the retry may not repeat.
 */
export function idempotencyKeyOf(header: string | readonly string[] | null | undefined): string | null {
  if (header === undefined || header === null || (typeof header !== 'string' && header.length === 0)) return null;
  const value = typeof header === 'string' ? header : header[0]!;
  const reason =
    typeof header !== 'string' && header.length > 1
      ? 'sent more than once'
      : value.length === 0
        ? 'empty'
        : value.length > MAX_IDEMPOTENCY_KEY_LENGTH
          ? `${value.length} characters, more than ${MAX_IDEMPOTENCY_KEY_LENGTH}`
          : /^[\x20-\x7e]+$/.test(value)
            ? null
            : 'not printable ASCII';
  if (reason === null) return value;
  throw new LookupError('bad_param', {
    message: `The Idempotency-Key header must be sent once, with 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`,
    details: { param: 'Idempotency-Key', reason },
  });
}

/**
 * The identity of a request, what a retry must repeat: the face's parts (which operation, its query
 * string, its body in a canonical form), hashed.
 */
export const requestIdentity = (parts: readonly string[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('base64url');

/** How deep a body under an Idempotency-Key may nest (a batch body is 3, GraphQL variables rarely 10). */
export const MAX_IDENTITY_DEPTH = 1000;

/**
 * A parsed body's JSON for requestIdentity. JSON.parse reads a value nested a million deep; JSON.stringify
 * overflowed the stack on one a few thousand deep up to Node 24, and Node 26 writes it. So the depth is
 * checked first (iteratively, so the check itself cannot overflow): a body nested deeper than
 * MAX_IDENTITY_DEPTH is the client's, 400 bad_body, on every Node, not a 500.
 */
export function identityJson(value: unknown): string {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_IDENTITY_DEPTH) throw nestedTooDeep();
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw nestedTooDeep();
  }
}

const nestedTooDeep = (): LookupError =>
  new LookupError('bad_body', {
    message: 'The body is nested too deep to be read.',
    details: { reason: 'nested too deep' },
  });

/** Whether an answer is kept for retries (see the top of this file). */
export const isKept = (a: RunAnswer): boolean =>
  a.status < 500 && a.status !== 429 && a.status !== 401 && !a.codes.some(isTransient);

/**
 * What a retry of a run not kept takes as a hit: also any read made since that run began, max_age aside
 * (it asked for homes as fresh as at its first attempt), so a home that run read and billed is billed once.
 */
export function retryFreshness(ctx: RequestContext, f: Freshness): Freshness {
  const since = ctx.retrySince;
  return since === undefined
    ? f
    : { notBefore: Math.min(f.notBefore, since), incompleteNotBefore: Math.min(f.incompleteNotBefore, since) };
}

/** Wakes the retries waiting on this instance when a run with their key ends here. */
const settled = new EventEmitter().setMaxListeners(0);
const slotOf = (ref: ClaimRef): string => `${ref.accountId}\u0000${ref.key}`;

/**
 * Runs `run` once for the account's key and request identity, or gives the answer of the run that had
 * the key: see the top of this file. Throws idempotency_key_reused (the key was used for another
 * request) and idempotency_key_in_use (the first run did not answer within IDEMPOTENCY_WAIT_MS).
 */
export async function runIdempotent(
  ctx: RequestContext,
  key: string,
  identity: string,
  run: () => Promise<RunAnswer>,
): Promise<IdempotentAnswer> {
  const { store, config, metrics } = ctx.deps;
  const ref: ClaimRef = {
    accountId: ctx.account.id,
    key,
    token: ctx.deps.newId(),
    startedAt: ctx.deps.clock().getTime(),
  };
  const waitUntil = performance.now() + config.idempotencyWaitMs;
  for (;;) {
    const found = await store.claimIdempotency(ref, identity, config.leaseTtlMs);
    if (found.state === 'claimed') {
      if (found.since !== undefined) ctx.retrySince = found.since;
      break;
    }
    if (found.bodyHash !== identity) {
      metrics.idempotentRequests.inc({ outcome: 'key_reused' });
      throw new LookupError('idempotency_key_reused', {
        details: {
          reason: found.state === 'done' ? 'answered another request' : 'another request with this key is running',
        },
      });
    }
    if (found.state === 'done') {
      metrics.idempotentRequests.inc({ outcome: 'replayed' });
      return { answer: found.answer, replayed: true };
    }
    if (!(await waitForRun(ref, waitUntil, ctx.signal))) {
      metrics.idempotentRequests.inc({ outcome: 'key_in_use' });
      throw new LookupError('idempotency_key_in_use', { details: { waited_ms: config.idempotencyWaitMs } });
    }
  }
  const holdings = holdingsOf(store, config.leaseTtlMs, ctx.deps.logger);
  holdings.holdClaim(ref);
  let answer: RunAnswer;
  try {
    answer = await run();
  } catch (e) {
    holdings.dropClaim(ref);
    metrics.idempotentRequests.inc({ outcome: 'not_kept' });
    await settle(ctx, ref, null);
    throw e;
  }
  holdings.dropClaim(ref);
  // The face's codes are those its answer shows; the core's are every lookup's, shown or not (a GraphQL
  // item's error as data, its code unselected).
  // A larger answer is not kept (free answers of cached homes, raw records above all, would otherwise
  // fill the store under fresh keys); its retry runs again, billing nothing this run billed.
  const kept =
    isKept({ ...answer, codes: [...answer.codes, ...ctx.stats.failedCodes] }) &&
    !ctx.signal.aborted &&
    Buffer.byteLength(answer.body) <= config.idempotencyMaxAnswerBytes;
  metrics.idempotentRequests.inc({ outcome: kept ? 'ran' : 'not_kept' });
  await settle(ctx, ref, kept ? answer : null);
  return { answer: { status: answer.status, headers: answer.headers, body: answer.body }, replayed: false };
}

/**
 * Keeps the answer (null: releases the key) and wakes this instance's waiting retries. A store that
 * fails here costs only the replay: the claim lapses with its lease and a retry runs again.
 */
async function settle(ctx: RequestContext, ref: ClaimRef, answer: RunAnswer | null): Promise<void> {
  const { store } = ctx.deps;
  try {
    if (answer)
      await store.completeIdempotency(
        ref,
        { status: answer.status, headers: answer.headers, body: answer.body },
        IDEMPOTENCY_TTL_MS,
      );
    // The run's start stays with the key: its retry takes the homes read since as fresh (retryFreshness).
    else await store.releaseIdempotency(ref, IDEMPOTENCY_TTL_MS);
  } catch (err) {
    ctx.logger.warn({ err }, 'idempotency key not settled: it lapses with its lease, and a retry runs again');
  } finally {
    settled.emit(slotOf(ref));
  }
}

/** Waits until the run holding the key may have ended (woken here, or the next poll); false once `until` has passed. */
function waitForRun(ref: ClaimRef, until: number, signal: AbortSignal): Promise<boolean> {
  const left = until - performance.now();
  if (left <= 0 || signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const slot = slotOf(ref);
    const done = () => {
      clearTimeout(timer);
      settled.off(slot, done);
      signal.removeEventListener('abort', done);
      resolve(true);
    };
    const timer = setTimeout(done, Math.min(POLL_MS, left));
    settled.on(slot, done);
    signal.addEventListener('abort', done);
  });
}

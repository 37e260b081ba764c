// Idempotency keys in the store: per account, a key is first claimed by the request that runs (a lease,
// renewed while it runs, so a crashed instance's claim lapses), then holds that run's answer for a day,
// which a retry with the same key and the same request is given again (src/lookup/idempotency.ts).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

/** A run's answer as it is replayed: the HTTP status, the headers that describe the body, the body. */
export interface StoredAnswer {
  status: number;
  /** Header name (lower case) → value; only those a replay must repeat (content-type, retry-after). */
  headers: Record<string, string>;
  body: string;
}

/** A claim held by a running request: only its token can renew, complete or release it. */
export interface ClaimRef {
  accountId: string;
  key: string;
  token: string;
  /** When the run began (the service clock, ms): kept with the claim, and past a release (see releaseIdempotency). */
  startedAt?: number;
}

export type ClaimResult =
  /**
   * The caller runs the request and then completes or releases the claim. `since`: an earlier run of the
   * same request under the key was released (not kept) and began then; this run is its retry.
   */
  | { state: 'claimed'; since?: number }
  /** Another request with this key is running (its lease not lapsed). */
  | { state: 'running'; bodyHash: string }
  /** A request with this key ran: its answer, and the hash of the request it answered. */
  | { state: 'done'; bodyHash: string; answer: StoredAnswer };

export interface IdempotencyStore {
  /**
   * Atomically: a key with no live claim nor answer is claimed for `leaseMs` under `token`; otherwise
   * what is there. The request's identity (`bodyHash`) is kept with the claim and with the answer.
   */
  claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult>;
  /** Replaces the claim by the answer, kept `ttlMs`; false (nothing written) when the claim is no longer held under its token. */
  completeIdempotency(ref: ClaimRef, answer: StoredAnswer, ttlMs: number): Promise<boolean>;
  /**
   * Drops the claim, if still held under its token, so the next request with the key runs. With `keepMs`
   * the run's start is kept that long: the next claim of the same request is told it (`since`).
   */
  releaseIdempotency(ref: ClaimRef, keepMs?: number): Promise<void>;
  /** Extends the claims held under their tokens to `leaseMs` from now; returns the tokens of those no longer held. */
  renewIdempotency(refs: readonly ClaimRef[], leaseMs: number): Promise<string[]>;
}

/** Where a key is kept: the account and the client's key hashed together (any characters, one length). */
export const idempotencySlot = (accountId: string, key: string): string =>
  createHash('sha256').update(accountId).update('\u0000').update(key).digest('base64url');

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * An answer as both stores keep it: its status and headers as a JSON line, then its body, compressed
 * (a 50-home batch answer is a few hundred KB of repetitive JSON: about a tenth of that), on libuv's pool.
 */
export async function packAnswer(answer: StoredAnswer): Promise<Buffer> {
  const text = `${JSON.stringify({ status: answer.status, headers: answer.headers })}\n${answer.body}`;
  return compress(Buffer.from(text), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) },
  });
}

/** The answer packed by packAnswer, or null when the bytes are damaged (then the key reads as free). */
export async function unpackAnswer(packed: Buffer): Promise<StoredAnswer | null> {
  try {
    const text = (await decompress(packed)).toString('utf8');
    const end = text.indexOf('\n');
    const head = JSON.parse(text.slice(0, end)) as { status?: unknown; headers?: unknown };
    if (end < 0 || typeof head.status !== 'number' || typeof head.headers !== 'object' || head.headers === null)
      return null;
    return { status: head.status, headers: head.headers as Record<string, string>, body: text.slice(end + 1) };
  } catch {
    return null;
  }
}

// Failures of got (the fallback platform's HTTP client) as spec codes, and the few HTTP facts both the
// platform client and the listing site's client read the same way (retry-after, the body size bound).
import { MaxRedirectsError, ReadError, RequestError, TimeoutError } from 'got';
import { LookupError } from '../contract/index.js';

/** The largest body accepted from an upstream, after decompression. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** The caller's cancellation: its reason when that is a LookupError (e.g. batch_deadline), else upstream_timeout `aborted`. */
export function cancelled(signal: AbortSignal, cause: unknown): LookupError {
  if (signal.reason instanceof LookupError) return signal.reason;
  // The lookup's own time limit (an AbortSignal.timeout in the core): the read took too long.
  if (signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError') {
    return new LookupError('upstream_timeout', { details: { reason: 'timeout' }, cause });
  }
  return new LookupError('upstream_timeout', {
    message: 'The lookup was cancelled before the data provider answered.',
    details: { reason: 'aborted' },
    cause,
  });
}

/**
 * Maps a got failure (or a cancellation) to a spec code. Cancellation by the caller's signal wins.
 * Anything not from got is returned unchanged.
 */
export function transportError(e: unknown, signal: AbortSignal): unknown {
  if (e instanceof LookupError) return e;
  if (signal.aborted) return cancelled(signal, e);
  if (e instanceof TimeoutError)
    return new LookupError('upstream_timeout', { details: { reason: 'timeout', phase: e.event }, cause: e });
  if (e instanceof MaxRedirectsError)
    return new LookupError('upstream_bad_response', { details: { reason: 'too_many_redirects' }, cause: e });
  // Details say what happened in words a client can use; the transport's own code stays in the cause.
  if (e instanceof ReadError)
    return new LookupError('upstream_bad_response', { details: { reason: 'truncated' }, cause: e });
  if (e instanceof RequestError)
    return new LookupError('upstream_unreachable', { details: { reason: 'connection_failed' }, cause: e });
  return e;
}

/** Seconds from a retry-after header (seconds or an HTTP date), else the fallback. */
export function retryAfterSeconds(
  header: string | string[] | null | undefined,
  fallback: number,
  now = Date.now(),
): number {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return fallback;
  if (/^\d+$/.test(v.trim())) return Math.max(1, Number(v.trim()));
  const at = Date.parse(v);
  return Number.isNaN(at) ? fallback : Math.max(1, Math.ceil((at - now) / 1000));
}

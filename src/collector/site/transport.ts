// One request to the listing site on one session's client: impit, which speaks as the pinned Chrome
// does on the wire (its TLS ClientHello, HTTP/2, its header set and order; docs/collector.md). A
// document goes out as a navigation; the suggestion call as the cross-site fetch the site's own page
// makes. Redirects are followed here, one at a time and only within the requested origin; the body is
// read as a stream and cut at the size bound; the caller's signal and the attempt's time bound stop it.
// Every failure is a LookupError.
import impit, { type Impit, type ImpitResponse } from 'impit';
import { LookupError } from '../../contract/index.js';
import { cancelled, retryAfterSeconds } from '../http-errors.js';
import { isBotWallBytes } from '../page/index.js';

/** A body that fails this close to the read's end failed for its timeout, not for the site. */
const TIMEOUT_SLACK_MS = 100;

export type RequestKind = 'document' | 'suggest';

export interface SiteAnswer {
  status: number;
  /** The final URL, after same-origin redirects. */
  url: string;
  body: Buffer;
}

export interface RequestOptions {
  /** Told of each request made (a redirect is one more): the session's count of documents. */
  onRequest?: () => void;
  /** Told of a request abandoned before its answer's head (impit cannot stop it): settles when it is over. */
  onAbandoned?: (over: Promise<unknown>) => void;
  signal: AbortSignal;
  /** This attempt's bound, all redirects included. */
  timeoutMs: number;
  maxBytes: number;
  /** The listing site's origin: the Origin and Referer a page of it would send. */
  siteOrigin: string;
  /** A document after another one of the session: a click on the site (same-origin, with a referer). */
  referer?: string;
}

const MAX_REDIRECTS = 5;
// impit's error classes are properties of its CommonJS export, not named exports Node's ESM loader can see.
const { DecodingError, ProxyAuthRequired, ProxyError, ProxyTunnelError, ReadError, TimeoutError } = impit;

/**
 * Headers beyond the profile's own (user-agent, client hints, accept, the navigation's sec-fetch-*,
 * priority, in Chrome's order). Chrome sends these on a navigation typed into the address bar (`none`)
 * or reached from a page of the site; the suggestion call is a fetch from the site's page to another
 * site (an empty value removes a header of the profile's).
 */
function headersFor(kind: RequestKind, o: RequestOptions): Record<string, string> {
  if (kind === 'suggest') {
    return {
      accept: '*/*',
      origin: o.siteOrigin,
      referer: `${o.siteOrigin}/`,
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'cors',
      'sec-fetch-dest': 'empty',
      'sec-fetch-user': '',
      'upgrade-insecure-requests': '',
      priority: 'u=1, i',
    };
  }
  return o.referer
    ? { 'upgrade-insecure-requests': '1', 'sec-fetch-site': 'same-origin', referer: o.referer }
    : { 'upgrade-insecure-requests': '1', 'sec-fetch-site': 'none' };
}

export async function siteRequest(
  client: Impit,
  url: string,
  kind: RequestKind,
  o: RequestOptions,
): Promise<SiteAnswer> {
  const origin = new URL(url).origin;
  const end = performance.now() + Math.max(1, o.timeoutMs);
  const { signal: bound, dispose } = bounded(o.signal, o.timeoutMs);
  let at = url;
  try {
    for (let hop = 0; ; hop++) {
      // impit's own timeout as well as the signal: only its timeout drops the connection (a tarpit is hung up on).
      const timeout = Math.max(1, end - performance.now());
      o.onRequest?.();
      // A redirect keeps the navigation's own headers (a typed one stays `none`, with no referer), as Chrome's does.
      const res = await headOrAbort(
        client.fetch(at, { headers: headersFor(kind, o), redirect: 'manual', timeout }),
        bound,
        o.onAbandoned,
      );
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      const next = location ? safeUrl(location, at) : null;
      if (next && next.origin === origin && hop < MAX_REDIRECTS) {
        await res.body.cancel().catch(() => undefined);
        at = next.toString();
        continue;
      }
      const body = await readBody(res, o.maxBytes, bound).catch((e: unknown) => {
        // The stream's own failure (impit's timeout fired mid-body, or the site cut it short).
        if (e instanceof LookupError || bound.aborted) throw e;
        // impit's own clock may fire its timeout a little before this process's reading of the end.
        throw performance.now() >= end - TIMEOUT_SLACK_MS
          ? new LookupError('upstream_timeout', { details: { reason: 'timeout' }, cause: e })
          : new LookupError('upstream_bad_response', { details: { reason: 'truncated' }, cause: e });
      });
      const failure = statusError(res, body, origin, next, hop >= MAX_REDIRECTS);
      if (failure) throw failure;
      return { status: res.status, url: at, body };
    }
  } catch (e) {
    throw requestError(e, o.signal, bound);
  } finally {
    dispose();
  }
}

/**
 * `signal`, or `ms` passed, as one signal; dispose when done. Not AbortSignal.any: a signal it makes is
 * held weakly, and one collected mid-read never fires (seen: a cancelled read that went on to its end).
 */
export function bounded(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose(): void } {
  const both = new AbortController();
  const onCaller = () => both.abort(signal.reason);
  const timer = setTimeout(
    () => both.abort(new DOMException('The attempt took too long', 'TimeoutError')),
    Math.max(1, ms),
  );
  if (signal.aborted) onCaller();
  else signal.addEventListener('abort', onCaller, { once: true });
  return {
    signal: both.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCaller);
    },
  };
}

/**
 * The answer's head, or the signal's abort. impit given a signal only rejects its promise and lets the
 * request run on; so it is given none, and an answer arriving after the abort has its body cancelled at
 * once, which closes the connection (its own timeout bounds a site that never answers).
 */
function headOrAbort(
  pending: Promise<ImpitResponse>,
  signal: AbortSignal,
  onAbandoned?: (over: Promise<unknown>) => void,
): Promise<ImpitResponse> {
  const abandon = () => onAbandoned?.(pending.then((r) => r.body.cancel()).catch(() => undefined));
  if (signal.aborted) {
    abandon();
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const abort = () => {
      abandon();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    pending.then(
      (r) => {
        signal.removeEventListener('abort', abort);
        if (signal.aborted) void r.body.cancel().catch(() => undefined);
        resolve(r);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}

const safeUrl = (location: string, base: string): URL | null => {
  try {
    return new URL(location, base);
  } catch {
    return null;
  }
};

/** The body, decompressed, cut at maxBytes (a compressed bomb is cut too: the stream gives decoded bytes). */
async function readBody(res: ImpitResponse, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const reader = res.body.getReader();
  // Stopped reading (the caller left, the attempt's time is up): the stream is cancelled, the connection dropped.
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    const body = await readAll(reader, maxBytes);
    // A cancelled stream ends as if complete: what was read is not the page.
    signal.throwIfAborted();
    return body;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new LookupError('upstream_bad_response', { details: { reason: 'too_large', maxBytes } });
    }
    chunks.push(value);
  }
}

const blocked = (reason: string, status: number) =>
  new LookupError('upstream_blocked', { details: { reason, status } });

/** Answers of the listing site as spec codes; null for a page. A wall is told by its body, whatever its status. */
function statusError(
  res: ImpitResponse,
  body: Buffer,
  origin: string,
  redirect: URL | null,
  tooMany: boolean,
): LookupError | null {
  const status = res.status;
  if (status >= 200 && status < 300) return isBotWallBytes(body) ? blocked('bot_wall', status) : null;
  if (status >= 300 && status < 400) {
    if (tooMany) return new LookupError('upstream_bad_response', { details: { reason: 'too_many_redirects', status } });
    const reason = redirect && redirect.origin !== origin ? 'offsite_redirect' : 'bad_redirect';
    return new LookupError('upstream_bad_response', { details: { reason, status } });
  }
  if (status === 404 || status === 410) {
    return new LookupError('not_found', {
      details: { reason: status === 404 ? 'page_not_found' : 'page_gone', status },
    });
  }
  if (status === 403) return blocked(isBotWallBytes(body) ? 'bot_wall' : 'forbidden', status);
  if (status === 429) {
    return new LookupError('upstream_busy', {
      details: { reason: 'rate_limited', status },
      retryAfter: retryAfterSeconds(res.headers.get('retry-after'), 30),
    });
  }
  return new LookupError('upstream_error', { details: { status } });
}

/** impit's failures as spec codes. The caller's cancellation wins; the attempt's own bound is a timeout. */
function requestError(e: unknown, caller: AbortSignal, bound: AbortSignal): unknown {
  if (e instanceof LookupError) return e;
  if (caller.aborted) return cancelled(caller, e);
  if (bound.aborted || e instanceof TimeoutError)
    return new LookupError('upstream_timeout', { details: { reason: 'timeout' }, cause: e });
  if (e instanceof ProxyAuthRequired)
    return new LookupError('upstream_unreachable', { details: { reason: 'proxy_refused', status: 407 }, cause: e });
  if (e instanceof ProxyTunnelError) {
    return new LookupError('upstream_unreachable', {
      details: { reason: 'proxy_refused', ...(e.status ? { status: e.status } : {}) },
      cause: e,
    });
  }
  if (e instanceof ProxyError)
    return new LookupError('upstream_unreachable', { details: { reason: 'proxy_refused' }, cause: e });
  if (e instanceof DecodingError || e instanceof ReadError)
    return new LookupError('upstream_bad_response', { details: { reason: 'truncated' }, cause: e });
  // ConnectError and anything else impit throws (it rethrows native errors it has no class for as plain Errors).
  return new LookupError('upstream_unreachable', { details: { reason: 'connection_failed' }, cause: e });
}

// The listing site over HTTP (got 14). got has no timeouts by default and retries timeouts, which
// would multiply a lookup's worst case; here every phase has a bound, the whole request is bounded by
// the lookup timeout, and the only retry is one immediate re-send after a connection reset (a reused
// keep-alive socket the server had already closed: the request never reached it, so re-sending is safe
// and cheap). Redirects are followed only within the requested origin. Every failure is a LookupError.
import got, { MaxRedirectsError, ReadError, RequestError, TimeoutError, type Got, type PlainResponse, type Response } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { LookupError } from '../contract/index.js';
import { isBotWallBytes } from './page/index.js';

export interface PhaseTimeouts {
  lookup: number;
  connect: number;
  secureConnect: number;
  send: number;
  /** Until the response headers arrive. */
  response: number;
  /** Socket idle time. */
  socket: number;
}

export const DEFAULT_PHASE_TIMEOUTS: PhaseTimeouts = {
  lookup: 5_000,
  connect: 5_000,
  secureConnect: 5_000,
  send: 10_000,
  response: 30_000,
  socket: 20_000,
};

/** got's timeout option: each phase, and the whole request, bounded by `totalMs`. */
export function boundedTimeouts(totalMs: number, phases: Partial<PhaseTimeouts> = {}): PhaseTimeouts & { request: number } {
  const p = { ...DEFAULT_PHASE_TIMEOUTS, ...phases };
  const cap = (ms: number) => Math.max(1, Math.min(ms, totalMs));
  return {
    lookup: cap(p.lookup),
    connect: cap(p.connect),
    secureConnect: cap(p.secureConnect),
    send: cap(p.send),
    response: cap(p.response),
    socket: cap(p.socket),
    request: Math.max(1, totalMs),
  };
}

/** One re-send on a reset connection; timeouts and HTTP statuses are never retried. */
export const RETRY_ON_RESET = {
  limit: 1,
  methods: ['GET' as const],
  statusCodes: [] as number[],
  errorCodes: ['ECONNRESET', 'EPIPE'],
  calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue === 0 ? 0 : 50),
};

/**
 * Maps a transport failure (got error or cancellation) to a spec code. Cancellation by the caller's
 * signal wins: its reason is re-thrown when it is a LookupError (e.g. batch_deadline), else it is
 * `upstream_timeout` with `details.reason: 'aborted'`. Anything not from got is returned unchanged.
 */
export function transportError(e: unknown, signal: AbortSignal): unknown {
  if (e instanceof LookupError) return e;
  if (signal.aborted) {
    if (signal.reason instanceof LookupError) return signal.reason;
    return new LookupError('upstream_timeout', {
      message: 'The lookup was cancelled before the data provider answered.',
      details: { reason: 'aborted' },
      cause: e,
    });
  }
  if (e instanceof TimeoutError) return new LookupError('upstream_timeout', { details: { reason: 'timeout', phase: e.event }, cause: e });
  if (e instanceof MaxRedirectsError) return new LookupError('upstream_bad_response', { details: { reason: 'too_many_redirects' }, cause: e });
  // Details say what happened in words a client can use; the transport's own code stays in the cause.
  if (e instanceof ReadError) return new LookupError('upstream_bad_response', { details: { reason: 'truncated' }, cause: e });
  if (e instanceof RequestError) return new LookupError('upstream_unreachable', { details: { reason: 'connection_failed' }, cause: e });
  return e;
}

/** Seconds from a retry-after header (seconds or an HTTP date), else the fallback. */
export function retryAfterSeconds(header: string | string[] | undefined, fallback: number, now = Date.now()): number {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return fallback;
  if (/^\d+$/.test(v.trim())) return Math.max(1, Number(v.trim()));
  const at = Date.parse(v);
  return Number.isNaN(at) ? fallback : Math.max(1, Math.ceil((at - now) / 1000));
}

const BROWSER_HEADERS = {
  'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
};
const ACCEPT = {
  html: {
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
    'upgrade-insecure-requests': '1',
    'sec-fetch-dest': 'document',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-site': 'none',
  },
  json: { accept: 'application/json, text/plain, */*', 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'same-site' },
};

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export interface SiteClientOptions {
  /** Bound of one request, all phases and redirects included (config.lookupTimeoutMs). */
  totalTimeoutMs: number;
  /** Outbound proxy (config.portalProxyUrl). */
  proxyUrl?: string | null;
  /** Largest body accepted, after decompression. */
  maxBytes?: number;
  phases?: Partial<PhaseTimeouts>;
}

export interface SiteRequest {
  /** Cancels the request (client gone, batch deadline). */
  signal: AbortSignal;
  referer?: string;
}

export interface SitePage {
  status: number;
  /** Final URL after same-origin redirects. */
  url: string;
  /** The page's bytes: the reader decodes only the parts it needs. */
  body: Buffer;
}

export class SiteClient {
  private readonly http: Got;
  private readonly maxBytes: number;

  constructor(opts: SiteClientOptions) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const proxy = opts.proxyUrl;
    this.http = got.extend({
      timeout: boundedTimeouts(opts.totalTimeoutMs, opts.phases),
      retry: RETRY_ON_RESET,
      throwHttpErrors: false,
      maxRedirects: 5,
      headers: BROWSER_HEADERS,
      ...(proxy
        ? {
            agent: {
              http: new HttpProxyAgent({ proxy, keepAlive: true, maxSockets: 256 }),
              https: new HttpsProxyAgent({ proxy, keepAlive: true, maxSockets: 256 }),
            },
          }
        : {}),
    });
  }

  /**
   * An HTML page. A bot wall sent as 403 is `upstream_blocked` here; one sent as 200 is told by the page
   * reader (extractPage), which looks at the page on a worker thread anyway.
   */
  async page(url: string, req: SiteRequest): Promise<SitePage> {
    const res = await this.get(url, 'html', req);
    return { status: res.statusCode, url: res.url, body: res.body };
  }

  /** A JSON document; an HTML answer (a captcha) is `upstream_blocked`. */
  async json(url: string, req: SiteRequest): Promise<unknown> {
    const res = await this.get(url, 'json', req);
    const type = String(res.headers['content-type'] ?? '');
    const body = res.body.toString('utf8');
    if (type.includes('html') || body.trimStart().startsWith('<')) throw blocked('captcha', res.statusCode);
    try {
      return JSON.parse(body) as unknown;
    } catch (e) {
      throw new LookupError('upstream_bad_response', { details: { reason: 'not_json' }, cause: e });
    }
  }

  private async get(url: string, kind: 'html' | 'json', req: SiteRequest): Promise<Response<Buffer>> {
    const origin = new URL(url).origin;
    const tooLarge = new AbortController();
    const request = this.http.get(url, {
      headers: { ...ACCEPT[kind], ...(req.referer ? { referer: req.referer } : {}) },
      signal: AbortSignal.any([req.signal, tooLarge.signal]),
      responseType: 'buffer',
      followRedirect: (r: PlainResponse) => redirectTarget(r)?.origin === origin,
    });
    // Counts decompressed bytes, so a compressed bomb is cut too.
    request.on('downloadProgress', ({ transferred, total }) => {
      if (transferred > this.maxBytes || (total ?? 0) > this.maxBytes) tooLarge.abort();
    });
    let res: Response<Buffer>;
    try {
      res = await request;
    } catch (e) {
      if (tooLarge.signal.aborted && !req.signal.aborted) {
        throw new LookupError('upstream_bad_response', { details: { reason: 'too_large', maxBytes: this.maxBytes }, cause: e });
      }
      throw transportError(e, req.signal);
    }
    const failure = statusError(res, origin);
    if (failure) throw failure;
    return res;
  }
}

const redirectTarget = (r: PlainResponse): URL | null => {
  const location = r.headers.location;
  if (!location) return null;
  try {
    return new URL(location, r.url);
  } catch {
    return null;
  }
};

const blocked = (reason: string, status: number) =>
  new LookupError('upstream_blocked', { details: { reason, status } });

/** Non-2xx answers of the listing site as spec codes; null for success. */
function statusError(res: Response<Buffer>, origin: string): LookupError | null {
  const status = res.statusCode;
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) {
    const target = redirectTarget(res);
    const reason = target && target.origin !== origin ? 'offsite_redirect' : 'bad_redirect';
    return new LookupError('upstream_bad_response', { details: { reason, status } });
  }
  if (status === 404 || status === 410) {
    return new LookupError('not_found', { details: { reason: status === 404 ? 'page_not_found' : 'page_gone', status } });
  }
  if (status === 403) return blocked(isBotWallBytes(res.body) ? 'bot_wall' : 'forbidden', status);
  if (status === 429) {
    return new LookupError('upstream_busy', {
      details: { reason: 'rate_limited', status },
      retryAfter: retryAfterSeconds(res.headers['retry-after'], 30),
    });
  }
  return new LookupError('upstream_error', { details: { status } });
}

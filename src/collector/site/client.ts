// The own collector's client of the listing site: every read goes through here. A read waits for one of
// the site-wide slots (PORTAL_MAX_CONCURRENCY), takes a session (sessions.ts) and makes its request on it
// (transport.ts). An attempt the site's door refused (a wall, 403, 429), a proxy that refused, a timeout
// or a failed connection retires the session and is tried again on a fresh one, within the own
// collector's time (PORTAL_SELF_HOSTED_BUDGET_MS, and never past the lookup's deadline) and at most
// PORTAL_SESSION_RETRIES times; then the last failure is the answer, which the collector hands to the
// fallback provider (with-fallback.ts). Answers about the home (404) or the site (5xx) are not retried.
// While the circuit breaker is open, reads skip the site (but for a probe now and then).
import { LookupError, isLookupError } from '../../contract/index.js';
import { cancelled, DEFAULT_MAX_BYTES } from '../http-errors.js';
import { CircuitBreaker, type BreakerSettings, type BreakerState } from './breaker.js';
import { SiteSlots } from './concurrency.js';
import { ProxyPlan, SessionPool, type Session, type SessionSettings } from './sessions.js';
import { bounded, siteRequest, type RequestKind, type SiteAnswer } from './transport.js';

/** What became of one request to the site, as the metrics and the breaker count it. */
export type AttemptOutcome =
  | 'served'
  | 'wall'
  | 'forbidden'
  | 'rate_limited'
  | 'proxy_error'
  | 'timeout'
  | 'connection_failed'
  | 'error';

export interface AttemptEvent {
  outcome: AttemptOutcome;
  kind: RequestKind | 'warm_up';
  /** Through a proxy (PORTAL_PROXY_URL/URLS). */
  proxied: boolean;
  /** Body bytes received (decompressed). */
  bytes: number;
}

/** Our own slots or sessions all taken until the read's time ran out: our overload, like page_readers_busy. */
export const OWN_QUEUE = 'site_slots_busy';

/** Outcomes at the site's door: the session is retired, the read tried again on a fresh one; the breaker counts them. */
const REFUSED: ReadonlySet<AttemptOutcome> = new Set([
  'wall',
  'forbidden',
  'rate_limited',
  'proxy_error',
  'timeout',
  'connection_failed',
]);

export function outcomeOf(e: unknown): AttemptOutcome {
  if (!isLookupError(e)) return 'error';
  const reason = e.details?.reason;
  switch (e.code) {
    case 'not_found':
      return 'served';
    case 'upstream_blocked':
      return reason === 'forbidden' ? 'forbidden' : 'wall';
    case 'upstream_busy':
      return reason === 'rate_limited' ? 'rate_limited' : 'error';
    case 'upstream_timeout':
      return 'timeout';
    case 'upstream_unreachable':
      return reason === 'proxy_refused' ? 'proxy_error' : 'connection_failed';
    default:
      return 'error';
  }
}

export interface SiteClientOptions {
  /** The own collector's time for one read (or one address resolution), its retries included. */
  budgetMs: number;
  /** The listing site's origin (a suggestion call's Origin); by default the origin of the URL read. */
  siteOrigin?: string;
  /** PORTAL_PROXY_URL (with `{session}`) or PORTAL_PROXY_URLS; none: direct. */
  proxyUrls?: readonly string[];
  /** Largest body accepted, after decompression. */
  maxBytes?: number;
  sessions?: Partial<SessionSettings>;
  /** Documents in flight at once, site-wide. */
  maxConcurrency?: number;
  /** Fresh-session retries after a refused attempt. */
  retries?: number;
  breaker?: Partial<BreakerSettings>;
  /** A monotonic clock in ms (gaps, ages, probes are durations: a frozen or moved wall clock must not stall them). */
  now?: () => number;
}

/**
 * An attempt is not cut shorter than this while the budget has it: a page through a residential proxy can
 * take several seconds, and a slow read cut short is a read lost. A site that never answers costs one of these.
 */
const MIN_ATTEMPT_MS = 10_000;

export const DEFAULT_SESSIONS: SessionSettings = {
  maxDocuments: 3,
  maxAgeMs: 5 * 60_000,
  gapMs: 0,
  warmUp: false,
  maxSessions: 8,
};
export const DEFAULT_BREAKER: BreakerSettings = { window: 20, threshold: 0.8, minAttempts: 10, probeMs: 60_000 };

export interface SiteRequest {
  /** Cancels the read (client gone, batch deadline). */
  signal: AbortSignal;
  /** Epoch ms the lookup's time ends: no attempt runs past it. */
  deadlineAt?: number;
  /** The canary: goes to the site even while the breaker is open. */
  probe?: boolean;
}

export interface SitePage {
  status: number;
  /** Final URL after same-origin redirects. */
  url: string;
  /** The page's bytes: the reader decodes only the parts it needs. */
  body: Buffer;
}

export interface SiteStatus {
  breaker: BreakerState;
  sessions: number;
  in_flight: number;
  queued: number;
  proxied: boolean;
}

export class SiteClient {
  readonly #pool: SessionPool;
  readonly #slots: SiteSlots;
  readonly #breaker: CircuitBreaker;
  readonly #listeners = new Set<(e: AttemptEvent) => void>();
  readonly #proxies: ProxyPlan;
  readonly #settings: SessionSettings;
  readonly #now: () => number;

  constructor(private readonly opts: SiteClientOptions) {
    this.#now = opts.now ?? (() => performance.now());
    const slots = opts.maxConcurrency ?? 4;
    // Room for a resting session beside every busy one: a read never waits for a session while a slot is free.
    this.#settings = {
      ...DEFAULT_SESSIONS,
      maxSessions: Math.max(DEFAULT_SESSIONS.maxSessions, 2 * slots),
      ...opts.sessions,
    };
    this.#proxies = new ProxyPlan(opts.proxyUrls ?? []);
    this.#pool = new SessionPool(this.#settings, this.#proxies, this.#now);
    this.#slots = new SiteSlots(slots);
    this.#breaker = new CircuitBreaker({ ...DEFAULT_BREAKER, ...opts.breaker }, this.#now);
  }

  /** Tells `listener` of every request made to the site; returns how to stop. */
  onAttempt(listener: (e: AttemptEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): SiteStatus {
    return {
      breaker: this.#breaker.state(),
      sessions: this.#pool.stats().live,
      in_flight: this.#slots.inFlight,
      queued: this.#slots.waiting,
      proxied: this.#proxies.configured,
    };
  }

  /** An HTML page of the site. A wall (403 or 200) is `upstream_blocked`. */
  page(url: string, req: SiteRequest): Promise<SitePage> {
    return this.#read('document', url, req, (a) => a);
  }

  /** A JSON document (the suggestion endpoint); an HTML answer (a captcha) is `upstream_blocked`. */
  json(url: string, req: SiteRequest): Promise<unknown> {
    return this.#read('suggest', url, req, (a) => {
      const text = a.body.toString('utf8');
      if (text.trimStart().startsWith('<'))
        throw new LookupError('upstream_blocked', { details: { reason: 'captcha', status: a.status } });
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw new LookupError('upstream_bad_response', { details: { reason: 'not_json' }, cause: e });
      }
    });
  }

  close(): void {
    this.#pool.close();
  }

  async #read<T>(kind: RequestKind, url: string, req: SiteRequest, use: (a: SiteAnswer) => T): Promise<T> {
    // The lookup's deadline is on the wall clock; the budget's end on the monotonic one.
    const deadline = req.deadlineAt === undefined ? Infinity : this.#now() + (req.deadlineAt - Date.now());
    const retries = this.opts.retries ?? 2;
    // The budget counts from the first attempt's start: waiting behind our own slots is our overload, not
    // the site's (it ends at the lookup's deadline, or one budget when the caller gave none).
    let end = Math.min(this.#now() + this.opts.budgetMs, deadline);
    let started = false;
    let last: unknown = null;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const queueEnd = started || deadline === Infinity ? end : deadline;
      if (queueEnd - this.#now() <= 0) break;
      const { release, session } = await this.#take(req, queueEnd - this.#now(), last);
      if (!started) {
        started = true;
        end = Math.min(this.#now() + this.opts.budgetMs, deadline);
      }
      const left = end - this.#now();
      // Judged when its turn comes, not when it queued: reads queued behind a run of walls skip the site.
      if (left <= 0 || (!req.probe && !this.#breaker.admit())) {
        this.#pool.give(session);
        release();
        if (left <= 0) break;
        throw last ?? new LookupError('upstream_blocked', { details: { reason: 'circuit_open' } });
      }
      // Each attempt gets its share of what is left (at least MIN_ATTEMPT_MS while that much is left, never
      // more), so a tarpit leaves time for a fresh session; a warm-up comes out of the same share.
      const attemptEnd =
        this.#now() + Math.min(left, Math.max(MIN_ATTEMPT_MS, Math.floor(left / (retries + 1 - attempt))));
      let retire = false;
      let lingering: Promise<unknown> | null = null;
      const abandoned = (p: Promise<unknown>) => void (lingering = p);
      try {
        if (this.#settings.warmUp && session.documents === 0 && kind === 'document')
          await this.#warmUp(session, url, req.signal, attemptEnd, abandoned);
        return await this.#once(session, kind, url, req.signal, attemptEnd, use, abandoned);
      } catch (e) {
        if (req.signal.aborted) {
          // Its request may still be on the wire (impit cannot cancel one before its answer's head): the
          // session goes, and the slot is kept until that request is over.
          retire = true;
          throw cancelled(req.signal, e);
        }
        if (!REFUSED.has(outcomeOf(e))) throw e;
        retire = true;
        last = e;
      } finally {
        this.#pool.give(session, retire);
        if (lingering) void (lingering as Promise<unknown>).finally(release);
        else release();
      }
    }
    throw last ?? new LookupError('upstream_timeout', { details: { reason: 'timeout' } });
  }

  /** A slot, then a session, within `ms` and the caller's signal; our own queue running out is our overload. */
  async #take(req: SiteRequest, ms: number, last: unknown): Promise<{ release: () => void; session: Session }> {
    const waiting = bounded(req.signal, ms);
    try {
      const release = await this.#slots.acquire(waiting.signal);
      try {
        return { release, session: await this.#pool.take(waiting.signal) };
      } catch (e) {
        release();
        throw e;
      }
    } catch (e) {
      if (req.signal.aborted) throw cancelled(req.signal, e);
      // Not the site's doing: returned as it is, never a paid fallback run (with-fallback.ts).
      throw last ?? new LookupError('upstream_busy', { details: { reason: OWN_QUEUE }, retryAfter: 1, cause: e });
    }
  }

  /** The home page first, as a person arriving; only a refusal there counts (the session is then retired). */
  async #warmUp(
    session: Session,
    url: string,
    signal: AbortSignal,
    attemptEnd: number,
    abandoned: (p: Promise<unknown>) => void,
  ): Promise<void> {
    try {
      await this.#once(session, 'warm_up', `${new URL(url).origin}/`, signal, attemptEnd, () => undefined, abandoned);
    } catch (e) {
      if (signal.aborted || REFUSED.has(outcomeOf(e))) throw e;
    }
  }

  /**
   * One request on the session, judged by `use` (a suggestion answer that is a captcha is a wall),
   * counted (listeners, breaker) and remembered as the session's last page.
   */
  async #once<T>(
    session: Session,
    kind: RequestKind | 'warm_up',
    url: string,
    signal: AbortSignal,
    attemptEnd: number,
    use: (a: SiteAnswer) => T,
    abandoned: (p: Promise<unknown>) => void,
  ): Promise<T> {
    const document = kind !== 'suggest';
    const emit = (outcome: AttemptOutcome, bytes: number) => {
      // A read its caller left says nothing about the site.
      if (signal.aborted) return;
      this.#breaker.record(REFUSED.has(outcome), outcome === 'served');
      for (const l of this.#listeners) l({ outcome, kind, proxied: session.proxyUrl !== null, bytes });
    };
    try {
      const answer = await siteRequest(session.client, url, document ? 'document' : 'suggest', {
        signal,
        timeoutMs: Math.max(1, attemptEnd - this.#now()),
        maxBytes: this.opts.maxBytes ?? DEFAULT_MAX_BYTES,
        // Every request counts toward the session's documents, a redirect's too (the site counts them).
        onRequest: () => void session.documents++,
        onAbandoned: abandoned,
        siteOrigin: this.opts.siteOrigin ?? new URL(url).origin,
        ...(document && session.lastUrl ? { referer: session.lastUrl } : {}),
      });
      const value = use(answer);
      if (document) session.lastUrl = answer.url;
      emit('served', answer.body.length);
      return value;
    } catch (e) {
      emit(outcomeOf(e), 0);
      throw e;
    }
  }
}

// Sessions toward the listing site, after Crawlee's Session (its semantics, not the framework): a session
// is one browser as the site sees it, one impit client, one cookie jar (the cookies the site sets are
// sent back) and one proxy session (one exit address on a residential gateway). It serves a few
// documents, one at a time with a jittered gap between them, and is retired after its last one, when it
// grows old, or on its first wall, 403, 429 or proxy failure (the caller's decision). A new session is
// made when no idle one is ready and the pool has room; else the request waits for the first one ready.
import { randomBytes } from 'node:crypto';
import { Impit } from 'impit';
import { CookieJar } from 'tough-cookie';
import { BROWSER_PROFILE } from './profile.js';

export interface SessionSettings {
  /** Documents one session serves before it is retired. */
  maxDocuments: number;
  /** A session older than this is retired (the site's risk cookie lives about 5.5 minutes). */
  maxAgeMs: number;
  /** The gap between two documents of one session: drawn between half and one and a half of this. */
  gapMs: number;
  /** A new session first visits the site's home page, as a person arriving would (one more document). */
  warmUp: boolean;
  /** Sessions kept at once. */
  maxSessions: number;
}

export class Session {
  readonly jar = new CookieJar();
  readonly client: Impit;
  documents = 0;
  readonly createdAt: number;
  readyAt = 0;
  busy = false;
  retired = false;
  /** The URL of the session's last document: the next one is a click from it. */
  lastUrl: string | null = null;

  constructor(
    readonly id: string,
    readonly proxyUrl: string | null,
    now: number,
  ) {
    this.createdAt = now;
    // Never ignoreTlsErrors: it changes the ClientHello (test/fakes/edge, docs/collector.md).
    this.client = new Impit({ browser: BROWSER_PROFILE, cookieJar: this.jar, ...(proxyUrl ? { proxyUrl } : {}) });
  }
}

/**
 * Where a new session's requests go: PORTAL_PROXY_URL with `{session}` replaced by the session's id (a
 * gateway gives each session name its own exit address), or PORTAL_PROXY_URLS in turn, or direct.
 */
export class ProxyPlan {
  #next = 0;
  constructor(private readonly urls: readonly string[]) {}

  get configured(): boolean {
    return this.urls.length > 0;
  }

  forSession(sessionId: string): string | null {
    if (this.urls.length === 0) return null;
    const url = this.urls[this.#next++ % this.urls.length]!;
    return url.replaceAll('{session}', sessionId);
  }
}

export class SessionPool {
  readonly #live = new Set<Session>();
  readonly #waiters = new Set<() => void>();
  #created = 0;
  #closed = false;

  constructor(
    private readonly settings: SessionSettings,
    private readonly proxies: ProxyPlan,
    private readonly now: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {}

  /** An idle session ready for its next document (made when none is and there is room), marked busy. */
  async take(signal: AbortSignal): Promise<Session> {
    for (;;) {
      signal.throwIfAborted();
      // Closed (the service is stopping): no new session for a read still under way.
      if (this.#closed) throw new Error('the site client is closed');
      const now = this.now();
      for (const s of this.#live) if (!s.busy && this.#spent(s, now)) this.#drop(s);
      let ready: Session | undefined;
      for (const s of this.#live) if (!s.busy && s.readyAt <= now && (!ready || s.readyAt < ready.readyAt)) ready = s;
      if (!ready && this.#live.size < this.settings.maxSessions) {
        const id = randomBytes(6).toString('hex');
        ready = new Session(id, this.proxies.forSession(id), now);
        this.#live.add(ready);
        this.#created++;
      }
      if (ready) {
        ready.busy = true;
        return ready;
      }
      await this.#wait(signal);
    }
  }

  /** The session's document is done: it rests for its gap, or is retired (asked, or its documents used up). */
  give(session: Session, retire = false): void {
    session.busy = false;
    const now = this.now();
    if (retire || this.#spent(session, now)) this.#drop(session);
    else session.readyAt = now + Math.round(this.settings.gapMs * (0.5 + this.random()));
    this.#wake();
  }

  stats(): { live: number; created: number } {
    return { live: this.#live.size, created: this.#created };
  }

  /** Drops every session (their clients' connections close with them). */
  close(): void {
    this.#closed = true;
    for (const s of this.#live) s.retired = true;
    this.#live.clear();
    this.#wake();
  }

  #spent(s: Session, now: number): boolean {
    return s.retired || s.documents >= this.settings.maxDocuments || now - s.createdAt >= this.settings.maxAgeMs;
  }

  #drop(s: Session): void {
    s.retired = true;
    this.#live.delete(s);
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  /** Until a session is given back, or the earliest resting one is ready, or the signal aborts. */
  #wait(signal: AbortSignal): Promise<void> {
    const now = this.now();
    let earliest = Infinity;
    for (const s of this.#live) if (!s.busy) earliest = Math.min(earliest, s.readyAt);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = Number.isFinite(earliest) ? setTimeout(done, Math.max(0, earliest - now)) : undefined;
      this.#waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

// The own collector's circuit breaker. When most of its recent attempts failed at the site's door (a
// wall, 403, 429, a refusing proxy, a timeout), each further lookup would first spend a request (and
// some of the exit address's standing) on a door that is shut: the breaker opens and lookups go
// straight to the fallback, while one probe every probeMs goes through to the site; a probe served closes it.
export interface BreakerSettings {
  /** Attempts looked back on. */
  window: number;
  /** Failed share of the window that opens it. */
  threshold: number;
  /** Attempts needed before it judges (10 walled in a row open it; at most 20 are ever needed). */
  minAttempts: number;
  /** While open, one attempt this often goes through as a probe. */
  probeMs: number;
}

export interface BreakerState {
  open: boolean;
  /** Attempts in the window, and the failed share of them. */
  attempts: number;
  failed_share: number;
  /** The share of them the site answered with a page (or a real not-found). */
  served_share: number;
  opened_at: string | null;
  /** While open: how long until the next probe may go to the site. */
  next_probe_in_ms: number | null;
}

export class CircuitBreaker {
  readonly #recent: Array<'refused' | 'served' | 'other'> = [];
  #openedAt: number | null = null;
  /** When it opened, on the wall clock (reported); #openedAt and the probes are on the monotonic one. */
  #openedAtWall: string | null = null;
  #nextProbeAt = 0;
  /** A probe is at the site: only its outcome decides while open. */
  #probing = false;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get open(): boolean {
    return this.#openedAt !== null;
  }

  /** May an attempt go to the site now? Closed: yes; open: only the probe that is due. */
  admit(): boolean {
    if (this.#openedAt === null) return true;
    const now = this.now();
    if (now < this.#nextProbeAt) return false;
    this.#nextProbeAt = now + this.settings.probeMs;
    this.#probing = true;
    return true;
  }

  /**
   * An attempt's outcome: refused at the door (counted), or not; `served` when the site answered it with a
   * page (or a real not-found). While open only the probe's counts: served closes it with a clean window.
   */
  record(refused: boolean, served: boolean): void {
    if (this.#openedAt !== null) {
      if (!this.#probing) return;
      this.#probing = false;
      if (served) {
        this.#openedAt = null;
        this.#recent.length = 0;
      }
      return;
    }
    this.#recent.push(refused ? 'refused' : served ? 'served' : 'other');
    if (this.#recent.length > this.settings.window) this.#recent.shift();
    if (this.#recent.length >= this.settings.minAttempts && this.#share() >= this.settings.threshold) {
      this.#openedAt = this.now();
      this.#openedAtWall = new Date().toISOString();
      this.#nextProbeAt = this.#openedAt + this.settings.probeMs;
    }
  }

  state(): BreakerState {
    return {
      open: this.#openedAt !== null,
      attempts: this.#recent.length,
      failed_share: Math.round(this.#share() * 1000) / 1000,
      served_share: Math.round(this.#share('served') * 1000) / 1000,
      opened_at: this.#openedAt === null ? null : this.#openedAtWall,
      next_probe_in_ms: this.#openedAt === null ? null : Math.max(0, Math.round(this.#nextProbeAt - this.now())),
    };
  }

  #share(kind: 'refused' | 'served' = 'refused'): number {
    return this.#recent.length === 0 ? 0 : this.#recent.filter((k) => k === kind).length / this.#recent.length;
  }
}

// The canary: a few zpids (PORTAL_CANARY_ZPIDS) read now and then (PORTAL_CANARY_INTERVAL_MS) by the own
// collector alone, past its circuit breaker, never billed and never cached, so an operator sees the share
// of homes the own collector really gets from the site (site_canary_reads_total, /readyz) instead of a
// guess. A served canary read also closes an open breaker, as its probe would.
import { outcomeOf, type AttemptOutcome } from './client.js';
import { bounded } from './transport.js';

const FIRST_ROUND_MS = 15_000;

export interface CanaryRound {
  at: string;
  read: number;
  served: number;
  outcomes: Partial<Record<AttemptOutcome, number>>;
}

export interface CanaryOptions {
  zpids: readonly string[];
  intervalMs: number;
  /** Reads one home by zpid through the own collector, as a probe, within `signal`. */
  read(zpid: string, signal: AbortSignal): Promise<unknown>;
  /** Told of each canary read's outcome. */
  onRead?(outcome: AttemptOutcome): void;
  /** A read's bound. */
  readTimeoutMs: number;
}

export class Canary {
  #last: CanaryRound | null = null;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  readonly #stop = new AbortController();

  constructor(private readonly opts: CanaryOptions) {}

  /**
   * The first round FIRST_ROUND_MS after start (or one interval, if shorter: the service is up and observed
   * by then), then one every interval; its timers never keep the process up.
   */
  start(): void {
    if (this.#timer || this.opts.zpids.length === 0) return;
    this.#timer = setTimeout(
      () => {
        void this.round();
        this.#timer = setInterval(() => void this.round(), this.opts.intervalMs);
        this.#timer.unref();
      },
      Math.min(FIRST_ROUND_MS, this.opts.intervalMs),
    );
    this.#timer.unref();
  }

  /** One round: every zpid once, one after the other (a person's pace, not a burst). */
  round(): Promise<void> {
    this.#running ??= this.#round().finally(() => (this.#running = null));
    return this.#running;
  }

  async #round(): Promise<void> {
    const round: CanaryRound = { at: new Date().toISOString(), read: 0, served: 0, outcomes: {} };
    for (const zpid of this.opts.zpids) {
      if (this.#stop.signal.aborted) return;
      let outcome: AttemptOutcome;
      const bound = bounded(this.#stop.signal, this.opts.readTimeoutMs);
      try {
        await this.opts.read(zpid, bound.signal);
        outcome = 'served';
      } catch (e) {
        if (this.#stop.signal.aborted) return;
        outcome = outcomeOf(e);
      } finally {
        bound.dispose();
      }
      round.read++;
      if (outcome === 'served') round.served++;
      round.outcomes[outcome] = (round.outcomes[outcome] ?? 0) + 1;
      this.opts.onRead?.(outcome);
    }
    this.#last = round;
  }

  /** The last complete round; null before the first ends. */
  last(): CanaryRound | null {
    return this.#last;
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#stop.abort();
    await this.#running?.catch(() => undefined);
  }
}

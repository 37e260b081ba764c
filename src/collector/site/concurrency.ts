// The site-wide bound on documents in flight (PORTAL_MAX_CONCURRENCY): batches, GraphQL operations, jobs
// and watches queue here, first come first served, instead of firing at the site together.
export class SiteSlots {
  #free: number;
  readonly #queue: Array<() => void> = [];

  constructor(readonly max: number) {
    this.#free = max;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  get inFlight(): number {
    return this.max - this.#free;
  }

  /** A slot, when one is free; its release function. Leaves the queue when the signal aborts. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#free > 0 && this.#queue.length === 0) {
      this.#free--;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const i = this.#queue.indexOf(turn);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(signal.reason);
      };
      this.#queue.push(turn);
      signal.addEventListener('abort', leave, { once: true });
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // Handed over: the slot stays taken.
      if (next) next();
      else this.#free++;
    };
  }
}

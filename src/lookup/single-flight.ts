// One upstream read per home at a time within this process. Across instances the store's lock
// does the same job (see live.ts); neither is needed for billing to be correct.

export class SingleFlight {
  private readonly inflight = new Map<string, Promise<unknown>>();

  /** The read in progress for this home, if any. */
  join<T>(key: string): Promise<T> | undefined {
    return this.inflight.get(key) as Promise<T> | undefined;
  }

  lead<T>(key: string, run: () => Promise<T>): Promise<T> {
    const p = run().finally(() => {
      if (this.inflight.get(key) === p) this.inflight.delete(key);
    });
    this.inflight.set(key, p);
    return p;
  }
}

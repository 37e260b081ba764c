// An append-only list a test can wait on: "resolve when the fake has seen X", so tests gate on what a
// fake received instead of on a clock. Used by the fake edge (requests) and the exit proxy (CONNECTs).

export class WatchedLog<T> {
  /** Everything pushed, in order. Tests read it directly. */
  readonly items: T[] = [];
  private waiters: Array<{ match: (item: T) => boolean; wake: (item: T) => void }> = [];

  push(item: T): void {
    this.items.push(item);
    const woken = this.waiters.filter((w) => w.match(item));
    this.waiters = this.waiters.filter((w) => !woken.includes(w));
    for (const w of woken) w.wake(item);
  }

  /** Resolves with the first item `match` accepts, already pushed or yet to come. */
  waitFor(match: (item: T) => boolean): Promise<T> {
    const hit = this.items.find(match);
    return hit !== undefined ? Promise.resolve(hit) : new Promise((wake) => this.waiters.push({ match, wake }));
  }
}

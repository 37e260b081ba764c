// A watch scheduler (the real one, BullMQ or timers) whose checks the test can see start and end: so a
// test waits for the checks under way at some moment to be over (a condition) instead of for some
// number of intervals to pass (time), which under a loaded CPU may be too few.
import type { CheckRun, WatchScheduler } from '../../src/watches/schedule.js';

export class SeenScheduler implements WatchScheduler {
  /** Checks started so far, per watch; each check is numbered by its start. */
  readonly #started = new Map<string, number>();
  /** The numbers of the checks still running, per watch. */
  readonly #running = new Map<string, Set<number>>();

  constructor(private readonly inner: WatchScheduler) {}

  schedule(account: string, watchId: string, everyMs: number): Promise<void> {
    return this.inner.schedule(account, watchId, everyMs);
  }

  unschedule(watchId: string): Promise<void> {
    return this.inner.unschedule(watchId);
  }

  start(run: (check: CheckRun) => Promise<void>): Promise<void> {
    return this.inner.start(async (check) => {
      const n = (this.#started.get(check.watchId) ?? 0) + 1;
      this.#started.set(check.watchId, n);
      const running = this.#running.get(check.watchId) ?? new Set<number>();
      this.#running.set(check.watchId, running.add(n));
      try {
        await run(check);
      } finally {
        running.delete(n);
      }
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** A mark of now for `watchId`: `over(mark)` holds once every check of it started until now has ended. */
  mark(watchId: string): { over(): boolean } {
    const upTo = this.#started.get(watchId) ?? 0;
    return { over: () => ![...(this.#running.get(watchId) ?? [])].some((n) => n <= upTo) };
  }
}

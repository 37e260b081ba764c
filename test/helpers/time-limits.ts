// Time limits a test passes itself (src/lookup/time-limits.ts): the kinds named are held, each signal
// aborting only when the test calls pass(kind), once what it waits for (an item charged, a read held at
// the site, a run started on the platform) has happened; the other kinds run on the clock. A test of a
// deadline then needs no duration tuned to outlast a loaded machine's stalls.
import { clockTimeLimits, type TimeLimitKind, type TimeLimits } from '../../src/lookup/index.js';
import { timedOut } from '../../src/lookup/time-limits.js';

export class HeldTimeLimits implements TimeLimits {
  readonly #held: ReadonlySet<TimeLimitKind>;
  readonly #armed = new Map<TimeLimitKind, AbortController[]>();
  readonly #made = new Map<TimeLimitKind, number>();
  #waiters: Array<{ kind: TimeLimitKind; n: number; wake: () => void }> = [];

  constructor(...held: TimeLimitKind[]) {
    this.#held = new Set(held);
  }

  after(kind: TimeLimitKind, ms: number): AbortSignal {
    if (!this.#held.has(kind)) return clockTimeLimits.after(kind, ms);
    const c = new AbortController();
    this.#armed.set(kind, [...(this.#armed.get(kind) ?? []), c]);
    const made = (this.#made.get(kind) ?? 0) + 1;
    this.#made.set(kind, made);
    const due = this.#waiters.filter((w) => w.kind === kind && w.n <= made);
    this.#waiters = this.#waiters.filter((w) => !due.includes(w));
    for (const w of due) w.wake();
    return c.signal;
  }

  /** Resolves once `n` limits of `kind` have been made in all (a request's deadline is made on first use). */
  made(kind: TimeLimitKind, n = 1): Promise<void> {
    if ((this.#made.get(kind) ?? 0) >= n) return Promise.resolve();
    return new Promise((wake) => this.#waiters.push({ kind, n, wake }));
  }

  /** Passes every limit of `kind` made so far and not yet passed; how many. A test that passes none has its order wrong. */
  pass(kind: TimeLimitKind): number {
    if (!this.#held.has(kind)) throw new Error(`${kind} is not held by this test`);
    const armed = this.#armed.get(kind) ?? [];
    this.#armed.set(kind, []);
    for (const c of armed) c.abort(timedOut(`${kind} passed (held by the test)`));
    if (armed.length === 0) throw new Error(`no ${kind} to pass: none was made yet`);
    return armed.length;
  }
}

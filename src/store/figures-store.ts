// The service's own public figures in the store (GET /v1/status, /status): counts kept in time buckets
// that every instance adds to, so the figures are the whole service's, not one process's; and each
// instance's latest state (its collector's breaker), kept a short while. Counts only: no account, key,
// address or anything else that names a customer ever goes in (src/observability/figures.ts decides
// what is counted).

/** Counts by field name (`ok`, `hit`, `e:<code>`, `lat:<bucket>`, …), added to a bucket at once. */
export type FigureCounts = Record<string, number>;

/** Counts to add to a bucket (named e.g. `m:<minute>`, `h:<hour>`), which is then kept `ttlMs` from now. */
export interface FigureAdd {
  bucket: string;
  counts: FigureCounts;
  ttlMs: number;
}

export interface FiguresStore {
  /** Adds each bucket's counts to what it holds; one round trip for all of them. */
  addFigures(adds: readonly FigureAdd[]): Promise<void>;
  /** What each bucket holds, in the order asked ({} for a bucket that is gone or was never written). One round trip. */
  readFigures(buckets: readonly string[]): Promise<FigureCounts[]>;
  /** Keeps an instance's latest state (a short text) for `ttlMs`; written again, it replaces the last. */
  putInstanceState(instance: string, state: string, ttlMs: number): Promise<void>;
  /** The states of the instances whose last one has not expired. */
  instanceStates(): Promise<string[]>;
}

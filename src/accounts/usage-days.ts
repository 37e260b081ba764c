// The account's own record of its lookups, by UTC day: each lookup's outcome (live read, cache hit, stale
// answer, failed) is added here once, where the core records it (lookup/outcomes.ts), and sent to the
// store's day counters in one round trip per turn of the event loop, whatever the number of lookups
// (a batch of 50 is one write). The credits of a day are not counted here: the commit that writes the
// ledger adds them (store/redis/lua/commit.lua), so a day's credits always sum to what the ledger holds.
//
// A write the store does not answer is dropped (logged): outcome counters are a report, the credits the
// bill. A process reading its account's days first sends what it still holds, so a client reads its own
// lookups at once; another instance's arrive within a turn of its event loop.
import type { Logger } from 'pino';
import type { BillingStore, DayCounts } from '../store/index.js';
import { underlyingStore } from '../observability/instrument.js';

export type DayOutcome = 'live' | 'hits' | 'stale' | 'failed';

export class DayTally {
  private pending = new Map<string, DayCounts>();
  private scheduled = false;
  private sending: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<BillingStore, 'addDayCounts'>,
    private readonly logger: Logger,
  ) {}

  /** One lookup's outcome on the account's day (YYYY-MM-DD, UTC). */
  add(accountId: string, day: string, outcome: DayOutcome): void {
    const key = `${accountId}\u0000${day}`;
    let c = this.pending.get(key);
    if (!c) this.pending.set(key, (c = { accountId, day, lookups: 0, live: 0, hits: 0, stale: 0, failed: 0 }));
    c.lookups += 1;
    c[outcome] += 1;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Sends what is held (after any write under way); resolves once the store has answered. */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
    if (this.pending.size === 0) return;
    const counts = [...this.pending.values()];
    this.pending = new Map();
    this.sending = this.store
      .addDayCounts(counts)
      .catch((err: unknown) =>
        this.logger.warn({ err, accounts: counts.length }, 'lookup outcomes not added to the day counters'),
      )
      .finally(() => {
        this.sending = null;
      });
    await this.sending;
  }
}

const byStore = new WeakMap<object, DayTally>();

/** The day tally of this process in `store` (one per store, shared by every request). */
export function dayTallyOf(store: Pick<BillingStore, 'addDayCounts'>, logger: Logger): DayTally {
  const key = underlyingStore(store);
  let t = byStore.get(key);
  if (!t) byStore.set(key, (t = new DayTally(store, logger)));
  return t;
}

/** At shutdown: sends the outcomes this process still holds. */
export async function flushDayTally(store: object): Promise<void> {
  await byStore.get(underlyingStore(store))?.flush();
}

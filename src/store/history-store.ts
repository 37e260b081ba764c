// Each home's history in the store (docs/history.md): its timeline of live reads, one event per read,
// kept HISTORY_RETENTION_DAYS and at most HISTORY_MAX_EVENTS_PER_HOME per home (the oldest go first).
// The store keeps an event as the text it is given (the contract's HistoryEvent without its id) and
// gives each its id: `<ms>-<seq>`, increasing within a home (a Redis stream id), the page cursor.

/** How long a home's events are kept, and how many of them at most. */
export interface HistoryLimits {
  retentionMs: number;
  maxEventsPerHome: number;
}

/** HISTORY_RETENTION_DAYS and HISTORY_MAX_EVENTS_PER_HOME unless set otherwise: 400 days, 1,000 events. */
export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { retentionMs: 400 * 86_400_000, maxEventsPerHome: 1_000 };

/** An event as kept: the store's id and the text it was given. */
export interface StoredHistoryEvent {
  id: string;
  event: string;
}

export interface HistoryStore {
  /**
   * Adds an event (its JSON text) at the end of the home's timeline (`homeKey`: the key its entry is
   * cached under), dropping those past the retention or the per-home bound; returns its id.
   */
  appendHistory(homeKey: string, event: string): Promise<string>;
  /**
   * At most `limit` events of the home, newest first, all older than the event `before` (an id) when
   * given; none past the retention. An unknown home has none.
   */
  readHistory(homeKey: string, limit: number, before: string | null): Promise<StoredHistoryEvent[]>;
}

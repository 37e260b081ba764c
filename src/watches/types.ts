// What the faces see of watched homes: a home read live on a schedule (a billed lookup each time), and a
// property.changed webhook when its price, status, estimate, rent estimate or HOA changed.
import type { Locator, WatchViewShape } from '../contract/index.js';
import type { Account } from '../store/index.js';

export { WATCHED_FIELDS } from '../contract/watches.js';

/** A watch as the faces answer it: the contract's Watch schema (src/contract/watches.ts), snake_case; GraphQL in camelCase. */
export type WatchView = WatchViewShape;

/** A watch as a face read it (contract/watches.ts parseWatchBody): the locator parsed, the rest as sent, checked by create. */
export interface WatchRequest {
  locator: Locator;
  webhookUrl: unknown;
  intervalHours: unknown;
}

export interface Watches {
  /**
   * Validates (interval_hours from the minimum to WATCH_MAX_INTERVAL_HOURS, the webhook URL, at most
   * MAX_WATCHES_PER_ACCOUNT) and schedules; the first check runs at once.
   */
  create(account: Account, request: WatchRequest): Promise<WatchView>;
  list(account: Account): Promise<WatchView[]>;
  /** LookupError not_found when it is not the account's. */
  get(account: Account, id: string): Promise<WatchView>;
  remove(account: Account, id: string): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

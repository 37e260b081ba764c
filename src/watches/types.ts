// What the faces see of watched homes: a home read live on a schedule (a billed lookup each time), and a
// property.changed webhook when its price, status, estimate, rent estimate or HOA changed.
import type { Locator } from '../contract/index.js';
import type { Account } from '../store/index.js';

/** The fields a watch compares between two checks (PortalProperty names). */
export const WATCHED_FIELDS = ['price', 'homeStatus', 'estimate', 'rentEstimate', 'monthlyHoaFee'] as const;

export interface WatchView {
  id: string;
  /** The locator as given: one of url, zpid, address. */
  url?: string;
  zpid?: string;
  address?: string;
  webhook_url: string;
  interval_hours: number;
  created_at: string;
  /** The home's zpid once a check found it. */
  home_zpid: string | null;
  last_checked_at: string | null;
  next_check_at: string | null;
  /** The last check's error code, or null when it found the home. */
  last_error: string | null;
}

export interface WatchRequest {
  locator: Locator;
  webhookUrl: string;
  intervalHours: number;
}

export interface Watches {
  /** Validates (interval_hours ≥ the minimum, the webhook URL) and schedules; the first check runs at once. */
  create(account: Account, request: WatchRequest): Promise<WatchView>;
  list(account: Account): Promise<WatchView[]>;
  /** LookupError not_found when it is not the account's. */
  get(account: Account, id: string): Promise<WatchView>;
  remove(account: Account, id: string): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

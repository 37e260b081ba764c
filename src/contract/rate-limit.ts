// The per-key window as the answers state it (draft-ietf-httpapi-ratelimit-headers): the RateLimit-Policy
// field every answer carries and the RateLimit field of a request that took units or was refused them.
// The limiter that keeps the windows is the accounts' (src/accounts/rate-limit.ts).

/** The window's length: a fixed minute. */
export const WINDOW_SECONDS = 60;

/** The account's window after a take: what the RateLimit header reports. */
export interface RateWindow {
  limit: number;
  remaining: number;
  /** Seconds until the window starts again. */
  resetSeconds: number;
}

/** The policy as the RateLimit-Policy field states it: null without a limit. */
export const rateLimitPolicy = (perMinute: number): string | null =>
  perMinute > 0 ? `"default";q=${perMinute};w=${WINDOW_SECONDS}` : null;

/** The key's window as the RateLimit field states it: units remaining, seconds until the window starts again. */
export const rateLimitField = (w: RateWindow): string => `"default";r=${w.remaining};t=${w.resetSeconds}`;

// Upstream failures only an operator can end (the site's bot wall, the provider refusing our token,
// our quota, or an actor it cannot run) are logged at warn with their cause, at most once per cause per
// minute: under load each failing lookup would otherwise write the same line. Suppressed repeats are
// counted in the next line. This is their only warn line (the fallback client logs the refusal at debug).
import type { Logger } from 'pino';
import { isLookupError, type ErrorCode } from '../contract/index.js';

/** The codes that say "our access to the data is broken", by the cause named in the log line. */
export const WARNED_CAUSES: Partial<Record<ErrorCode, string>> = {
  upstream_blocked: 'bot_wall',
  upstream_auth: 'provider_auth',
  upstream_quota: 'provider_quota',
  upstream_misconfigured: 'provider_misconfigured',
  upstream_actor_missing: 'provider_actor_missing',
};

export const WARN_EVERY_MS = 60_000;

export class UpstreamWarnings {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly everyMs = WARN_EVERY_MS,
  ) {}

  /** Logs `e` at warn when its code is a warned cause and that cause was not logged within the last minute. */
  failed(e: unknown, operation: string): void {
    if (!isLookupError(e)) return;
    const cause = WARNED_CAUSES[e.code];
    if (!cause) return;
    const now = this.now();
    const prev = this.last.get(cause);
    if (prev && now - prev.at < this.everyMs) {
      prev.suppressed += 1;
      return;
    }
    this.last.set(cause, { at: now, suppressed: 0 });
    this.logger.warn(
      { cause, code: e.code, operation, details: e.details, err: e.cause ?? e, suppressed: prev?.suppressed ?? 0 },
      `upstream failure: ${cause}`,
    );
  }
}

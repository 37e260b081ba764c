// A per-key limiter whose minute windows pass in two seconds of real time, for tests of a client's
// retry of a real 429: the limiter's clock maps each two real seconds onto the last two seconds of a
// minute of its own (monotonic, one minute further for each two seconds), so the service's own 429
// rate_limited comes with retry-after 1 or 2, and the window is whole again after it.
import { MemoryRateLimiter } from '../../src/accounts/rate-limit.js';

export const quickWindowClock = (): number => {
  const real = Date.now();
  return Math.floor(real / 2000) * 60_000 + 58_000 + (real % 2000);
};

/** `perMinute` lookups per window of two real seconds; no cap on live lookups at once. */
export const quickRateLimiter = (perMinute: number): MemoryRateLimiter =>
  new MemoryRateLimiter({ perMinute, maxLive: 0 }, quickWindowClock);

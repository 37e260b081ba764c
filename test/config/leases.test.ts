// A lease must outlast its renewals: a renewal may take a whole command timeout and fail, and the next
// beat (a third of the lease later) must still land before the lease lapses (issue 9, review).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('LEASE_TTL_MS against REDIS_COMMAND_TIMEOUT_MS', () => {
  it('a lease shorter than three command timeouts is refused at start-up, with both figures', () => {
    expect(() => loadConfig({ LEASE_TTL_MS: '300' })).toThrow(
      /LEASE_TTL_MS \(300\) must be at least 3 × REDIS_COMMAND_TIMEOUT_MS \(1000\)/,
    );
    expect(() => loadConfig({ LEASE_TTL_MS: '2999' })).toThrow(/LEASE_TTL_MS/);
  });

  it('the defaults and a lease of exactly three command timeouts are accepted', () => {
    expect(loadConfig({})).toMatchObject({ leaseTtlMs: 5000, redisCommandTimeoutMs: 1000 });
    expect(loadConfig({ LEASE_TTL_MS: '300', REDIS_COMMAND_TIMEOUT_MS: '100' })).toMatchObject({
      leaseTtlMs: 300,
      redisCommandTimeoutMs: 100,
    });
  });
});

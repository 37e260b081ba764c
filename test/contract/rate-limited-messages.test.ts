// rate_limited is answered by three limits (keyless GraphQL requests per address, a key's lookups per
// minute, a key's live lookups): the table's default message names none of them, and each refusal says
// which limit it met.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contract/errors.js';
import { liveCapError, rateLimitedError } from '../../src/accounts/rate-limit.js';

describe('rate_limited messages', () => {
  it('the default names no particular limit (it is not only for requests without a key)', () => {
    const message = ERROR_CODES.rate_limited.message;
    expect(message).toMatch(/^Too many requests\./);
    expect(message).not.toMatch(/API key/i);
  });

  it("a key's limits say which one was met", () => {
    const perMinute = rateLimitedError({ limit: 60, remaining: 2, resetSeconds: 17 }, 5);
    expect(perMinute.code).toBe('rate_limited');
    expect(perMinute.message).toBe(
      'This API key is over its limit of 60 lookups per minute. Retry after the retry-after header.',
    );
    const live = liveCapError(4);
    expect(live.code).toBe('rate_limited');
    expect(live.message).toBe('This API key already has 4 live lookups running. Retry when one has finished.');
  });
});

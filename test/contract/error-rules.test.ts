// The rules about codes are columns of the error table: each list the service acts on is derived from
// it, and each is pinned here to its members as they were when they were separate lists (live.ts,
// with-fallback.ts, idempotency.ts), so moving them into the table changed nothing. A new code is one
// row, with a value in every column.
import { describe, expect, it } from 'vitest';
import {
  codesWith,
  ERROR_CODES,
  ERROR_RULES,
  hasRule,
  isAskerOnly,
  isFallbackEligible,
  isStaleEligible,
  isTransient,
  type ErrorCode,
  type ErrorRule,
} from '../../src/contract/errors.js';

const PINNED: Record<ErrorRule, readonly ErrorCode[]> = {
  // A failed read the last good record answers for (was STALE_FOR in lookup/live.ts).
  stale: [
    'upstream_blocked',
    'upstream_error',
    'upstream_unreachable',
    'upstream_bad_response',
    'upstream_run_failed',
    'upstream_busy',
    'upstream_timeout',
    'upstream_auth',
    'upstream_quota',
    'upstream_actor_missing',
    'upstream_misconfigured',
  ],
  // Own-collector failures handed to the fallback provider (was FALLBACK_CODES in collector/with-fallback.ts).
  fallback: ['upstream_blocked', 'upstream_bad_response', 'upstream_busy', 'upstream_timeout', 'upstream_unreachable'],
  // Answers not kept for an Idempotency-Key's retries (was TRANSIENT in lookup/idempotency.ts).
  transient: [
    'rate_limited',
    'store_unavailable',
    'upstream_busy',
    'internal',
    'batch_deadline',
    'missing_api_key',
    'invalid_api_key',
  ],
  // A leader's failure its followers do not share (was NOT_OURS in lookup/live.ts).
  askerOnly: ['batch_deadline', 'credits_exhausted', 'spend_limit_reached', 'live_lookups_capped'],
};

const IS: Record<ErrorRule, (code: string) => boolean> = {
  stale: isStaleEligible,
  fallback: isFallbackEligible,
  transient: isTransient,
  askerOnly: isAskerOnly,
};

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe('the rules of the error table', () => {
  it('has a column for each rule, and no rule without a column', () => {
    expect([...ERROR_RULES].sort()).toEqual(Object.keys(PINNED).sort());
  });

  it('every code has a value (true or false) in every column', () => {
    for (const code of codes) {
      for (const rule of ERROR_RULES)
        expect(typeof (ERROR_CODES[code] as Record<string, unknown>)[rule], `${code}.${rule}`).toBe('boolean');
    }
  });

  it.each(ERROR_RULES)('%s: exactly the members of the list it replaced', (rule) => {
    expect([...codesWith(rule)].sort()).toEqual([...PINNED[rule]].sort());
    for (const code of codes) {
      const member = PINNED[rule].includes(code);
      expect(hasRule(code, rule), `${code}.${rule}`).toBe(member);
      expect(IS[rule](code), `${code}.${rule}`).toBe(member);
    }
  });

  it("a string that is no code of the table has none of the rules (a GraphQL framework's code, say)", () => {
    for (const rule of ERROR_RULES) {
      for (const code of ['unknown', 'GRAPHQL_VALIDATION_FAILED', 'toString', 'constructor', ''])
        expect(IS[rule](code), `${code}.${rule}`).toBe(false);
    }
  });

  it("GraphQL's own codes (refusals of a document before it runs) have none of the rules", () => {
    for (const code of codes.filter((c) => 'only' in ERROR_CODES[c])) {
      for (const rule of ERROR_RULES) expect(hasRule(code, rule), `${code}.${rule}`).toBe(false);
    }
  });
});

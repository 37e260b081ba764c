// Query.property says the single lookup's rule as the contract writes it (lookupDescription). The
// schema is printed once into schema.graphql, so its text names the cache lifetime's setting and
// default instead of a configured figure.
import { describe, expect, it } from 'vitest';
import { ENV } from '../../src/config.js';
import { humanMs, lookupDescription } from '../../src/contract/index.js';
import { schema } from '../../src/graphql/index.js';

describe('Query.property description', () => {
  it("is the contract's lookup rule, naming CACHE_TTL_MS and its default", () => {
    const description = schema.getQueryType()!.getFields().property!.description!;
    const lifetime = `the cache lifetime, CACHE_TTL_MS: ${humanMs(ENV.properties.CACHE_TTL_MS.default)} by default`;
    expect(description).toContain(lookupDescription(lifetime));
    expect(description).toContain('a cache hit (the cache lifetime, CACHE_TTL_MS: 24 h by default) costs 0');
  });
});

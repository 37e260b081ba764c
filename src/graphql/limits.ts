// Every limit the GraphQL face enforces, and the refusals more than one plugin answers with. The
// plugins read them from here, so no plugin imports another.
import type { GraphQLError } from 'graphql';
import { LookupError } from '../contract/index.js';
import { toGraphQLError } from './errors.js';

/** A document's shape (graphql-armor, use-armor.ts), checked before validation. */
export const SHAPE_LIMITS = {
  /** Deepest legitimate path: properties.results.data.priceHistory.date is 5. Introspection is exempt. */
  maxDepth: 10,
  /** 50 aliased lookups plus room for aliased sub-fields. */
  maxAliases: 60,
  maxTokens: 4000,
  maxDirectives: 50,
} as const;

/** Introspection per document (use-introspection-limits.ts): it is public, and its answer is large. */
export const INTROSPECTION_LIMITS = {
  /** `__schema` fields per document: the whole schema once. */
  schemaFields: 1,
  /** `__type(name:)` fields per document. */
  typeFields: 10,
} as const;

/** Operations per batched request (a JSON array body); their lookups count together. */
export const MAX_BATCHED_OPERATIONS = 5;

/**
 * Lookups of one operation, or of all operations of a batched request, past the batch limit (the
 * contract's MAX_BATCH_ITEMS): the same code, message and details as REST's batch refusal.
 */
export const tooManyLookups = (max: number, received: number): GraphQLError =>
  toGraphQLError(new LookupError('too_many_items', { details: { max, received } }), { http: 'request' });

// From the service's one error type (LookupError, with a spec code) to GraphQL errors, for the
// failures that are not data: the request's own (API key, store down, limits, a bad batch).
// The code → status table is the contract's ERROR_CODES, the same one REST uses.
import { GraphQLError } from 'graphql';
import type { LookupError } from '../contract/index.js';

export interface CodedErrorOptions {
  /** Sets the HTTP status (and retry-after) of the whole response: for request-level failures. */
  http?: boolean;
}

/** A GraphQL error carrying the spec code in `extensions.code` (and `details` when there are any). */
export function toGraphQLError(err: LookupError, opts: CodedErrorOptions = {}): GraphQLError {
  const retryAfter = err.retryAfterSeconds;
  // No originalError: Yoga would treat a GraphQLError wrapping a non-GraphQL error as unexpected and mask it.
  return new GraphQLError(err.message, {
    extensions: {
      code: err.code,
      ...(err.details === undefined ? {} : { details: err.details }),
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(opts.http
        ? { http: { status: err.status, ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }) } }
        : {}),
    },
  });
}

/**
 * A refusal of the operation before it runs (limits): coded, HTTP 400 under
 * application/graphql-response+json and 200 under application/json, like a validation error
 * (GraphQL over HTTP).
 */
export function requestError(code: string, message: string, details?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, ...(details ? { details } : {}), http: { status: 400, spec: true } },
  });
}

// From the service's one error type (LookupError, with a spec code) to GraphQL errors, for the
// failures that are not data: the request's own (API key, store down, limits, a bad batch).
// The code → status table is the contract's ERROR_CODES, the same one REST uses.
import { GraphQLError, type ASTNode } from 'graphql';
import type { LookupError } from '../contract/index.js';

export interface CodedErrorOptions {
  /**
   * How the error sets the HTTP status of the response:
   * - `response`: the whole response takes the code's status (and retry-after), whatever the accept
   *   header: for failures of the request itself (API key, store down while authenticating).
   * - `request`: a refusal before execution (limits, invalid variables): the code's status under
   *   application/graphql-response+json, 200 under application/json, like a validation error
   *   (GraphQL over HTTP).
   * Unset: a field error, the status stays 200.
   */
  http?: 'response' | 'request';
  /** An HTTP status other than the code's (413 for a request past a size limit). */
  status?: number;
  /** The document nodes the error is about (e.g. a variable definition). */
  nodes?: ReadonlyArray<ASTNode> | undefined;
}

/** A GraphQL error carrying the spec code in `extensions.code` (and `details` when there are any). */
export function toGraphQLError(err: LookupError, opts: CodedErrorOptions = {}): GraphQLError {
  const retryAfter = err.retryAfterSeconds;
  const status = opts.status ?? err.status;
  const http =
    opts.http === 'response'
      ? { status, ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }) }
      : opts.http === 'request'
        ? { status, spec: true }
        : undefined;
  // No originalError: Yoga would treat a GraphQLError wrapping a non-GraphQL error as unexpected and mask it.
  return new GraphQLError(err.message, {
    ...(opts.nodes ? { nodes: opts.nodes } : {}),
    extensions: {
      code: err.code,
      ...(err.details === undefined ? {} : { details: err.details }),
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(http ? { http } : {}),
    },
  });
}

/**
 * A refusal of the operation before it runs, with a GraphQL-only code (no entry in the contract's
 * table, e.g. query_too_complex): HTTP 400 under application/graphql-response+json and 200 under
 * application/json, like a validation error.
 */
export function requestError(code: string, message: string, details?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, ...(details ? { details } : {}), http: { status: 400, spec: true } },
  });
}

/**
 * A whole response body in GraphQL's format for a refusal that never reached Yoga's executor (the
 * HTTP layer's own answers on /graphql: a bad content-type, the drain, an empty 406/415 from Yoga).
 */
export function graphqlErrorBody(err: LookupError): { errors: Array<{ message: string; extensions: Record<string, unknown> }> } {
  const retryAfter = err.retryAfterSeconds;
  return {
    errors: [{
      message: err.message,
      extensions: {
        code: err.code,
        ...(err.details === undefined ? {} : { details: err.details }),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      },
    }],
  };
}

// From the service's one error type (LookupError, with a spec code) to GraphQL errors, for the
// failures that are not data: the request's own (API key, store down, limits, a bad batch).
// The code → status table is the contract's ERROR_CODES, the same one REST uses.
import { GraphQLError, type ASTNode } from 'graphql';
import { graphqlHttpOf, LookupError, type GraphqlOnlyCode } from '../contract/index.js';

export interface CodedErrorOptions {
  /**
   * How the error sets the HTTP status of the response:
   * - `response`: the whole response takes the code's status (and retry-after), whatever the accept
   *   header: for failures of the request itself (API key, store down while authenticating).
   * - `request`: a refusal before execution (limits, invalid variables): the code's status under
   *   application/graphql-response+json, 200 under application/json, like a validation error
   *   (GraphQL over HTTP).
   * Unset: as the table says for the code (GraphQL's own codes), else a field error: the status stays 200.
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
  const mode = opts.http ?? graphqlHttpOf(err.code);
  const http =
    mode === 'response'
      ? { status, ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }) }
      : mode === 'request'
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
 * A refusal of the operation with one of GraphQL's own codes (query_too_complex, …): its status and
 * how it applies come from the contract's table, like every other code's.
 */
export function requestError(code: GraphqlOnlyCode, message?: string, details?: Record<string, unknown>): GraphQLError {
  return toGraphQLError(new LookupError(code, { ...(message === undefined ? {} : { message }), ...(details === undefined ? {} : { details }) }));
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

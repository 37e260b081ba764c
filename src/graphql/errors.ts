// From the service's one error type (LookupError, with a spec code) to GraphQL errors, for the
// failures that are not data: the request's own (API key, store down, limits, a bad batch).
// The code → status table is the contract's ERROR_CODES, the same one REST uses.
import { GraphQLError, type ASTNode } from 'graphql';
import { ERROR_CODES, graphqlHttpOf, LookupError, type ErrorCode, type GraphqlOnlyCode } from '../contract/index.js';

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
  return toGraphQLError(
    new LookupError(code, {
      ...(message === undefined ? {} : { message }),
      ...(details === undefined ? {} : { details }),
    }),
  );
}

/**
 * A whole response body in GraphQL's format for a refusal that never reached Yoga's executor (the
 * HTTP layer's own answers on /graphql: a bad content-type, the drain, an empty 406/415 from Yoga).
 */
export function graphqlErrorBody(err: LookupError): {
  errors: Array<{ message: string; extensions: Record<string, unknown> }>;
} {
  const retryAfter = err.retryAfterSeconds;
  return {
    errors: [
      {
        message: err.message,
        extensions: {
          code: err.code,
          ...(err.details === undefined ? {} : { details: err.details }),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        },
      },
    ],
  };
}

// The codes of Yoga, envelop and graphql-js become the table's here (see plugins/use-coded-errors.ts).
export const inTable = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);

/**
 * `whateverAccept`: the status holds under application/json too (a body that cannot be read is no
 * GraphQL validation error), as Yoga meant by the parser's message it leaves in the error.
 */
export type TableCode = { code: ErrorCode; details?: Record<string, unknown>; whateverAccept?: true };
/** An error of a request parser (a multipart form it cannot read) that came without a code. */
export const UNREADABLE_BODY: TableCode = { code: 'bad_body', whateverAccept: true };
/** A validation error of graphql-js, which comes without a code. */
export const INVALID_DOCUMENT: TableCode = {
  code: 'bad_param',
  details: { param: 'query', reason: 'does not fit the schema' },
};

/** The table's code (and details) for a framework's error: by its code, and for Yoga's BAD_REQUEST by its status. */
function tableCodeOf(error: GraphQLError, uncoded?: TableCode): TableCode {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  switch (error.extensions?.code) {
    case 'GRAPHQL_PARSE_FAILED':
      return { code: 'bad_param', details: { param: 'query', reason: 'not a GraphQL document' } };
    case 'GRAPHQL_VALIDATION_FAILED':
      return INVALID_DOCUMENT;
    case 'OPERATION_RESOLUTION_FAILURE':
      return {
        code: 'bad_param',
        details: {
          param: 'operationName',
          reason: 'names no operation of the document, or the document has several and none is named',
        },
      };
    case 'PERSISTED_QUERY_NOT_FOUND':
      return { code: 'persisted_query_not_found' };
    case 'BAD_REQUEST':
      // Yoga's 405 is a mutation sent with GET; its other refusals are of a body it cannot read.
      return status === 405
        ? { code: 'method_not_allowed', details: { allowed: ['POST'] }, whateverAccept: true }
        : UNREADABLE_BODY;
    default:
      // No code, or one nobody here knows: the request's fault when it is not about a field.
      return uncoded ?? (error.path ? { code: 'internal' } : { code: 'bad_param' });
  }
}

/**
 * The error with a code from the table. A framework's error is changed in place (Yoga logs an error it
 * is handed back a different one for at error level, and a client's mistake is not the service's):
 * its HTTP status and accept rule stay, its other extensions (Yoga's `originalError`: a parser's
 * message) go.
 */
export function codeOf(error: GraphQLError, uncoded?: TableCode): GraphQLError {
  if (inTable(error.extensions?.code)) return error;
  const { code, details, whateverAccept } = tableCodeOf(error, uncoded);
  const extensions = error.extensions as Record<string, unknown>;
  const was = extensions.http as { status?: number; headers?: Record<string, string> } | undefined;
  const http = whateverAccept
    ? { status: was?.status ?? ERROR_CODES[code].status, ...(was?.headers ? { headers: was.headers } : {}) }
    : was;
  for (const key of Object.keys(extensions)) delete extensions[key];
  Object.assign(extensions, { code, ...(details ? { details } : {}), ...(http ? { http } : {}) });
  return error;
}

// A batched request (a JSON array of operations) is checked as a whole once its body is parsed,
// before any of its operations runs:
// 1. one to `maxOperations` operations (bad_body: 400 for none, 413 beyond), none with @defer or
//    @stream (Yoga would answer such an operation of a batch with an empty object);
// 2. the API key, once for the whole HTTP request, when any operation needs it: a missing or unknown
//    key (401) or a store that is down (503, retry-after) fails the whole response with that status
//    (per operation, Yoga would answer 200 with one error per operation);
// 3. the lookups of all operations count together against the batch limit (too_many_items).
// A single operation that needs a key and has none is refused here too, before validation.
import type { GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { sendsApiKey } from '../../accounts/index.js';
import { LookupError, MAX_BATCH_ITEMS } from '../../contract/index.js';
import { documentFacts, documentOf } from '../documents.js';
import { toGraphQLError } from '../errors.js';
import { tooManyLookups } from '../limits.js';
import { countRequestLookups, needsApiKey } from '../lookup-count.js';
import type { OperationParams } from '../persisted.js';

export interface BatchedRequestsOptions<ServerContext> {
  schema: GraphQLSchema;
  maxOperations: number;
  maxLookups?: number;
  /**
   * Authenticates the HTTP request (once: the operations' context factory reuses the result);
   * rejects with the coded GraphQL error of a failed authentication.
   */
  authenticate: (request: Request, serverContext: ServerContext) => Promise<unknown>;
}

/** True when the operation's document uses @defer or @stream (a batched answer has no incremental form). */
function isIncremental(params: OperationParams): boolean {
  const document = documentOf(params);
  return document !== null && documentFacts(document).incremental;
}

/**
 * An operation of a batched body as the checks and Yoga read it: the body is only JSON so far, and an
 * operation that is not an object (`[null]`) is one without a query (missing_query for that
 * operation), not a TypeError in every reader of its params.
 */
const asParams = (operation: unknown): OperationParams =>
  operation !== null && typeof operation === 'object' && !Array.isArray(operation)
    ? (operation as OperationParams)
    : {};

export function useBatchedRequests<ServerContext extends Record<string, any>>(
  opts: BatchedRequestsOptions<ServerContext>,
): Plugin<Record<string, unknown>, ServerContext> {
  const maxLookups = opts.maxLookups ?? MAX_BATCH_ITEMS;
  return {
    onRequestParse({ request, serverContext }) {
      return {
        async onRequestParseDone({ requestParserResult, setRequestParserResult }) {
          if (!Array.isArray(requestParserResult)) {
            // A single operation is authenticated by the context factory, after validation; without a
            // key at all it is refused here, so a keyless client never makes the server validate.
            if (!sendsApiKey(request.headers) && needsApiKey(asParams(requestParserResult)))
              await opts.authenticate(request, serverContext);
            return;
          }
          const sent = requestParserResult as unknown[];
          const operations = sent.map(asParams);
          if (operations.some((o, i) => o !== sent[i])) setRequestParserResult(operations as GraphQLParams[]);
          if (operations.length === 0) {
            throw toGraphQLError(
              new LookupError('bad_body', {
                message: 'A batched request needs at least one operation.',
                details: { reason: 'empty array' },
              }),
              { http: 'response' },
            );
          }
          if (operations.length > opts.maxOperations) {
            throw toGraphQLError(
              new LookupError('bad_body', {
                message: `At most ${opts.maxOperations} operations per batched request.`,
                details: { reason: 'too many operations', max: opts.maxOperations, received: operations.length },
              }),
              { http: 'response', status: 413 },
            );
          }
          if (operations.some(isIncremental)) {
            throw toGraphQLError(
              new LookupError('bad_body', {
                message: '@defer and @stream are not available in a batched request; send that operation on its own.',
                details: { reason: 'incremental delivery in a batch' },
              }),
              { http: 'response' },
            );
          }
          if (operations.some(needsApiKey)) await opts.authenticate(request, serverContext);
          const total = operations.reduce((n, params) => n + countRequestLookups(opts.schema, params), 0);
          if (total > maxLookups) throw tooManyLookups(maxLookups, total);
        },
      };
    },
  };
}

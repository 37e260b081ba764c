// Builds the Yoga instance (no listening; index.ts mounts it on Fastify).
// lookupContext is the GraphQL side of REST's contextFor: authenticate the API key (x-api-key or Authorization: Bearer, apiKeyFrom), then one
// createRequestContext per HTTP request, with the batch deadline and the client-gone signal. A single
// operation reaches it through the context factory; a batched request (a JSON array) through
// use-batched-requests.ts, once, before any operation runs, so a refusal sets the whole response's
// status; the operations' context factories then share that one context.
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaInitialContext, type YogaLogger } from 'graphql-yoga';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFrom } from '../accounts/index.js';
import { bodyTooLarge, ERROR_CODES, isLookupError, MAX_BODY_BYTES } from '../contract/index.js';
import { stopSignal } from '../http/drain.js';
import type { Background } from '../background.js';
import { openRequest, type CoreDeps, type RequestContext } from '../lookup/index.js';
import { requestIdOf } from '../observability/http.js';
import type { GraphqlContext } from './builder.js';
import { GRAPHQL_PATH } from './endpoint.js';
import { codeOf, toGraphQLError } from './errors.js';
import { graphiqlOptions, renderGraphiQL } from './graphiql.js';
import { documentCache } from './documents.js';
import { MAX_BATCHED_OPERATIONS } from './limits.js';
import { needsApiKey } from './lookup-count.js';
import { useArmor } from './plugins/use-armor.js';
import { useBatchedRequests } from './plugins/use-batched-requests.js';
import { useBodyLimit } from './plugins/use-body-limit.js';
import { useCodedErrors } from './plugins/use-coded-errors.js';
import { useHttpRefusals } from './plugins/use-http-refusals.js';
import { useIdempotency } from './plugins/use-idempotency.js';
import { useIntrospectionLimits } from './plugins/use-introspection-limits.js';
import { useKeylessBudget } from './plugins/use-keyless-budget.js';
import { useLookupLimit } from './plugins/use-lookup-limit.js';
import { usePersisted } from './plugins/use-persisted.js';
import { schema } from './schema/index.js';

export interface ServerContext {
  req?: FastifyRequest;
  reply?: FastifyReply;
}

function yogaLogger(core: CoreDeps): YogaLogger {
  const log = core.logger.child({ face: 'graphql' });
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      if (first instanceof Error) log[level]({ err: first }, typeof rest[0] === 'string' ? rest[0] : first.message);
      else log[level]({ detail: rest.length > 0 ? rest : undefined }, String(first));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Yoga's refusal of a body past maxRequestBodySize, with REST's code and details for a body past its
 * limit (bad_body); the status stays 413.
 */
const tooLargeForYoga = (): GraphQLError => toGraphQLError(bodyTooLarge(), { http: 'response', status: 413 });

/**
 * Every error of a response passes here. Yoga's oversized-body error gets the project's code, as do
 * its other request errors (codeOf); unexpected errors stay masked, with the spec's
 * `internal` code and message (REST's 500 body).
 */
function maskAsInternal(error: unknown, message: string, isDev?: boolean): Error {
  if (error instanceof GraphQLError && error.extensions.code === 'REQUEST_ENTITY_TOO_LARGE') return tooLargeForYoga();
  const masked = maskError(error, message, isDev);
  if (masked === error && masked instanceof GraphQLError) return codeOf(masked);
  if (masked === error || !(masked instanceof GraphQLError)) return masked;
  return new GraphQLError(masked.message, {
    nodes: masked.nodes ?? null,
    source: masked.source ?? null,
    positions: masked.positions ?? null,
    path: masked.path ?? null,
    extensions: { ...masked.extensions, code: 'internal' },
  });
}

export function buildYoga(core: CoreDeps, background: Background) {
  const contexts = new WeakMap<Request, Promise<RequestContext>>();

  /** One authenticated lookup context per HTTP request. */
  const lookupContext = (request: Request, req: FastifyRequest | undefined): Promise<RequestContext> => {
    let ctx = contexts.get(request);
    if (!ctx) {
      ctx = (async () => {
        try {
          return await openRequest(core, apiKeyFrom(request.headers), {
            ...(req ? requestIdOf(req) : { requestId: core.newId() }),
            // The client-gone signal, also aborted when the drain gives up on the request at shutdown.
            signal: () => (req ? stopSignal(req, request.signal) : request.signal),
            deadlineMs: core.config.batchDeadlineMs,
            // The core fills the HTTP request's stats (its log line, its RateLimit header).
            ...(req ? { stats: req.stats } : {}),
          });
        } catch (e) {
          throw isLookupError(e) ? toGraphQLError(e, { http: 'response' }) : e;
        }
      })();
      contexts.set(request, ctx);
    }
    return ctx;
  };

  return createYoga<ServerContext, GraphqlContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    logging: yogaLogger(core),
    maskedErrors: { maskError: maskAsInternal, errorMessage: ERROR_CODES.internal.message },
    // Enables batched requests; the limit is checked (with a coded error) by use-batched-requests.ts first.
    batching: { limit: MAX_BATCHED_OPERATIONS },
    // Request bodies past MAX_BODY_BYTES are refused (413), like REST's batch body: by useBodyLimit,
    // which counts only bodies without a content-length (Yoga's own limit re-streams every body).
    maxRequestBodySize: false,
    // One cache of parsed documents for Yoga and the checks that read a document before it (documents.ts).
    parserAndValidationCache: { documentCache },
    // No CORS, as on REST: browser clients call from their own backend (the key is a secret);
    // GraphiQL is served from /graphql itself, so it is same-origin.
    cors: false,
    graphiql: graphiqlOptions,
    renderGraphiQL,
    context: async ({ request, params, req }: YogaInitialContext & ServerContext): Promise<GraphqlContext> => ({
      core,
      background,
      lookup: needsApiKey(params) ? await lookupContext(request, req) : null,
    }),
    plugins: [
      useHttpRefusals(),
      useKeylessBudget({
        burst: core.config.keylessBurst,
        perSecond: core.config.keylessPerSecond,
        now: () => core.clock().getTime(),
      }),
      useDeferStream(),
      useIntrospectionLimits(),
      useCodedErrors(),
      useArmor(),
      usePersisted(),
      useBatchedRequests<ServerContext>({
        schema,
        maxOperations: MAX_BATCHED_OPERATIONS,
        authenticate: (request, { req }) => lookupContext(request, req),
      }),
      // After useHttpRefusals: it wraps the request parser that one wraps.
      useIdempotency<ServerContext>({ authenticate: (request, { req }) => lookupContext(request, req) }),
      useLookupLimit(),
      useBodyLimit(MAX_BODY_BYTES),
    ],
  });
}

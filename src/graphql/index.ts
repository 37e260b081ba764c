// The GraphQL face: Yoga + the Pothos schema on POST/GET /graphql of the same Fastify server as REST,
// with GraphiQL for browsers. It holds no rule of its own: every lookup goes to the core.
import type { FastifyInstance } from 'fastify';
import { lexicographicSortSchema, printSchema } from 'graphql';
import type { Background } from '../background.js';
import { addErrorFormat } from '../http/fallbacks.js';
import type { CoreDeps } from '../lookup/index.js';
import { schema } from './schema/index.js';
import { GRAPHQL_PATH } from './endpoint.js';
import { graphqlErrorBody } from './errors.js';
import { buildYoga } from './yoga.js';

export { schema } from './schema/index.js';

/** schema.graphql's content: the sorted SDL of the schema. */
export const printSchemaSdl = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;

/** @defer/@stream results (multipart or event stream) arrive in parts, and are streamed as they come. */
function isIncremental(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.startsWith('multipart/') || type.startsWith('text/event-stream');
}

/** The code of a refused request's first error (GraphQL's format), or `unknown` for a body without one. */
function firstErrorCode(text: string): string {
  try {
    const body = JSON.parse(text) as { errors?: Array<{ extensions?: { code?: unknown } }> };
    const code = body.errors?.[0]?.extensions?.code;
    return typeof code === 'string' ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

const isGraphqlPath = (url: string): boolean => url === GRAPHQL_PATH || url.startsWith(`${GRAPHQL_PATH}?`);

export async function registerGraphql(app: FastifyInstance, core: CoreDeps, background: Background): Promise<void> {
  // What the server refuses before GraphQL runs (a bad Host, a drain, a framework error) on /graphql is
  // answered in GraphQL's format.
  addErrorFormat(app, {
    matches: isGraphqlPath,
    send: (reply, err) => {
      const retryAfter = err.retryAfterSeconds;
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      return reply.code(err.status).type('application/json; charset=utf-8').send(graphqlErrorBody(err));
    },
  });
  const yoga = buildYoga(core, background);
  await app.register(async (scope) => {
    // Yoga reads the body itself (JSON, GraphQL over HTTP, multipart); Fastify must not consume it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      url: GRAPHQL_PATH,
      // No OPTIONS: there is no CORS (yoga.ts); the server's 405 answers it, as on REST.
      method: ['GET', 'POST'],
      handler: async (request, reply) => {
        const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply });
        // Send, then return the reply (returning reply.send(...) races Fastify's own send).
        if (isIncremental(response)) reply.send(response);
        else {
          // A whole result is sent as its text: piping it as a stream costs more than the result.
          reply.code(response.status);
          response.headers.forEach((value, name) => void reply.header(name, value));
          const text = await response.text();
          // A refused request (401, 429, 503…): its code goes in the request's log line, as REST's do.
          if (response.status >= 400) request.stats.answered(firstErrorCode(text));
          reply.send(text);
        }
        return reply;
      },
    });
  });
}

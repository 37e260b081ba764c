// The GraphQL face: Yoga + the Pothos schema on POST/GET /graphql of the same Fastify server as REST,
// with GraphiQL for browsers. It holds no rule of its own: every lookup goes to the core.
import type { FastifyInstance } from 'fastify';
import { lexicographicSortSchema, printSchema } from 'graphql';
import type { CoreDeps } from '../lookup/index.js';
import { schema } from './schema/index.js';
import { buildYoga, GRAPHQL_PATH } from './yoga.js';

export { schema } from './schema/index.js';

/** schema.graphql's content: the sorted SDL of the schema. */
export const printSchemaSdl = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;

export async function registerGraphql(app: FastifyInstance, core: CoreDeps): Promise<void> {
  const yoga = buildYoga(core);
  await app.register(async (scope) => {
    // Yoga reads the body itself (JSON, GraphQL over HTTP, multipart); Fastify must not consume it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      url: GRAPHQL_PATH,
      // No OPTIONS: there is no CORS (yoga.ts); the server's 405 answers it, as on REST.
      method: ['GET', 'POST'],
      schema: { hide: true },
      handler: async (request, reply) => {
        const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply });
        // Send, then return the reply (returning reply.send(...) races Fastify's own send).
        reply.send(response);
        return reply;
      },
    });
  });
}

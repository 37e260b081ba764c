// /openapi.json and the API docs page at /docs, served from local assets (works offline).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { buildOpenApi } from './openapi.js';

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const document = buildOpenApi();
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { tryItOutEnabled: true, persistAuthorization: true } });
  app.get('/openapi.json', async (_request, reply) => reply.send(document));
}

// The REST face: v1 routes, health, docs, and the envelope for everything else.
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../lookup/index.js';
import { docsRoutes } from './docs.js';
import { drainHooks } from './drain.js';
import { v1Headers } from './envelope.js';
import { fallbackHandlers } from './fallbacks.js';
import { accountRoute } from './routes/account.js';
import { batchRoute } from './routes/batch.js';
import { healthRoutes } from './routes/health.js';
import { jobsRoute } from './routes/jobs.js';
import { propertyRoute } from './routes/property.js';
import { watchesRoute } from './routes/watches.js';
import { mcpRoute } from '../mcp/http.js';

export { buildOpenApi } from './openapi.js';
export { sendError } from './envelope.js';
export { clientError, frameworkError } from './fallbacks.js';
export { Drain, stopSignal } from './drain.js';

export async function registerRest(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  // A callback hook: an async one costs a promise and a microtask on every answer.
  app.addHook('onSend', (_request, reply, payload, done) => {
    v1Headers(reply);
    done(null, payload);
  });
  fallbackHandlers(app);
  drainHooks(app);
  healthRoutes(app, deps);
  propertyRoute(app, deps);
  await batchRoute(app, deps);
  accountRoute(app, deps);
  await jobsRoute(app, deps);
  await watchesRoute(app, deps);
  // The MCP server over streamable HTTP, on the same port and core (src/mcp).
  mcpRoute(app, deps);
  await docsRoutes(app, deps.config);
}

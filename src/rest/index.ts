// The REST face: v1 routes, health and docs. The envelope, drain and fallbacks are the server's HTTP
// layer (src/http), shared with the other faces.
import type { FastifyInstance } from 'fastify';
import type { Background } from '../background.js';
import type { CoreDeps } from '../lookup/index.js';
import { docsRoutes } from './docs.js';
import { accountRoute } from './routes/account.js';
import { batchRoute } from './routes/batch.js';
import { healthRoutes } from './routes/health.js';
import { historyRoute } from './routes/history.js';
import { jobsRoute } from './routes/jobs.js';
import { propertyRoute } from './routes/property.js';
import { statusRoute } from './routes/status.js';
import { watchesRoute } from './routes/watches.js';
import { webhooksRoute } from './routes/webhooks.js';

export { buildOpenApi } from './openapi.js';

export async function registerRest(app: FastifyInstance, deps: CoreDeps, background: Background): Promise<void> {
  healthRoutes(app, deps);
  propertyRoute(app, deps);
  historyRoute(app, deps);
  await batchRoute(app, deps);
  accountRoute(app, deps);
  statusRoute(app, deps);
  await jobsRoute(app, deps, background);
  await watchesRoute(app, deps, background);
  await webhooksRoute(app, deps, background);
  await docsRoutes(app, deps.config);
}

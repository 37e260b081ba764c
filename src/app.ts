// Builds the service (no listening): the core's long-lived parts, the REST face and the GraphQL face
// on one Fastify instance. index.ts listens; tests build and listen on a free port.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Collector } from './collector/types.js';
import { registerGraphql } from './graphql/index.js';
import { clientError, frameworkError, registerRest } from './http/index.js';
import { createLogger } from './logger.js';
import { SingleFlight, type CoreDeps } from './lookup/index.js';
import type { Store } from './store/index.js';

export interface AppDeps {
  config: Config;
  store: Store;
  collector: Collector;
  clock?: () => Date;
  newId?: () => string;
  logger?: Logger;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const logger = deps.logger ?? createLogger(deps.config.logLevel);
  const core: CoreDeps = {
    config: deps.config,
    store: deps.store,
    collector: deps.collector,
    clock: deps.clock ?? (() => new Date()),
    newId: deps.newId ?? randomUUID,
    logger,
    flights: new SingleFlight(),
  };
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => core.newId(),
    requestIdHeader: false,
    // A batch may run up to its deadline; keep the socket open a little longer than that.
    requestTimeout: deps.config.batchDeadlineMs + 30_000,
    return503OnClosing: true,
    // HEAD would run (and bill) a whole lookup for a body nobody receives.
    exposeHeadRoutes: false,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  await registerRest(app, core);
  await registerGraphql(app, core);
  // The collector's page-reading workers stop with the app.
  app.addHook('onClose', async () => deps.collector.close?.());
  return app;
}

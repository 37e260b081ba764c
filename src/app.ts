// Builds the service (no listening): the core's long-lived parts, the REST face and the GraphQL face
// on one Fastify instance. index.ts listens; tests build and listen on a free port.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Collector } from './collector/types.js';
import { AuthCache } from './accounts/index.js';
import { registerGraphql } from './graphql/index.js';
import { registerWeb } from './web/index.js';
import { clientError, Drain, frameworkError, registerRest } from './rest/index.js';
import { createLogger, RequestLog } from './logger.js';
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
    auth: new AuthCache(deps.config.authCacheTtlMs),
  };
  // Any account written anywhere (revoke, rotate, plan) empties the key cache of this instance.
  const stopWatching = deps.store.watchAccounts(() => core.auth.forgetAll());
  const { headersTimeoutMs, requestTimeoutMs } = deps.config;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => core.newId(),
    logController: new RequestLog(),
    requestIdHeader: false,
    // The time a client has to send its request (headers, then body): Node checks only the receiving,
    // never the answer, so a batch may work up to its own deadline.
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: headersTimeoutMs,
      // Node checks both limits on this tick; the default (30 s) would let a slow client overstay them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      // A missing Host is answered in the envelope (http/fallbacks.ts), not by Node's empty 400.
      requireHostHeader: false,
    },
    // The drain answers in the envelope (http/drain.ts).
    return503OnClosing: false,
    // HEAD would run (and bill) a whole lookup for a body nobody receives.
    exposeHeadRoutes: false,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  app.decorate('drain', new Drain());
  app.addHook('onClose', async () => stopWatching());
  await registerRest(app, core);
  await registerGraphql(app, core);
  registerWeb(app, core);
  // The collector's page-reading workers stop with the app.
  app.addHook('onClose', async () => deps.collector.close?.());
  return app;
}

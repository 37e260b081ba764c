// Builds the service (no listening): the core's long-lived parts, then on one Fastify instance the
// shared HTTP layer (src/http) and the faces over it: REST, GraphQL, MCP over HTTP, and the pages.
// index.ts listens; tests build and listen on a free port.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerGraphql } from './graphql/index.js';
import { clientError, Drain, frameworkError, registerHttp, sendError } from './http/index.js';
import { mcpRoute } from './mcp/http.js';
import { registerRest } from './rest/index.js';
import { registerWeb } from './web/index.js';
import { createBackground, type Background } from './background.js';
import { createCore, type CoreParts } from './core.js';
import type { CoreDeps } from './lookup/types.js';
import { RequestLog } from './logger.js';
import { rateLimitPolicy } from './contract/rate-limit.js';
import { clientRequestId, metricsRoute, observeHttp, startMetricsListener } from './observability/http.js';

export { createCore } from './core.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's core. */
    core: CoreDeps;
    /** Jobs, watches and webhooks beside the core: startService starts their workers (WORK_IN_SERVICE). */
    background: Background;
  }
}

/** What a service is built from: the core's parts (tests inject a clock, ids, a logger or the per-key limits). */
export type AppDeps = CoreParts;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const core = createCore(deps);
  const background = createBackground(core);
  const logger = core.logger;
  // Any account written anywhere (revoke, rotate, plan) empties the key cache of this instance.
  const stopWatching = deps.store.watchAccounts(() => core.auth.forgetAll());
  const { headersTimeoutMs, requestTimeoutMs, trustProxy } = deps.config;
  const app = Fastify({
    // TRUST_PROXY: behind nginx, request.ip is the client X-Forwarded-For names (the keyless budget's key), not nginx.
    trustProxy,
    loggerInstance: logger as FastifyBaseLogger,
    // A client's x-request-id when it is a sane token (echoed, logged, in error bodies), else a new one.
    genReqId: (req) => clientRequestId(req.headers['x-request-id']) ?? core.newId(),
    logController: new RequestLog(),
    requestIdHeader: false,
    // The time a client has to send its request (headers, then body): Node checks only the receiving,
    // never the answer, so a batch may work up to its own deadline.
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: headersTimeoutMs,
      // Node checks both limits on this tick; the default (30 s) would let a slow client overstay them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      // A missing Host is answered in the envelope (src/http/fallbacks.ts), not by Node's empty 400.
      requireHostHeader: false,
    },
    // The drain answers in the envelope (src/http/drain.ts).
    return503OnClosing: false,
    // HEAD would run (and bill) a whole lookup for a body nobody receives.
    exposeHeadRoutes: false,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  app.decorate('drain', new Drain());
  app.decorate('core', { getter: () => core });
  app.decorate('background', { getter: () => background });
  app.addHook('onClose', async () => stopWatching());
  observeHttp(app, core.metrics, rateLimitPolicy(core.limits.settings.perMinute));
  registerHttp(app);
  await registerRest(app, core, background);
  await registerGraphql(app, core, background);
  // The MCP server over streamable HTTP, on the same port and core (src/mcp).
  mcpRoute(app, core, background);
  registerWeb(app, core);
  metricsRoute(app, core.metrics, deps.config.metricsToken, sendError);
  // METRICS_PORT: /metrics on a listener of its own, started and stopped with the service's. Started
  // in onReady, whose failure rejects ready() and listen() (an onListen hook's error is only logged);
  // onClose waits for a start still under way, so a close never leaves the listener open.
  app.decorate('metricsServer', null);
  const { metricsPort } = deps.config;
  let metricsStarting: Promise<unknown> = Promise.resolve();
  if (metricsPort !== null) {
    app.addHook('onReady', async () => {
      const starting = startMetricsListener(core.metrics, metricsPort, deps.config.metricsHost);
      metricsStarting = starting.catch(() => undefined);
      app.metricsServer = await starting;
    });
  }
  app.addHook('onClose', async () => {
    await metricsStarting;
    const server = app.metricsServer;
    if (server) await new Promise((resolve) => server.close(resolve));
    // What this instance counted for the public figures, written before the store closes.
    await core.figures.close();
    core.metrics.close();
    await core.limits.close();
  });
  // The collector's page-reading workers stop with the app (through the measured wrapper, which stops observing).
  app.addHook('onClose', async () => core.collector.close?.());
  // onClose hooks run last-registered first: the background's workers stop before the collector and limits they use.
  app.addHook('onClose', async () => background.close());
  return app;
}

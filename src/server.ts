// Starts the service from a configuration: store, accounts seed, collector, app, listen,
// and a graceful stop. Used by `npm start` (index.ts) and `npm run demo` (demo.ts).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import closeWithGrace from 'close-with-grace';
import { isInstanceBusy, isLookupError } from './contract/index.js';
import { reseedOnStoreReset, seedAccountsFromFile } from './accounts/index.js';
import { buildApp } from './app.js';
import type { Background } from './background.js';
import { settleVoids } from './lookup/holdings.js';
import { flushDayTally } from './accounts/usage-days.js';
import { createCollector } from './collector/index.js';
import { backendFor } from './backend.js';
import { STOP_AFTER_GRACE_MS, warnIfDevSecret, warnIfNoProxy, type Config } from './config.js';
import { createLogger } from './logger.js';
import type { AccountStore, Store } from './store/index.js';
import { startSweeper } from './sweeper.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  /** The graceful stop (see shutdown): resolves once every connection is closed and the store is closed. */
  close(): Promise<void>;
}

export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel, undefined, config.logPretty),
): Promise<RunningService> {
  warnIfDevSecret(config, logger);
  warnIfNoProxy(config, logger);
  const backend = backendFor(config);
  const store = await backend.store();
  const seeding = config.accountsFile
    ? await seedWhenReachable(store, config.accountsFile, config.apiKeySecret, logger)
    : null;
  if (config.accountsFile) reseedOnStoreReset(store, config.accountsFile, config.apiKeySecret, logger);
  const collector = createCollector(config, { logger, canary: true });
  const app = await buildApp({ config, store, collector, logger });
  let background: Background | null = null;
  try {
    // Made before listening: a part that cannot be made stops the start-up like a port in use does.
    // Without Redis no worker process can share this one's work: it runs here whatever WORK_IN_SERVICE says.
    if (config.workInService || !backend.shared) background = app.background;
    await app.listen({ port: config.port, host: config.host });
  } catch (e) {
    // A listener that cannot start (a port in use, the METRICS_PORT listener's included) stops the start-up, leaving nothing open.
    seeding?.stop();
    await app.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw e;
  }
  // Jobs, webhooks and watch checks run here too unless WORK_IN_SERVICE=false on Redis (then only `npm run worker`
  // processes run them). Started without waiting, so a service whose Redis is down still starts (not
  // ready), its workers joining when Redis answers.
  background?.startWorkers().catch((err: unknown) => logger.error({ err }, 'background workers did not start'));
  const stopSweeper = startSweeper(store, config.leaseTtlMs, logger);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    app,
    store,
    url: `http://${host}:${port}`,
    async close() {
      const until = Date.now() + config.shutdownGraceMs;
      stopSweeper();
      seeding?.stop();
      // The app's close stops the background's workers (a chunk under way is left to be taken over) before the store closes.
      await shutdown(app, config.shutdownGraceMs);
      // Charges to take back (unanswered commits): settled within the grace, or logged for reconciliation.
      await settleVoids(store, until, logger);
      // The lookups' outcomes not yet added to their accounts' days.
      await flushDayTally(store);
      await store.close();
    },
  };
}

/** After the grace: how long aborted requests get to answer (their items fail unbilled) before sockets are cut. */
const ABORTED_ANSWER_MS = 3_000;

const timer = (ms: number): { done: Promise<void>; clear(): void } => {
  let t: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    t = setTimeout(resolve, ms);
    t.unref();
  });
  return { done, clear: () => clearTimeout(t) };
};

/**
 * The graceful stop: no new connections; idle keep-alive sockets closed at once; requests arriving on
 * open connections refused (503 upstream_busy, reason shutting_down; readyz included); running requests answered, each
 * closing its connection. Requests still running after `graceMs` have their lookups aborted, which
 * releases their reservations, so their items fail unbilled; they get ABORTED_ANSWER_MS to answer,
 * then any connection left is cut. Keep graceMs + ABORTED_ANSWER_MS under the orchestrator's grace
 * period (compose: 40 s), or a SIGKILL may land between a charge and its answer.
 */
export async function shutdown(app: FastifyInstance, graceMs: number): Promise<void> {
  app.drain.start();
  const closed = app.close();
  app.server.closeIdleConnections();
  const grace = timer(graceMs);
  const finished = await Promise.race([app.drain.whenIdle().then(() => true), grace.done.then(() => false)]);
  grace.clear();
  if (!finished) {
    app.log.warn({ requests: app.drain.inFlight }, 'shutdown grace over: aborting the lookups still running');
    app.drain.abortAll();
  }
  const cut = timer(finished ? graceMs : ABORTED_ANSWER_MS);
  await Promise.race([closed, cut.done]);
  cut.clear();
  app.server.closeAllConnections();
  await closed;
}

const SEED_RETRY_MS = 2_000;

/**
 * Seeds the accounts file now, or, while the store is unreachable, as soon as it can be reached:
 * the service starts (and reports not ready) rather than dying with its store. A bad file still
 * stops the start-up, with its reason.
 */
async function seedWhenReachable(
  store: AccountStore,
  file: string,
  secret: string,
  logger: Logger,
): Promise<{ stop(): void }> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      const n = await seedAccountsFromFile(store, file, secret);
      logger.info({ accounts: n, file }, 'accounts seeded');
    } catch (e) {
      // An unreachable store, or one this process was too busy to hear (shed): try again later.
      const shed = isInstanceBusy(e, 'overloaded');
      if (!shed && (!isLookupError(e) || e.code !== 'store_unavailable')) throw e;
      logger.warn(
        { file },
        shed
          ? 'too busy to seed: accounts will be seeded shortly'
          : 'store unreachable: accounts will be seeded when it answers',
      );
      timer = setTimeout(
        () => void attempt().catch((err: unknown) => logger.error({ err }, 'seeding accounts failed')),
        SEED_RETRY_MS,
      );
      timer.unref();
    }
  };
  await attempt();
  return { stop: () => clearTimeout(timer) };
}

/** Beyond the aborted requests' answer time: settling charges to take back and closing the store. */
const STOP_MARGIN_MS = STOP_AFTER_GRACE_MS - ABORTED_ANSWER_MS;

/** Faults, not stop requests: they keep their default action (a core dump) instead of a graceful stop on a broken process. */
export const FAULT_SIGNALS = ['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGTRAP', 'SIGABRT'] as const;

/**
 * On SIGTERM, SIGINT (and the other stop signals), an uncaught error, or an empty event loop
 * (close-with-grace): the graceful stop (close, then `extra`), then exit 0, or 1 after an error. A
 * second signal exits at once with 1; so does a stop still running past SHUTDOWN_GRACE_MS plus the
 * aborted requests' answer time plus STOP_MARGIN_MS, as a backstop for a close that hangs.
 */
export function stopOnSignals(
  service: RunningService,
  graceMs: number,
  extra: () => Promise<void> = async () => {},
): void {
  const log = service.app.log;
  closeWithGrace(
    {
      delay: graceMs + ABORTED_ANSWER_MS + STOP_MARGIN_MS,
      skip: [...FAULT_SIGNALS],
      logger: { error: (m: unknown) => log.error(m) },
    },
    async ({ signal, err }) => {
      if (err) log.error({ err }, 'stopping after an uncaught error');
      else log.info({ signal }, 'stopping');
      await service.close();
      await extra();
      log.info('stopped');
    },
  );
}

/**
 * Process warnings (deprecations, listener limits) as JSON log lines instead of Node's text on stderr,
 * so every line the service writes can be parsed.
 */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (w) =>
    logger.warn(
      { warning: { name: w.name, message: w.message, code: (w as NodeJS.ErrnoException).code } },
      'process warning',
    ),
  );
}

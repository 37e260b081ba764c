// `npm run worker`: a process that only runs background work (lookup job chunks, webhook deliveries,
// watch checks) from the shared queues, no HTTP. Any number of them share the work with the service
// instances (WORK_IN_SERVICE). Stops gracefully on SIGTERM/SIGINT: the workers stop taking work and a
// chunk under way is left to another worker (BullMQ's stalled-job check), then the store closes.
import { EXIT_CONFIG, loadConfigOrExit, STOP_AFTER_GRACE_MS, warnIfNoProxy } from './config.js';

const config = loadConfigOrExit();
const { backendFor } = await import('./backend.js');
const backend = backendFor(config);
// Workers get their work through Redis: on an in-memory store one would run alone, never given any.
if (!backend.shared) {
  process.stderr.write(
    'Configuration refused (1 problem; see docs/configuration.md):\n' +
      '  npm run worker needs REDIS_URL or REDIS_CLUSTER_NODES (without Redis, jobs run in the service process)\n',
  );
  process.exit(EXIT_CONFIG);
}
const { createLogger } = await import('./logger.js');
const { FAULT_SIGNALS, logProcessWarnings } = await import('./server.js');
const { createCore } = await import('./core.js');
const { createBackground } = await import('./background.js');
const { createCollector } = await import('./collector/index.js');
const { settleVoids } = await import('./lookup/holdings.js');
const { flushDayTally } = await import('./accounts/usage-days.js');
const { default: closeWithGrace } = await import('close-with-grace');
const { startSweeper } = await import('./sweeper.js');

const logger = createLogger(config.logLevel, undefined, config.logPretty);
logProcessWarnings(logger);
warnIfNoProxy(config, logger);
const store = await backend.store();
const collector = createCollector(config, { logger });
const core = createCore({ config, store, collector, logger });
const background = createBackground(core);
try {
  await background.startWorkers();
} catch (err) {
  logger.fatal({ err }, `worker start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
// Its chunks hold reservations too: a worker beside WORK_IN_SERVICE=false instances is the one that sweeps them.
const stopSweeper = startSweeper(store, config.leaseTtlMs, logger);
logger.info('worker started');

closeWithGrace(
  {
    delay: config.shutdownGraceMs + STOP_AFTER_GRACE_MS,
    skip: [...FAULT_SIGNALS],
    logger: { error: (m: unknown) => logger.error(m) },
  },
  async ({ signal, err }) => {
    if (err) logger.error({ err }, 'stopping after an uncaught error');
    else logger.info({ signal }, 'stopping');
    const until = Date.now() + config.shutdownGraceMs;
    stopSweeper();
    await background.close();
    await core.collector.close?.();
    await core.figures.close();
    core.metrics.close();
    await core.limits.close();
    await settleVoids(store, until, logger);
    await flushDayTally(store);
    await store.close();
    logger.info('stopped');
  },
);

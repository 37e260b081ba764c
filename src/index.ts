// `npm start`: the service for real, configured by the environment (see docs/configuration.md).
import { loadConfigOrExit } from './config.js';

// The environment is checked before the service's modules load: a refused configuration answers at once.
const config = loadConfigOrExit();
const { createLogger } = await import('./logger.js');
const { logProcessWarnings, startService, stopOnSignals } = await import('./server.js');
const logger = createLogger(config.logLevel, undefined, config.logPretty);
logProcessWarnings(logger);
// A start-up that fails after the configuration (a port in use, a bad accounts file): one fatal line, exit 1.
const service = await startService(config, logger).catch((err: unknown) => {
  logger.fatal({ err }, `start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
stopOnSignals(service, config.shutdownGraceMs);

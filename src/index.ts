// `npm start`: the service for real, configured by the environment (see README).
import { loadConfigOrExit } from './config.js';

// The environment is checked before the service's modules load: a refused configuration answers at once.
const config = loadConfigOrExit();
const { createLogger } = await import('./logger.js');
const { logProcessWarnings, startService, stopOnSignals } = await import('./server.js');
const logger = createLogger(config.logLevel, undefined, config.logPretty);
logProcessWarnings(logger);
const service = await startService(config, logger);
stopOnSignals(service, config.shutdownGraceMs);

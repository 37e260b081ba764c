// `npm start`: the service for real, configured by the environment (see README).
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { logProcessWarnings, startService, stopOnSignals } from './server.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
logProcessWarnings(logger);
const service = await startService(config, logger);
stopOnSignals(service);

// `npm start`: the service for real, configured by the environment (see README).
import { loadConfig } from './config.js';
import { startService, stopOnSignals } from './server.js';

const service = await startService(loadConfig());
stopOnSignals(service);

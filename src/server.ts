// Starts the service from a configuration: store, accounts seed, collector, app, listen,
// and a graceful stop. Used by `npm start` (index.ts) and `npm run demo` (demo.ts).
import type { FastifyInstance } from 'fastify';
import { seedAccountsFromFile } from './accounts/index.js';
import { buildApp } from './app.js';
import { createCollector } from './collector/index.js';
import { usesDevSecret, type Config } from './config.js';
import { createLogger } from './logger.js';
import { createStore, type Store } from './store/index.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

const SWEEP_EVERY_MS = 60_000;

export async function startService(config: Config): Promise<RunningService> {
  const logger = createLogger(config.logLevel);
  if (usesDevSecret(config)) logger.warn('API_KEY_SECRET is not set: API keys are hashed with a development secret');
  const store = await createStore(config);
  if (config.accountsFile) {
    const n = await seedAccountsFromFile(store, config.accountsFile, config.apiKeySecret);
    logger.info({ accounts: n, file: config.accountsFile }, 'accounts seeded');
  }
  const collector = createCollector(config);
  const app = await buildApp({ config, store, collector, logger });
  await app.listen({ port: config.port, host: config.host });
  const sweeper = setInterval(() => {
    store.sweep().then(
      (n) => n > 0 && logger.warn({ released: n }, 'released reservations left by a crashed lookup'),
      () => undefined,
    );
  }, SWEEP_EVERY_MS);
  sweeper.unref();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    app,
    store,
    url: `http://${host}:${port}`,
    async close() {
      clearInterval(sweeper);
      await app.close();
      await store.close();
    },
  };
}

/** Stops cleanly on SIGINT/SIGTERM: no new requests, running ones finish, then the store closes. */
export function stopOnSignals(service: RunningService, extra: () => Promise<void> = async () => {}): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'stopping');
    service.close().then(extra).then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

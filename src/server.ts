// Starts the service from a configuration: store, accounts seed, collector, app, listen,
// and a graceful stop. Used by `npm start` (index.ts) and `npm run demo` (demo.ts).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { isLookupError } from './contract/index.js';
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
  const seeding = config.accountsFile ? await seedWhenReachable(store, config.accountsFile, config.apiKeySecret, logger) : null;
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
      seeding?.stop();
      await app.close();
      await store.close();
    },
  };
}

const SEED_RETRY_MS = 2_000;

/**
 * Seeds the accounts file now, or, while the store is unreachable, as soon as it can be reached:
 * the service starts (and reports not ready) rather than dying with its store. A bad file still
 * stops the start-up, with its reason.
 */
async function seedWhenReachable(store: Store, file: string, secret: string, logger: Logger): Promise<{ stop(): void }> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      const n = await seedAccountsFromFile(store, file, secret);
      logger.info({ accounts: n, file }, 'accounts seeded');
    } catch (e) {
      if (!isLookupError(e) || e.code !== 'store_unavailable') throw e;
      logger.warn({ file }, 'store unreachable: accounts will be seeded when it answers');
      timer = setTimeout(() => void attempt().catch((err: unknown) => logger.error({ err }, 'seeding accounts failed')), SEED_RETRY_MS);
      timer.unref();
    }
  };
  await attempt();
  return { stop: () => clearTimeout(timer) };
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

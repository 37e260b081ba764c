// A whole service for tests, built as production builds it (buildApp): the local replay of recorded
// listing pages as the site, the real collector, a store (memory unless given) and seeded accounts.
// Requests go through Fastify's inject, in process: the same routes, hooks and handlers, with no
// socket's timers for a loaded machine to trip. A test whose subject crosses the socket says why with
// `socket` and gets a real listener on loopback.
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { seedAccounts, type AccountSeed } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import { backendFor } from '../../src/backend.js';
import type { CoreDeps } from '../../src/lookup/index.js';
import type { RateLimiter } from '../../src/accounts/rate-limit.js';
import type { TimeLimits } from '../../src/lookup/index.js';
import { createCollector, PagePool } from '../../src/collector/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { compiledModule } from './compiled-src.js';

export type ReplayServer = Awaited<ReturnType<typeof startReplayServer>>;
export type ReplayOptions = Parameters<typeof startReplayServer>[0];

export interface TestService {
  /** The service's loopback address (in process: an address that cannot be reached). */
  url: string;
  /** fetch for this service: over the socket, or through inject in process. */
  fetch: typeof fetch;
  app: FastifyInstance;
  store: Store;
  replay: ReplayServer;
  config: Config;
  /** API keys by account name (see DEFAULT_ACCOUNTS). */
  keys: Record<string, string>;
  /** GET with an API key; returns status, headers and parsed body. */
  get(path: string, key?: string | null): Promise<TestResponse>;
  post(path: string, body: unknown, key?: string | null, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export const DEFAULT_ACCOUNTS: Record<string, AccountSeed> = {
  free: { key: 'test_free_key_0001', plan: 'free', allotment: 50 },
  tiny: { key: 'test_tiny_key_0001', plan: 'free', allotment: 1 },
  paid: { key: 'test_paid_key_0001', plan: 'paid', included: 100, overage: true, overageRateUsd: 0.05 },
};

/** What a test needs a real socket for: what it tests crosses the socket, or something else calls the URL. */
export type SocketReason =
  /** A client that goes away mid-request (the abort reaches the lookup through the socket's close). */
  | 'client-abort'
  /** Bytes or timing inject cannot send: hostile HTTP, Node's header and request timeouts, keep-alive. */
  | 'raw-http'
  /** An answer read while it streams (event streams, MCP's streamable HTTP). */
  | 'streaming'
  /** Another program calls the URL: Chromium, a client library, a health-check command. */
  | 'other-program';

export interface TestServiceOptions {
  env?: Record<string, string>;
  accounts?: Record<string, AccountSeed>;
  store?: Store;
  clock?: () => Date;
  replay?: ReplayOptions;
  /** An already running replay server to use instead of starting one. */
  replayServer?: ReplayServer;
  /** A real listening socket on loopback, for the reason given; without it, requests go through app.inject. */
  socket?: SocketReason;
  /** The fallback provider's first pause after a 429 (CollectorDeps), shorter than its default. */
  fallbackBackoffMs?: number;
  /** The per-key limits, instead of the ones the config makes (a test that watches the slots). */
  limits?: RateLimiter;
  /** The core's time limits, instead of the clock's (test/helpers/time-limits.ts: a test passes a deadline itself). */
  timeLimits?: TimeLimits;
}

/**
 * A fetch answered by `app.inject`: the same routes, hooks and handlers, without a socket. Its signal
 * rejects the caller's promise as fetch's does, but the service never sees a client leave (that is
 * the socket's close: `socket: 'client-abort'`).
 */
function injectFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const signal = init?.signal;
    signal?.throwIfAborted();
    const answered = app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(payload ? { payload } : {}),
    });
    const res = signal
      ? await new Promise<Awaited<typeof answered>>((resolve, reject) => {
          const abort = () => reject(signal.reason);
          signal.addEventListener('abort', abort, { once: true });
          answered.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
        })
      : await answered;
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined) headers.append(k, String(one));
    }
    const empty = [101, 204, 205, 304].includes(res.statusCode) || request.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };
}

/** Page readers that outlive a service: a service's close leaves them running for the next one. */
class SharedPagePool extends PagePool {
  override async close(): Promise<void> {}
}
/**
 * One pool of page readers per test process, for every service with the default pool settings: a
 * worker thread starts once, not once per service, and runs this run's compiled page-worker.js (as a
 * build does; under tsx's loader a thread takes about 0.5 s more to start). A test of the pool's own
 * limits sets PAGE_WORKERS or PAGE_QUEUE_MAX and gets a pool of its own.
 */
let sharedPages: SharedPagePool | undefined;
const pagesFor = (config: Config, env: Record<string, string> = {}): PagePool | undefined =>
  'PAGE_WORKERS' in env || 'PAGE_QUEUE_MAX' in env
    ? undefined
    : (sharedPages ??= new SharedPagePool({
        workers: config.pageWorkers,
        maxQueue: config.pageQueueMax,
        worker: compiledModule('collector/page-worker.ts'),
      }));

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const replay = opts.replayServer ?? (await startReplayServer({ host: '127.0.0.1', port: 0, ...(opts.replay ?? {}) }));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PORTAL_ORIGIN: replay.origin,
    PORTAL_SUGGEST_URL: replay.suggestUrl,
    LOG_LEVEL: 'silent',
    // No rest between a session's documents (tests of pacing set it): a test's lookups come faster than a person's.
    PORTAL_SESSION_GAP_MS: '0',
    ...opts.env,
  });
  // The store keeps time with the service, so tests can move past the cache's and the memo's lifetimes.
  const store = opts.store ?? new MemoryStore(opts.clock ? () => opts.clock!().getTime() : Date.now);
  const accounts = opts.accounts ?? DEFAULT_ACCOUNTS;
  await seedAccounts(store, Object.values(accounts), config.apiKeySecret);
  const app = await buildApp({
    config,
    store,
    collector: createCollector(config, {
      canary: true,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.fallbackBackoffMs === undefined ? {} : { fallbackBackoffMs: opts.fallbackBackoffMs }),
      pages: pagesFor(config, opts.env),
    }),
    logger: pino({ level: 'silent' }),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.timeLimits ? { timeLimits: opts.timeLimits } : {}),
  });
  let url = 'http://in-process.invalid';
  if (opts.socket) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  const doFetch: typeof fetch = opts.socket ? fetch : injectFetch(app);
  const keys = Object.fromEntries(Object.entries(accounts).map(([name, a]) => [name, a.key]));
  const defaultKey = keys.free ?? Object.values(keys)[0]!;

  const send = async (
    method: string,
    path: string,
    key: string | null | undefined,
    body?: string,
    headers: Record<string, string> = {},
  ) => {
    const h: Record<string, string> = { ...headers };
    const k = key === undefined ? defaultKey : key;
    if (k !== null) h['x-api-key'] = k;
    const res = await doFetch(url + path, { method, headers: h, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left as text: a test asserting JSON will fail loudly
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };

  return {
    url,
    fetch: doFetch,
    app,
    store,
    replay,
    config,
    keys,
    get: (path, key) => send('GET', path, key),
    post: (path, body, key, headers) =>
      send('POST', path, key, typeof body === 'string' ? body : JSON.stringify(body), {
        'content-type': 'application/json',
        ...headers,
      }),
    async close() {
      const closing = app.close();
      // A test may end with a socket its client gave up on (an aborted fetch): closing it here, not
      // waiting for it, saves seconds per test; the app's own teardown (onClose hooks) still runs.
      app.server.closeAllConnections();
      await closing;
      if (!opts.replayServer) await replay.close();
    },
  };
}

export const q = (params: Record<string, string>): string => new URLSearchParams(params).toString();

/** The memory-or-Redis parts of a feature, as the service makes them (src/backend.ts), for a test that makes its own. */
export const partsFor = (core: CoreDeps) => {
  const backend = backendFor(core.config);
  return {
    jobs: () => backend.jobs(core.logger, () => core.clock().getTime()),
    watches: () => backend.watches(core.logger, core.newId),
    webhookRunner: (deps: Parameters<typeof backend.webhookRunner>[0] = core) =>
      backend.webhookRunner(deps, deps.logger),
  };
};

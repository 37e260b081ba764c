// `node dist/mcp/stdio.js` (after `npm run build`): the MCP server over stdio, for an agent that starts it as a child process.
// It runs the core in this process against the configured store (the environment of `npm start`:
// with REDIS_URL it shares accounts, usage and cache with the HTTP instances). The caller is the key
// in PORTAL_API_KEY, checked on every tool call like a request's x-api-key; without it every tool
// answers missing_api_key. `--demo` runs it offline like `npm run demo`: the recorded listing pages
// replayed locally, an in-memory store, and the demo key seeded.
// stdout carries the protocol only: logs go to stderr.
import pino from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { flushDayTally, seedAccounts, seedAccountsFromFile } from '../accounts/index.js';
import { backendFor } from '../backend.js';
import { createBackground } from '../background.js';
import { createCore } from '../core.js';
import { createCollector } from '../collector/index.js';
import { loadConfigOrExit, warnIfDevSecret, warnIfNoProxy } from '../config.js';
import { createLogger } from '../logger.js';
import { openRequest } from '../lookup/index.js';
import { startReplayServer } from '../replay/server.js';
import { buildMcpServer } from './server.js';

/** The demo's key, as `npm run demo` prints it. */
const DEMO_KEY = 'demo_key_local_only';

const demo = process.argv.includes('--demo');
const replay = demo ? await startReplayServer({ host: '127.0.0.1', port: 0 }) : null;
// A refused configuration is listed on stderr, one problem a line, and the process exits (as npm start does).
const config = loadConfigOrExit(
  replay
    ? {
        ...process.env,
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: '',
        PORTAL_ORIGIN: replay.origin,
        PORTAL_SUGGEST_URL: replay.suggestUrl,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      }
    : process.env,
);
// LOG_PRETTY's readable lines go to stderr too, written in this thread (stdout is the protocol's).
const logger = createLogger(config.logLevel, pino.destination(2), config.logPretty);
warnIfDevSecret(config, logger);
warnIfNoProxy(config, logger);
const store = await backendFor(config).store();
if (demo) await seedAccounts(store, [{ key: DEMO_KEY, plan: 'free', allotment: 50 }], config.apiKeySecret);
else if (config.accountsFile) await seedAccountsFromFile(store, config.accountsFile, config.apiKeySecret);
const collector = createCollector(config, { logger });
const core = createCore({ config, store, collector, logger });
// An account changed anywhere (revoked, rotated) is not trusted from the key cache any longer.
const stopWatching = store.watchAccounts(() => core.auth.forgetAll());

// The background beside the core, as the app has it: webhook_deliveries reads its delivery log (shared on
// Redis with the HTTP instances). Its parts are made on first use (no queue connection before) and no worker
// is started here: a usage alert reached by this process's charges is sent as by any instance (on Redis,
// queued for the service's workers; without Redis, from this process).
const background = createBackground(core);

const apiKey = config.portalApiKey ?? undefined;
const server = buildMcpServer(
  core,
  ({ signal, deadlineMs }) =>
    openRequest(core, apiKey, {
      requestId: core.newId(),
      signal: () => signal,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    }),
  background,
);

let closing: Promise<void> | undefined;
const close = (): Promise<void> =>
  (closing ??= (async () => {
    stopWatching();
    await server.close();
    await background.close();
    await core.collector.close?.();
    await core.figures.close();
    core.metrics.close();
    await core.limits.close();
    await flushDayTally(store);
    await store.close();
    await replay?.close();
  })());

// The client closing our stdin (or a signal) ends the process once the core has let go.
process.stdin.on('end', () => void close().then(() => process.exit(0)));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void close().then(() => process.exit(0)));

await server.connect(new StdioServerTransport());
logger.info({ demo, key: apiKey ? 'set' : 'missing' }, 'MCP server on stdio');

// `npm run bench:micro -- <batch|gql|rest|extract> [N]`: what one operation costs the service in CPU,
// with the service in this process, to compare two versions of the code on a machine that is not quiet
// (`npm run bench` gives the figures; this says which code costs more, and where).
//
// batch: a 50-home cached REST batch; gql: a GraphQL cache hit (the bench's query); rest: a REST cache
// hit; all on the in-memory store, with the per-key limits and logging as in production (log lines to
// /dev/null). The homes are read through the service from the bench's fake site first, then N
// requests are sent by the bench's load generator (bench/load.ts) from a child process, so only the
// service's own work is counted. extract: extract + map of the real page from its bytes, N times.
//
// Prints the process's CPU time per operation. For figures that do not depend on the load, count
// instructions: run it under valgrind for two N and divide the difference (startup and warm-up cancel):
//   valgrind --tool=callgrind --smc-check=all-non-file node --import tsx bench/micro.ts batch 20
//   valgrind --tool=callgrind --smc-check=all-non-file node --import tsx bench/micro.ts batch 80
//   → (Ir at 80 - Ir at 20) / 60 instructions per batch
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { seedAccounts } from '../src/accounts/index.js';
import { buildApp } from '../src/app.js';
import { createCollector } from '../src/collector/index.js';
import { mapProperty } from '../src/collector/mapping/index.js';
import { extractPage } from '../src/collector/page/index.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { backendFor } from '../src/backend.js';
import { BENCH_KEY, zpids } from './constants.js';
import { load, type Target } from './load.js';
import { benchFile, firstMessage, spawnNode, stopAll } from './procs.js';

type Mode = 'batch' | 'gql' | 'rest' | 'extract';
const MODES: readonly Mode[] = ['batch', 'gql', 'rest', 'extract'];
const WARM: Record<Mode, number> = { batch: 50, gql: 1_000, rest: 1_000, extract: 10 };
const CONNECTIONS: Record<Mode, number> = { batch: 10, gql: 50, rest: 50, extract: 0 };

const HOMES = zpids(0, 50);
const headers = { 'x-api-key': BENCH_KEY };
const json = { ...headers, 'content-type': 'application/json' };
const batchBody = JSON.stringify({ items: HOMES.map((zpid) => ({ zpid })) });

function target(mode: Exclude<Mode, 'extract'>, url: string): Target {
  switch (mode) {
    case 'batch':
      return { urls: [url], method: 'POST', path: '/v1/portal/batch', headers: json, body: batchBody };
    case 'gql':
      return {
        urls: [url],
        method: 'POST',
        path: '/graphql',
        headers: json,
        body: JSON.stringify({
          query: `{ property(zpid: "${HOMES[0]}") { ... on PropertyLookup { data { zpid price } meta { cached } } } }`,
        }),
      };
    case 'rest':
      return { urls: [url], path: `/v1/portal/property?zpid=${HOMES[0]}`, headers };
  }
}

/** The load generator's side (this file run with --client): `n` requests, failing on any answer but 200. */
async function client(url: string, mode: Exclude<Mode, 'extract'>, n: number): Promise<void> {
  const r = await load(target(mode, url), { connections: CONNECTIONS[mode], requests: n });
  if (r.non200 > 0 || r.requests !== n)
    throw new Error(`${mode}: ${r.requests} of ${n} answered, statuses ${JSON.stringify(r.statuses)}`);
}

/** Sends `n` requests from a child process (its CPU is not this process's). */
function sendFromChild(url: string, mode: Exclude<Mode, 'extract'>, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--client', url, mode, String(n)],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`load generator exited with ${code}`))));
  });
}

function perOp(cpu: NodeJS.CpuUsage, n: number): string {
  return `${Math.round((cpu.user + cpu.system) / n).toLocaleString('en-US')} CPU-µs per operation`;
}

function extract(n: number): void {
  const page = readFileSync(new URL('../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url));
  const want = { zpid: '2146993218', building: false };
  const once = () => {
    const data = extractPage(page, want);
    if (data.kind === 'property') mapProperty(data.property, data.extras, { scrapedAt: '2026-01-01T00:00:00.000Z' });
  };
  for (let i = 0; i < WARM.extract; i += 1) once();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i += 1) once();
  console.log(`extract × ${n}: ${perOp(process.cpuUsage(cpu), n)}`);
}

async function service(mode: Exclude<Mode, 'extract'>, n: number): Promise<void> {
  const site = spawnNode(benchFile('fake-site.ts'), { core: null, ipc: true });
  const { url: siteUrl } = await firstMessage<{ url: string }>(site);
  // As bench/service.ts starts an instance, on the in-memory store.
  const config = loadConfig({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    PORTAL_ORIGIN: siteUrl,
    PORTAL_SUGGEST_URL: `${siteUrl}/suggest`,
    API_KEY_SECRET: 'bench-secret-not-for-production',
    BATCH_CONCURRENCY: '50',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    MAX_LIVE_PER_KEY: '50',
  });
  const store = await backendFor(config).store();
  await seedAccounts(
    store,
    [{ key: BENCH_KEY, plan: 'paid', included: 100_000_000, overage: true }],
    config.apiKeySecret,
  );
  const logger = createLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: false }));
  const app = await buildApp({ config, store, collector: createCollector(config, { logger }), logger });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const res = await fetch(`${url}/v1/portal/batch`, { method: 'POST', headers: json, body: batchBody });
    const read = (await res.json()) as { meta?: { succeeded?: number } };
    if (res.status !== 200 || read.meta?.succeeded !== HOMES.length)
      throw new Error(`reading the homes failed: ${res.status} ${JSON.stringify(read).slice(0, 300)}`);
    await sendFromChild(url, mode, WARM[mode]);
    const cpu = process.cpuUsage();
    await sendFromChild(url, mode, n);
    console.log(`${mode} × ${n}: ${perOp(process.cpuUsage(cpu), n)} (this process, all threads)`);
  } finally {
    await app.close();
    await stopAll();
  }
}

const args = process.argv.slice(2);
if (args[0] === '--client') {
  await client(args[1]!, args[2] as Exclude<Mode, 'extract'>, Number(args[3]));
} else {
  const mode = (args[0] ?? 'batch') as Mode;
  const n = Number(args[1] ?? 200);
  if (!MODES.includes(mode) || !Number.isInteger(n) || n < 1) {
    console.error('usage: npm run bench:micro -- <batch|gql|rest|extract> [N]');
    process.exit(2);
  }
  if (mode === 'extract') extract(n);
  else await service(mode, n);
}

// The service under test, started as production runs it: the compiled build when there is one
// (`npm run build`), else the TypeScript sources through tsx's loader; NODE_ENV=production.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/redis-server.js';
import { BENCH_KEY } from './constants.js';
import { ready, SERVER_CORE, spawnNode, type Child } from './procs.js';

const root = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));

/** The compiled entry if built (BENCH_FROM_SOURCE=1 forces the sources). */
export function serviceEntry(): { file: string; built: boolean } {
  const built = ['dist/index.js', 'dist/src/index.js'].map(root).find((f) => existsSync(f));
  if (built && process.env.BENCH_FROM_SOURCE !== '1') return { file: built, built: true };
  return { file: root('src/index.ts'), built: false };
}

let accountsFile: string | null = null;
function accounts(): string {
  if (accountsFile) return accountsFile;
  accountsFile = join(mkdtempSync(join(tmpdir(), 'bench-')), 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([{ key: BENCH_KEY, plan: 'paid', included: 100_000_000, overage: true }]));
  return accountsFile;
}

export interface Instance extends Child {
  url: string;
}

/** `core: null` leaves the instance free to use every core (its page workers then run beside the event loop). */
export async function startInstance(opts: {
  siteUrl: string;
  redisUrl?: string;
  env?: Record<string, string>;
  core?: string | null;
}): Promise<Instance> {
  const port = await freePort();
  const child = spawnNode(serviceEntry().file, {
    core: opts.core === undefined ? SERVER_CORE : opts.core,
    quiet: true,
    env: {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      PORTAL_ORIGIN: opts.siteUrl,
      PORTAL_SUGGEST_URL: `${opts.siteUrl}/suggest`,
      ACCOUNTS_FILE: accounts(),
      API_KEY_SECRET: 'bench-secret-not-for-production',
      BATCH_CONCURRENCY: '50',
      // The per-key limits run as in production (their Redis round trips are part of a hit's cost), set
      // high enough that the one key sending every request is never refused.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      MAX_LIVE_PER_KEY: '50',
      // The uncached rows measure what the service spends per live home, not the pace it keeps toward the
      // real site (PORTAL_MAX_CONCURRENCY 4, a session resting 2 s: an uncached batch of 50 takes ~10 s by
      // design, docs/collector.md): the bench's own site gets all 50 at once.
      PORTAL_MAX_CONCURRENCY: '50',
      PORTAL_SESSION_GAP_MS: '0',
      ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl, REDIS_PREFIX: 'bench:' } : {}),
      ...opts.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await ready(`${url}/readyz`, child);
  return { ...child, url };
}

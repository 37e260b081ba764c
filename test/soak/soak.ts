// The soak (`npm run test:soak`; not part of `npm test`, it runs for minutes). Loopback only, bounded.
//
// Two real service processes on one real redis-server (append-only, as deployed), the local replay
// site as the listing site, a short cache lifetime so live (billed) lookups keep happening, and
// workers sending a mix for SOAK_SECONDS (default 180): cache hits, misses (expired homes read again),
// bad input and unknown keys, and batches. Halfway through, Redis is killed and restarted once.
//
// Pass criteria (printed with the figures; exit code 1 if any fails):
// - A valid request never fails: it answers 200, except a 503 store_unavailable with retry-after 30
//   for a request in flight during the restart window (sent before both instances were ready again,
//   answered after the kill); a batch item likewise. No 5xx otherwise, no hang (30 s), no shedding (upstream_busy, reason overloaded).
// - Bad input gets its spec code (400 bad_param / missing_param / too_many_items / bad_body, 401
//   invalid_api_key), every time.
// - p99 of cache hits in the last third ≤ 3 × p99 of the first third + 20 ms (stable, not faster).
// - RSS of each instance in the last third ≤ 1.5 × its RSS at the end of the first third (flat).
// - Credits reconciled: per account, credits answered == ledger entries == usage.used; nothing held.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { startInstance, type Instance } from '../helpers/instance.js';
import { disposeRedisServer, startRedisServer } from '../helpers/redis-server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 12);
const SECRET = 'soak-secret';
const HOMES = [
  '2146993218',
  '15192198',
  '114303858',
  '450233440',
  '999000101',
  '999000102',
  '999000103',
  '999000104',
  '999000105',
  '999000106',
];
const ACCOUNTS = Array.from({ length: 4 }, (_, i) => ({
  key: `soak_key_paid_${i}000`,
  plan: 'paid' as const,
  included: 1_000_000,
}));
const HANG_MS = 30_000;

type Kind = 'hit' | 'miss' | 'batch' | 'bad';
interface Outcome {
  kind: Kind;
  account: number;
  status: number;
  code: string | null;
  retryAfter: string | null;
  credits: number;
  /** A batch's failed items' codes. */
  itemCodes: string[];
  expected?: { status: number; code: string };
  sentAt: number;
  doneAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main(): Promise<number> {
  const redis = await startRedisServer({ appendOnly: true });
  const site = await startReplayServer({ host: '127.0.0.1', port: 0, latencyMs: 20 });
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify(ACCOUNTS));
  const prefix = `soak${randomUUID().slice(0, 6)}:`;
  const env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    ACCOUNTS_FILE: accountsFile,
    API_KEY_SECRET: SECRET,
    PORTAL_ORIGIN: site.origin,
    PORTAL_SUGGEST_URL: site.suggestUrl,
    CACHE_TTL_MS: '4000',
    LOG_LEVEL: 'error',
    // Every valid request must be served: the per-key limits are tested on their own (test/rest/rate-limit.test.ts).
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_LIVE_PER_KEY: '0',
  };
  const instances: Instance[] = await Promise.all([startInstance(env), startInstance(env)]);
  const store = await RedisStore.connect(redis.url, { prefix });
  const outcomes: Outcome[] = [];
  const rss: Array<{ at: number; values: number[] }> = [];
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const window = { killAt: Infinity, readyAt: Infinity };

  const send = async (
    kind: Kind,
    account: number,
    path: string,
    init: RequestInit,
    expected?: Outcome['expected'],
  ): Promise<void> => {
    const instance = instances[(outcomes.length + account) % instances.length]!;
    const sentAt = elapsed();
    let o: Omit<Outcome, 'kind' | 'account' | 'sentAt' | 'doneAt' | 'expected'>;
    try {
      const res = await fetch(instance.url + path, { ...init, signal: AbortSignal.timeout(HANG_MS) });
      const body = (await res.json()) as any;
      const credits = res.status !== 200 ? 0 : kind === 'batch' ? body.meta.credits : (body.meta?.credits ?? 0);
      const itemCodes =
        kind === 'batch' && res.status === 200
          ? (body.data as any[]).filter((d) => !d.ok).map((d) => d.error.code as string)
          : [];
      o = {
        status: res.status,
        code: body.error?.code ?? null,
        retryAfter: res.headers.get('retry-after'),
        credits,
        itemCodes,
      };
    } catch (e) {
      o = { status: -1, code: (e as Error).name, retryAfter: null, credits: 0, itemCodes: [] };
    }
    outcomes.push({ kind, account, ...o, ...(expected ? { expected } : {}), sentAt, doneAt: elapsed() });
  };

  const worker = async (w: number) => {
    for (let i = 0; elapsed() < SECONDS * 1000; i++) {
      const account = (w + i) % ACCOUNTS.length;
      const key = ACCOUNTS[account]!.key;
      const headers = { 'x-api-key': key };
      const home = HOMES[(w * 7 + i) % HOMES.length]!;
      const r = (w * 31 + i * 17) % 20;
      if (r < 12) await send('hit', account, `/v1/portal/property?zpid=${home}`, { headers });
      else if (r < 15)
        await send('miss', account, `/v1/portal/property?zpid=${HOMES[(i * 3 + w) % HOMES.length]}&raw=true`, {
          headers,
        });
      else if (r < 17) {
        const items = HOMES.slice(0, 5).map((zpid) => ({ zpid }));
        await send('batch', account, '/v1/portal/batch', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ items }),
        });
      } else {
        const bad: Array<[string, RequestInit, { status: number; code: string }]> = [
          ['/v1/portal/property?zpid=12ab', { headers }, { status: 400, code: 'bad_param' }],
          ['/v1/portal/property', { headers }, { status: 400, code: 'missing_param' }],
          [
            '/v1/portal/property?zpid=1',
            { headers: { 'x-api-key': 'soak_unknown_key_01' } },
            { status: 401, code: 'invalid_api_key' },
          ],
          [
            '/v1/portal/batch',
            { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"items":' },
            { status: 400, code: 'bad_body' },
          ],
          [
            '/v1/portal/batch',
            {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ items: Array.from({ length: 51 }, () => ({ zpid: '1' })) }),
            },
            { status: 400, code: 'too_many_items' },
          ],
        ];
        const [path, init, expected] = bad[i % bad.length]!;
        await send('bad', account, path, init, expected);
      }
    }
  };

  const sampler = setInterval(() => rss.push({ at: elapsed(), values: instances.map((i) => i.rss()) }), 2_000);
  const restart = (async () => {
    await sleep((SECONDS * 1000) / 2);
    window.killAt = elapsed();
    await redis.restart();
    for (const instance of instances) {
      for (let i = 0; i < 600; i++) {
        if (
          (await fetch(`${instance.url}/readyz`).then(
            (r) => r.status,
            () => 0,
          )) === 200
        )
          break;
        await sleep(50);
      }
    }
    window.readyAt = elapsed();
  })();
  await Promise.all([...Array.from({ length: WORKERS }, (_, w) => worker(w)), restart]);
  clearInterval(sampler);

  // Let unanswered commits be taken back and orphaned leases be swept, then read the books.
  await sleep(8_000);
  const failures: string[] = [];
  const inWindow = (o: Outcome) => o.sentAt <= window.readyAt && o.doneAt >= window.killAt;
  const valid = outcomes.filter((o) => o.kind !== 'bad');
  const excused = valid.filter(
    (o) =>
      (o.status === 503 && o.code === 'store_unavailable' && o.retryAfter === '30' && inWindow(o)) ||
      (o.itemCodes.length > 0 && inWindow(o)),
  );
  const itemsFailed = (o: Outcome) => o.itemCodes.some((c) => !(c === 'store_unavailable' && inWindow(o)));
  const failed = valid.filter((o) => (o.status !== 200 && !excused.includes(o)) || itemsFailed(o));
  if (failed.length > 0)
    failures.push(`${failed.length} valid requests failed, e.g. ${JSON.stringify(failed.slice(0, 3))}`);
  const wrongBad = outcomes.filter(
    (o) =>
      o.kind === 'bad' &&
      !(o.status === o.expected!.status && o.code === o.expected!.code) &&
      !(o.status === 503 && o.code === 'store_unavailable' && inWindow(o)),
  );
  if (wrongBad.length > 0)
    failures.push(`${wrongBad.length} bad inputs answered wrongly, e.g. ${JSON.stringify(wrongBad.slice(0, 3))}`);

  const third = (SECONDS * 1000) / 3;
  const hitMs = (from: number, to: number) =>
    outcomes
      .filter((o) => o.kind === 'hit' && o.status === 200 && o.sentAt >= from && o.sentAt < to)
      .map((o) => o.doneAt - o.sentAt);
  const p99First = pct(hitMs(5_000, third), 99);
  const p99Last = pct(hitMs(2 * third, Infinity), 99);
  if (p99Last > 3 * p99First + 20) failures.push(`hit p99 grew: ${p99First.toFixed(1)} → ${p99Last.toFixed(1)} ms`);
  const rssAt = (t: number) => rss.filter((s) => s.at <= t).at(-1)?.values ?? rss[0]!.values;
  const rssFirst = rssAt(third);
  const rssLast = instances.map((_, i) => Math.max(...rss.filter((s) => s.at >= 2 * third).map((s) => s.values[i]!)));
  rssLast.forEach((v, i) => {
    if (v > 1.5 * rssFirst[i]!)
      failures.push(`instance ${i} RSS grew: ${(rssFirst[i]! / 1e6).toFixed(0)} → ${(v / 1e6).toFixed(0)} MB`);
  });

  const books = [];
  for (let a = 0; a < ACCOUNTS.length; a++) {
    const id = seededAccountId(hashApiKey(ACCOUNTS[a]!.key, SECRET));
    const answered = outcomes.filter((o) => o.account === a && o.status === 200).reduce((n, o) => n + o.credits, 0);
    const ledger = (await store.ledger(id)).length;
    const usage = await store.usage(id, new Date().toISOString().slice(0, 7));
    books.push({ account: a, answered, ledger, used: usage.used, held: usage.reserved });
    if (!(answered === ledger && ledger === usage.used && usage.reserved === 0))
      failures.push(`books of account ${a} do not reconcile: ${JSON.stringify(books.at(-1))}`);
  }

  const tally: Record<string, number> = {};
  for (const o of outcomes)
    tally[`${o.kind} ${o.status}${o.code ? ` ${o.code}` : ''}`] =
      (tally[`${o.kind} ${o.status}${o.code ? ` ${o.code}` : ''}`] ?? 0) + 1;
  const figures = {
    seconds: SECONDS,
    workers: WORKERS,
    requests: outcomes.length,
    tally,
    restartWindowMs: Math.round(window.readyAt - window.killAt),
    excused503: excused.length,
    hitP50Ms: {
      first: +pct(hitMs(5_000, third), 50).toFixed(1),
      last: +pct(hitMs(2 * third, Infinity), 50).toFixed(1),
    },
    hitP99Ms: { first: +p99First.toFixed(1), last: +p99Last.toFixed(1) },
    rssMB: {
      firstThird: rssFirst.map((v) => Math.round(v / 1e6)),
      lastThirdMax: rssLast.map((v) => Math.round(v / 1e6)),
    },
    books,
    upstreamReads: site.requests.length,
  };
  console.log(JSON.stringify(figures, null, 2));
  console.log(failures.length === 0 ? 'SOAK PASSED' : `SOAK FAILED:\n- ${failures.join('\n- ')}`);

  await Promise.all(instances.map((i) => i.stop()));
  await store.close();
  await site.close();
  await disposeRedisServer(redis);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

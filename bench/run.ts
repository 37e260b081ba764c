// `npm run bench`: every row of issue 8's table in one run, each against a baseline measured in the
// same run, printed as a table and written to bench/results/latest.json.
//
// Set-up: a real redis-server on a free port, a fake listing site serving the real 1.06 MB page with a
// configurable delay, the bare baselines (bench/baselines.ts), one service instance on the in-memory
// store and two on one Redis, all with NODE_ENV=production (the compiled build when there is one).
// Servers run pinned to core 0, this process (the load generator), Redis and the site to core 1.
// Throughput rows run in rounds, baseline and service in alternating order; a row's ratio is the
// median of its per-round ratios, and the server's CPU time per request is given beside req/s.
//
// BENCH_QUICK=1: one short round (for iterating, not for figures). BENCH_PAGE_DELAY_MS: D (300).
import { mkdirSync, readFileSync, writeFileSync, chmodSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { load as cheerioLoad } from 'cheerio';
import { PagePool } from '../src/collector/page-pool.js';
import { mapProperty } from '../src/collector/mapping/index.js';
import { extractPage } from '../src/collector/page/index.js';
import { readPage } from '../src/collector/read-page.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../test/helpers/redis-server.js';
import { BENCH_KEY, zpids } from './constants.js';
import { load, median, medianMs, type LoadResult, type Target } from './load.js';
import {
  benchFile,
  firstMessage,
  LOAD_CORE,
  PINNED,
  pinSelf,
  SERVER_CORE,
  spawnNode,
  stopAll,
  type Child,
} from './procs.js';
import { serviceEntry, startInstance, type Instance } from './service.js';
import { transportRows } from './transport.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 1 : 3;
const DURATION_MS = QUICK ? 1_000 : 3_000;
const WARMUP_MS = QUICK ? 300 : 1_000;
const CONNECTIONS = 50;
const D = Number(process.env.BENCH_PAGE_DELAY_MS ?? 300);
const HOME = zpids(0, 1)[0]!;
const WARM = zpids(0, 50);

let redis: RedisServer | undefined;

interface Row {
  what: string;
  measured: string;
  baseline: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  raw?: unknown;
}
const rows: Row[] = [];
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (r: number) => `${fmt(r * 100, 1)} %`;

// ---------------------------------------------------------------- set-up

/** redis-server pinned with the load generator, through a wrapper the test helper can run as its binary. */
function pinnedRedisBinary(): string | undefined {
  if (!PINNED) return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'bench-redis-')), 'redis-server');
  writeFileSync(file, `#!/bin/sh\nexec taskset -c ${LOAD_CORE} redis-server "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

async function startChild(
  file: string,
  core: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ child: Child; url: string }> {
  const child = spawnNode(benchFile(file), { core, ipc: true, env, args });
  const { url } = await firstMessage<{ url: string }>(child);
  return { child, url };
}

const headers = { 'x-api-key': BENCH_KEY };
const json = { ...headers, 'content-type': 'application/json' };
const batchBody = (ids: string[]) => JSON.stringify({ items: ids.map((zpid) => ({ zpid })) });

async function post(url: string, path: string, body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, { method: 'POST', headers: json, body });
  return { status: res.status, body: await res.json() };
}

/** Reads homes into an instance's cache (one batch); fails loudly when an item fails. */
async function warm(i: Instance, ids: string[]): Promise<void> {
  const res = await post(i.url, '/v1/portal/batch', batchBody(ids));
  const failed = (res.body.data as Array<{ error?: unknown }> | undefined)?.filter((d) => d.error) ?? [];
  if (res.status !== 200 || failed.length > 0)
    throw new Error(`warming failed: ${res.status} ${JSON.stringify(failed[0] ?? res.body).slice(0, 300)}`);
}

// ---------------------------------------------------------------- measuring

interface Measured extends LoadResult {
  cpuUsPerRequest: number;
}

async function measure(target: Target, servers: Child[], connections = CONNECTIONS): Promise<Measured> {
  await load(target, { connections, durationMs: WARMUP_MS });
  const cpu = () => servers.reduce((sum, s) => sum + s.cpuUs(), 0);
  const before = cpu();
  const r = await load(target, { connections, durationMs: DURATION_MS });
  return { ...r, cpuUsPerRequest: (cpu() - before) / Math.max(1, r.requests) };
}

interface Pair {
  name: string;
  service: () => Promise<Measured>;
  baseline: () => Promise<Measured>;
}

/** Both sides of each pair per round, in alternating order; per-round results kept. */
async function rounds(pairs: Pair[]): Promise<Map<string, { service: Measured[]; baseline: Measured[] }>> {
  const out = new Map(pairs.map((p) => [p.name, { service: [] as Measured[], baseline: [] as Measured[] }]));
  // One unmeasured round first: with two instances each gets half the requests, so the JIT of the
  // Redis rows would otherwise still be warming up during the first measured round.
  if (!QUICK) {
    for (const p of pairs) {
      await p.service();
      await p.baseline();
    }
  }
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const p of pairs) {
      const o = out.get(p.name)!;
      if (r % 2 === 0) {
        o.baseline.push(await p.baseline());
        o.service.push(await p.service());
      } else {
        o.service.push(await p.service());
        o.baseline.push(await p.baseline());
      }
    }
  }
  return out;
}

function throughputRow(
  what: string,
  res: { service: Measured[]; baseline: Measured[] },
  baselineName: string,
  target: number,
  perSecond = (m: Measured) => m.perSecond,
  unit = 'req/s',
): Row {
  const ratio = median(res.service.map((s, i) => perSecond(s) / res.baseline[i]!.perSecond));
  const s = median(res.service.map(perSecond));
  const b = median(res.baseline.map((m) => m.perSecond));
  const sCpu = median(res.service.map((m) => m.cpuUsPerRequest));
  const bCpu = median(res.baseline.map((m) => m.cpuUsPerRequest));
  const errors = res.service.reduce((n, m) => n + m.non200, 0);
  return {
    what,
    measured: `${fmt(s)} ${unit} (${fmt(sCpu)} CPU-µs/req, p99 ${fmt(median(res.service.map((m) => m.p99Ms)), 1)} ms${errors ? `, ${errors} non-200` : ''})`,
    baseline: `${baselineName}: ${fmt(b)} req/s (${fmt(bCpu)} CPU-µs/req)`,
    ratio,
    target: unit === 'req/s' ? `≥ ${pct(target)}` : `≥ ${target} ×`,
    met: ratio >= target && errors === 0,
    raw: res,
  };
}

// ---------------------------------------------------------------- rows

function pageReadRow(): void {
  const bytes = readFileSync(new URL('../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url));
  const html = bytes.toString('utf8');
  const want = { zpid: '2146993218', building: false };
  const scrapedAt = new Date().toISOString();
  const task = { page: new Uint8Array(bytes), want, scrapedAt, now: scrapedAt };
  const start = html.indexOf('>', html.indexOf('id="__NEXT_DATA__"')) + 1;
  const embedded = html.slice(start, html.indexOf('</script>', start));
  const parseOnly = medianMs(() => JSON.parse(JSON.parse(embedded).props.pageProps.componentProps.gdpClientCache), 30);
  const ours = medianMs(
    () => {
      const page = extractPage(bytes, want);
      if (page.kind === 'property') mapProperty(page.property, page.extras, { scrapedAt });
    },
    QUICK ? 30 : 100,
  );
  const workerTask = medianMs(() => readPage(task), QUICK ? 30 : 100);
  const cheerio = medianMs(() => cheerioLoad(html)('script#__NEXT_DATA__').text(), QUICK ? 3 : 7);
  rows.push({
    what: `extract + map of the real page (${fmt(bytes.length / 1e6, 2)} MB, from its bytes)`,
    measured: `${fmt(ours, 2)} ms median (a worker's whole task, with the raw record written as JSON: ${fmt(workerTask, 2)} ms)`,
    baseline: `cheerio full load ${fmt(cheerio, 1)} ms; JSON.parse of the embedded data alone ${fmt(parseOnly, 2)} ms`,
    ratio: cheerio / ours,
    target: '≤ 3 ms and ≥ 40 × faster',
    met: ours <= 3 && cheerio / ours >= 40,
    raw: { oursMs: ours, workerTaskMs: workerTask, cheerioMs: cheerio, parseOnlyMs: parseOnly },
  });
}

/** The live path's transport: the own collector's client (impit, TLS + HTTP/2) against the one before it (got, TLS + HTTP/1.1). */
async function transportRow(siteUrl: string): Promise<void> {
  const { impit, got } = await transportRows(siteUrl, ROUNDS);
  const mb = (f: { peakRssMb: number; idleRssMb: number }) =>
    `${fmt(f.peakRssMb, 0)} MB peak (+${fmt(f.peakRssMb - f.idleRssMb, 0)})`;
  rows.push({
    what: "live read of the 1.06 MB page over loopback TLS, per home: the own collector's client (impit as Chrome 151, HTTP/2) against got 16 (Node TLS, HTTP/1.1, the client before issue 21)",
    measured: `CPU ${fmt(impit.cpuUsPerHome, 0)} µs, event loop ${fmt(impit.loopMsPerHome, 2)} ms; 50 in flight: ${mb(impit)}`,
    baseline: `got: CPU ${fmt(got.cpuUsPerHome, 0)} µs, event loop ${fmt(got.loopMsPerHome, 2)} ms; 50 in flight: ${mb(got)}`,
    ratio: got.cpuUsPerHome / impit.cpuUsPerHome,
    target: 'recorded (no target: the price of looking like a browser)',
    met: null,
    raw: { impit, got },
  });
}

async function poolRoundTrip(): Promise<number> {
  const bytes = readFileSync(new URL('../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url));
  const pool = new PagePool({ workers: 1, maxQueue: 4 });
  const task = {
    want: { zpid: '2146993218', building: false },
    scrapedAt: new Date().toISOString(),
    now: new Date().toISOString(),
  };
  try {
    for (let i = 0; i < 5; i += 1) await pool.read(Buffer.from(bytes), task);
    const times: number[] = [];
    for (let i = 0; i < (QUICK ? 10 : 30); i += 1) {
      const page = Buffer.from(bytes);
      const t = performance.now();
      await pool.read(page, task);
      times.push(performance.now() - t);
    }
    return median(times);
  } finally {
    await pool.close();
  }
}

/** 50 distinct uncached homes in one batch, each page delayed D; instance a's RSS sampled throughout. */
async function uncachedBatch(
  a: Instance,
  idle: { startedMb: number; warmedMb: number } | null,
  setDelay: (ms: number) => Promise<void>,
  from: number,
): Promise<void> {
  await setDelay(D);
  const walls: number[] = [];
  const cpuPerHome: number[] = [];
  const mainPerHome: number[] = [];
  let peak = 0;
  let failures = 0;
  for (let r = 0; r < ROUNDS; r += 1) {
    const ids = zpids(from + r * 100, 50);
    const sampler = setInterval(() => (peak = Math.max(peak, a.rssMb())), 5);
    const [cpu, main] = [a.cpuUs(), a.mainThreadCpuUs()];
    const t = performance.now();
    const res = await post(a.url, '/v1/portal/batch', batchBody(ids));
    walls.push(performance.now() - t);
    cpuPerHome.push((a.cpuUs() - cpu) / 50);
    mainPerHome.push((a.mainThreadCpuUs() - main) / 50);
    clearInterval(sampler);
    peak = Math.max(peak, a.rssMb());
    failures += res.status !== 200 ? 50 : (res.body.data as Array<{ error?: unknown }>).filter((d) => d.error).length;
  }
  const ratio = median(walls) / D;
  rows.push({
    what: `50 distinct uncached homes, page delay D = ${D} ms, BATCH_CONCURRENCY=50 (Redis)${idle ? '' : '; instance not pinned, page workers on both cores'}`,
    measured: `${fmt(median(walls))} ms (${fmt(median(cpuPerHome) / 1000, 1)} ms CPU per home, ${fmt(median(mainPerHome) / 1000, 1)} ms of it on the event loop)${failures ? `, ${failures} items failed` : ''}`,
    baseline: `D = ${D} ms`,
    ratio,
    target: idle ? '≤ 1.25 × D' : 'comparison only',
    met: idle ? ratio <= 1.25 && failures === 0 : null,
    raw: { wallsMs: walls, cpuUsPerHome: cpuPerHome, mainThreadCpuUsPerHome: mainPerHome, failures },
  });
  if (!idle) return;
  rows.push({
    what: 'peak RSS during that batch; idle RSS (one instance)',
    measured: `${fmt(peak)} MB; idle ${fmt(idle.startedMb)} MB after start, ${fmt(idle.warmedMb)} MB after reading 50 homes`,
    baseline: '—',
    ratio: null,
    target: '≤ 250 MB; idle ≤ 120 MB',
    met: peak <= 250 && idle.startedMb <= 120,
    raw: { peakMb: peak, ...idle },
  });
}

/** Cache-hit p99 while the same instance reads 5 uncached pages per second, against idle p99. */
async function hitsWhileReading(a: Instance, hit: Target): Promise<void> {
  const ratios: number[] = [];
  const idleP99: number[] = [];
  const busyP99: number[] = [];
  let next = 20_000;
  let readFailures = 0;
  const connections = 10;
  const withReads = async () => {
    const reads: Promise<void>[] = [];
    const timer = setInterval(() => {
      const zpid = zpids(next++, 1)[0]!;
      reads.push(
        fetch(`${a.url}/v1/portal/property?zpid=${zpid}`, { headers }).then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) readFailures += 1;
        }),
      );
    }, 200);
    const r = await load(hit, { connections, durationMs: DURATION_MS });
    clearInterval(timer);
    await Promise.all(reads);
    return r;
  };
  const idle = () => load(hit, { connections, durationMs: DURATION_MS });
  await load(hit, { connections, durationMs: WARMUP_MS });
  for (let r = 0; r < ROUNDS; r += 1) {
    const [i, b] =
      r % 2 === 0 ? [await idle(), await withReads()] : await withReads().then(async (b) => [await idle(), b] as const);
    idleP99.push(i.p99Ms);
    busyP99.push(b.p99Ms);
    ratios.push(b.p99Ms / i.p99Ms);
  }
  const ratio = median(ratios);
  rows.push({
    what: 'cache-hit p99 while the same instance reads 5 uncached pages/s (Redis)',
    measured: `${fmt(median(busyP99), 2)} ms${readFailures ? `, ${readFailures} reads failed` : ''}`,
    baseline: `idle p99 ${fmt(median(idleP99), 2)} ms`,
    ratio,
    target: '≤ 2 × idle p99',
    met: ratio <= 2 && readFailures === 0,
    raw: { idleP99, busyP99 },
  });
}

/** Runs a job of `ids` on instance `i` to its end (polled): its wall time and final view. */
async function runJob(i: Instance, ids: string[]): Promise<{ ms: number; job: any }> {
  const t = performance.now();
  const made = await post(i.url, '/v1/portal/jobs', batchBody(ids));
  if (made.status !== 202) throw new Error(`job refused: ${made.status} ${JSON.stringify(made.body).slice(0, 300)}`);
  for (;;) {
    const job = (await (await fetch(`${i.url}/v1/portal/jobs/${made.body.data.id}`, { headers })).json()).data;
    if (job.finished_at) return { ms: performance.now() - t, job };
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Issue 25's job rows, on Redis with the default background budget (BACKGROUND_MAX_LIVE_PER_KEY 10,
 * JOB_CONCURRENCY 2): an uncached job at page delay D (against what 10 background slots allow, 10 / D),
 * then a job of 2,000 distinct cached homes (against the single REST hits/s of the same run).
 */
async function jobRows(
  a: Instance,
  setDelay: (ms: number) => Promise<void>,
  singleHitsPerSecond: number,
): Promise<void> {
  const uncached = zpids(40_000, QUICK ? 100 : 500);
  await setDelay(D);
  const cold = await runJob(a, uncached);
  const coldRate = uncached.length / (cold.ms / 1000);
  const ceiling = 10 / (D / 1000);
  rows.push({
    what: `job of ${fmt(uncached.length)} distinct uncached homes, page delay D = ${D} ms (Redis, 10 background slots)`,
    measured: `${fmt(coldRate, 1)} homes/s (${fmt(cold.ms / 1000, 1)} s; ${cold.job.succeeded} ok, ${cold.job.failed} failed)`,
    baseline: `10 slots / D = ${fmt(ceiling, 1)} homes/s`,
    ratio: coldRate / ceiling,
    target: '≥ 0.8 × 10 / D, every item ok',
    met: coldRate / ceiling >= 0.8 && cold.job.failed === 0,
    raw: cold,
  });
  await setDelay(0);
  const cached = zpids(50_000, QUICK ? 500 : 2_000);
  for (let i = 0; i < cached.length; i += 50) await warm(a, cached.slice(i, i + 50));
  const hot = await runJob(a, cached);
  const hotRate = cached.length / (hot.ms / 1000);
  rows.push({
    what: `job of ${fmt(cached.length)} distinct cached homes (Redis): homes/s vs single REST hits/s`,
    measured: `${fmt(hotRate)} homes/s (${fmt(hot.ms / 1000, 2)} s; ${hot.job.cache_hits} cached)`,
    baseline: `${fmt(singleHitsPerSecond)} hits/s`,
    ratio: hotRate / singleHitsPerSecond,
    target: '2,000 in ≤ 15 s, all cached',
    met: hot.ms <= 15_000 && hot.job.cache_hits === cached.length,
    raw: hot,
  });
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  pinSelf();
  const entry = serviceEntry();
  console.log(
    `bench: ${QUICK ? 'QUICK (1 short round, not for figures)' : `${ROUNDS} rounds of ${DURATION_MS} ms`}; service from ${entry.built ? 'the build' : 'TypeScript sources (tsx)'}; ${PINNED ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'not pinned (one core)'}`,
  );

  pageReadRow();
  const poolMs = await poolRoundTrip();

  redis = await startRedisServer({ ...(pinnedRedisBinary() ? { binary: pinnedRedisBinary()! } : {}) });
  const site = await startChild('fake-site.ts', LOAD_CORE);
  const setDelay = async (ms: number) => {
    const ack = new Promise((r) => site.child.proc.once('message', r));
    site.child.proc.send({ delayMs: ms });
    await ack;
  };
  await transportRow(site.url);
  const [mem, a, b] = await Promise.all([
    startInstance({ siteUrl: site.url }),
    startInstance({ siteUrl: site.url, redisUrl: redis.url }),
    startInstance({ siteUrl: site.url, redisUrl: redis.url }),
  ]);
  const startedMb = a.rssMb();
  await warm(mem, WARM);
  await warm(a, WARM);
  await new Promise((r) => setTimeout(r, 1_000));
  const idle = { startedMb, warmedMb: a.rssMb() };
  const hitBody = await (await fetch(`${mem.url}/v1/portal/property?zpid=${HOME}`, { headers })).text();
  const baselineEnv = { BENCH_BASELINE: JSON.stringify({ body: hitBody, redisUrl: redis.url }) };
  const [bareHttp, bareRedis, bareYoga] = await Promise.all(
    ['http', 'redis', 'yoga'].map((k) => startChild('baselines.ts', SERVER_CORE, baselineEnv, [k])),
  );

  const restPath = `/v1/portal/property?zpid=${HOME}`;
  const gqlBody = JSON.stringify({
    query: `{ property(zpid: "${HOME}") { ... on PropertyLookup { data { zpid price } meta { cached } } } }`,
  });
  const rest = (urls: string[]): Target => ({ urls, path: restPath, headers });
  const gql = (urls: string[]): Target => ({ urls, method: 'POST', path: '/graphql', headers: json, body: gqlBody });
  const batch = (urls: string[]): Target => ({
    urls,
    method: 'POST',
    path: '/v1/portal/batch',
    headers: json,
    body: batchBody(WARM),
  });
  const redisPair = [a, b];

  const results = await rounds([
    {
      name: 'rest-redis',
      service: () => measure(rest([a.url, b.url]), redisPair),
      baseline: () => measure({ urls: [bareRedis!.url], path: '/' }, [bareRedis!.child]),
    },
    {
      name: 'rest-mem',
      service: () => measure(rest([mem.url]), [mem]),
      baseline: () => measure({ urls: [bareHttp!.url], path: '/' }, [bareHttp!.child]),
    },
    {
      name: 'gql-mem',
      service: () => measure(gql([mem.url]), [mem]),
      baseline: () =>
        measure(
          {
            urls: [bareYoga!.url],
            method: 'POST',
            path: '/graphql',
            headers: { 'content-type': 'application/json' },
            body: '{"query":"{ hello }"}',
          },
          [bareYoga!.child],
        ),
    },
    {
      name: 'gql-redis',
      service: () => measure(gql([a.url, b.url]), redisPair),
      baseline: () =>
        measure(
          {
            urls: [bareYoga!.url],
            method: 'POST',
            path: '/graphql',
            headers: { 'content-type': 'application/json' },
            body: '{"query":"{ hello }"}',
          },
          [bareYoga!.child],
        ),
    },
    {
      name: 'batch-redis',
      service: () => measure(batch([a.url, b.url]), redisPair, 10),
      baseline: () => measure(rest([a.url, b.url]), redisPair),
    },
    {
      name: 'batch-mem',
      service: () => measure(batch([mem.url]), [mem], 10),
      baseline: () => measure(rest([mem.url]), [mem]),
    },
  ]);
  rows.unshift(
    throughputRow(
      'REST cache hit on Redis (2 instances) vs node:http + one Redis GET + JSON.parse',
      results.get('rest-redis')!,
      'bare node:http + Redis GET',
      0.6,
    ),
    throughputRow(
      'REST cache hit, in-memory store, vs bare node:http answering the same JSON',
      results.get('rest-mem')!,
      'bare node:http',
      0.5,
    ),
    throughputRow(
      'GraphQL cache hit (in memory) vs bare graphql-yoga { hello }',
      results.get('gql-mem')!,
      'bare Yoga',
      0.7,
    ),
    throughputRow(
      'GraphQL cache hit (Redis, 2 instances) vs bare graphql-yoga { hello }',
      results.get('gql-redis')!,
      'bare Yoga',
      0.7,
    ),
    throughputRow(
      '50-home cached REST batch on Redis: homes/s vs single REST hits/s',
      results.get('batch-redis')!,
      'single REST hits',
      3,
      (m) => m.perSecond * 50,
      'homes/s',
    ),
    throughputRow(
      '50-home cached REST batch in memory: homes/s vs single REST hits/s',
      results.get('batch-mem')!,
      'single REST hits',
      3,
      (m) => m.perSecond * 50,
      'homes/s',
    ),
  );

  const burst = await load(rest([a.url, b.url]), { connections: 500, requests: 1_000 });
  rows.push({
    what: '1,000 cache hits at 500 in flight, Redis healthy (2 instances)',
    measured: `${burst.non200} non-200 (${JSON.stringify(burst.statuses)})`,
    baseline: '—',
    ratio: null,
    target: '0 non-200',
    met: burst.non200 === 0,
    raw: burst,
  });

  await uncachedBatch(a, idle, setDelay, 10_000);
  // For comparison: the same batch on an instance free to use both cores (not a target row).
  const free = await startInstance({ siteUrl: site.url, redisUrl: redis.url, core: null });
  await warm(free, zpids(29_000, 50));
  await uncachedBatch(free, null, setDelay, 30_000);
  await free.stop();
  await hitsWhileReading(a, rest([a.url]));
  await jobRows(a, setDelay, median(results.get('rest-redis')!.service.map((m) => m.perSecond)));

  const table = [
    '| what | measured | baseline (same run) | ratio | target | met |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.what} | ${r.measured} | ${r.baseline} | ${r.ratio === null ? '—' : r.ratio < 10 ? fmt(r.ratio, 2) : fmt(r.ratio, 0)} | ${r.target} | ${r.met === null ? '—' : r.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${PINNED ? 'pinned with taskset' : 'not pinned'}`;
  console.log(
    `\n${table}\n\nmachine: ${machine}; page reading through the worker pool (round trip, 1 worker): ${fmt(poolMs, 2)} ms median`,
  );
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/latest.json', import.meta.url),
    `${JSON.stringify({ at: new Date().toISOString(), quick: QUICK, rounds: ROUNDS, durationMs: DURATION_MS, pageDelayMs: D, machine, serviceFrom: entry.built ? 'build' : 'sources', poolRoundTripMs: poolMs, rows }, null, 2)}\n`,
  );
  console.log('written to bench/results/latest.json');
}

try {
  await main();
} finally {
  await stopAll();
  await disposeRedisServer(redis);
}

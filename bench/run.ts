// `npm run bench`: what the service costs, as ratios against baselines measured in the same run
// (absolute numbers vary with the machine; ratios are what to compare between runs).
//
//  1. Reading a real 1 MB listing page (extract + map) vs JSON.parse of its embedded data alone,
//     and vs a full DOM parse (cheerio's default), which the collector avoids on the request path.
//  2. A REST cache hit vs a bare node:http JSON answer, over loopback (servers in a child process).
//  3. A GraphQL cache hit vs the same REST cache hit.
//  4. A 50-home cached batch vs 50 single REST cache hits.
import { readFileSync } from 'node:fs';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load as cheerioLoad } from 'cheerio';
import { extractPage } from '../src/collector/page/index.js';
import { mapProperty } from '../src/collector/mapping/index.js';
import { BENCH_KEY, ZPIDS } from './constants.js';
import { load, medianMs } from './load.js';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = 20;
const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`);
const fmt = (n: number) => n.toFixed(3);

function parseBench() {
  const html = readFileSync(new URL('../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url), 'utf8');
  const start = html.indexOf('>', html.indexOf('id="__NEXT_DATA__"')) + 1;
  const embedded = html.slice(start, html.indexOf('</script>', start));
  const baseline = medianMs(() => JSON.parse(JSON.parse(embedded).props.pageProps.componentProps.gdpClientCache), 50);
  const ours = medianMs(() => {
    const page = extractPage(html, { zpid: '2146993218', building: false });
    if (page.kind === 'property') mapProperty(page.property, page.extras, { scrapedAt: new Date().toISOString() });
  }, 50);
  const dom = medianMs(() => cheerioLoad(html)('script#__NEXT_DATA__').text(), 5);
  console.log(`\n1. Page read (${(html.length / 1e6).toFixed(2)} MB page), median ms`);
  console.log(`   baseline JSON.parse of the embedded data   ${fmt(baseline)}`);
  console.log(`   extractPage + mapProperty                  ${fmt(ours)}   (${ratio(ours, baseline)} baseline)`);
  console.log(`   full DOM parse (cheerio default), avoided  ${fmt(dom)}   (${ratio(dom, baseline)} baseline)`);
}

/** Starts bench/servers.ts in a child process and waits for its URLs. */
async function startServers(): Promise<{ urls: { service: string; bare: string }; stop: () => void }> {
  const child = fork(fileURLToPath(new URL('./servers.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const urls = await new Promise<{ service: string; bare: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { service: string; bare: string }));
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
  return { urls, stop: () => child.disconnect() };
}

async function httpBench() {
  const { urls, stop } = await startServers();
  const headers = { 'x-api-key': BENCH_KEY };
  const opts = { concurrency: CONCURRENCY, durationMs: DURATION_MS };
  const gqlBody = JSON.stringify({ query: '{ property(zpid: "2146993218") { ... on PropertyLookup { data { zpid price } meta { cached } } } }' });
  const batchBody = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ zpid: ZPIDS[i % ZPIDS.length]! })) });

  const b = await load(urls.bare, opts);
  const rest = await load(`${urls.service}/v1/portal/property?zpid=2146993218`, { ...opts, headers });
  const gql = await load(`${urls.service}/graphql`, { ...opts, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: gqlBody });
  const batch = await load(`${urls.service}/v1/portal/batch`, { ...opts, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: batchBody });
  stop();

  const row = (name: string, r: typeof b, base: typeof b, baseName: string) =>
    console.log(`   ${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${fmt(r.p50Ms)} ms  p99 ${fmt(r.p99Ms)} ms  errors ${r.errors}  (${ratio(r.perSecond, base.perSecond)} ${baseName})`);
  console.log(`\n2-4. Loopback HTTP, servers in a child process, ${CONCURRENCY} keep-alive clients, ${DURATION_MS} ms each`);
  row('bare node:http JSON (baseline)', b, b, 'bare');
  row('REST cache hit', rest, b, 'bare');
  row('GraphQL cache hit', gql, rest, 'REST hit');
  row('REST batch of 50 cached homes', batch, rest, 'REST hit');
  console.log(`   homes/s in batches: ${(batch.perSecond * 50).toFixed(0)} (${ratio(batch.perSecond * 50, rest.perSecond)} single REST hits)`);
}

parseBench();
await httpBench();

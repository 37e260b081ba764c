// `npm run bench`: what the service costs, as ratios against baselines measured in the same run
// (absolute numbers vary with the machine; ratios are what to compare between runs).
//
//  1. Reading a real 1 MB listing page (extract + map) vs JSON.parse of its embedded data alone,
//     and vs a full DOM parse (cheerio's default), which the collector avoids on the request path.
//  2. A REST cache hit vs a bare node:http JSON answer, over loopback.
//  3. A GraphQL cache hit vs the same REST cache hit.
//  4. A 50-home cached batch vs 50 single REST cache hits.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { load as cheerioLoad } from 'cheerio';
import { extractPage } from '../src/collector/page/index.js';
import { mapProperty } from '../src/collector/mapping/index.js';
import { startTestService } from '../test/helpers/service.js';
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

async function bareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const body = JSON.stringify({ hello: 'world' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

async function httpBench() {
  const svc = await startTestService({ accounts: { bench: { key: 'bench_key_000001', plan: 'paid', included: 1_000_000 } } });
  const headers = { 'x-api-key': 'bench_key_000001' };
  const zpids = ['2146993218', '114303858', '15192198'];
  for (const z of zpids) await svc.get(`/v1/portal/property?zpid=${z}`, headers['x-api-key']);
  const bare = await bareServer();
  const opts = { concurrency: CONCURRENCY, durationMs: DURATION_MS };
  const gqlBody = JSON.stringify({ query: '{ property(zpid: "2146993218") { ... on PropertyLookup { data { zpid price } meta { cached } } } }' });
  const batchBody = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ zpid: zpids[i % 3]! })) });

  const b = await load(bare.url, opts);
  const rest = await load(`${svc.url}/v1/portal/property?zpid=2146993218`, { ...opts, headers });
  const gql = await load(`${svc.url}/graphql`, { ...opts, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: gqlBody });
  const batch = await load(`${svc.url}/v1/portal/batch`, { ...opts, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: batchBody });
  await bare.close();
  await svc.close();

  const row = (name: string, r: typeof b, base: typeof b, baseName: string) =>
    console.log(`   ${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${fmt(r.p50Ms)} ms  p99 ${fmt(r.p99Ms)} ms  errors ${r.errors}  (${ratio(r.perSecond, base.perSecond)} ${baseName})`);
  console.log(`\n2-4. Loopback HTTP, ${CONCURRENCY} keep-alive clients, ${DURATION_MS} ms each`);
  row('bare node:http JSON (baseline)', b, b, 'bare');
  row('REST cache hit', rest, b, 'bare');
  row('GraphQL cache hit', gql, rest, 'REST hit');
  row('REST batch of 50 cached homes', batch, rest, 'REST hit');
  console.log(`   homes/s in batches: ${(batch.perSecond * 50).toFixed(0)} (${ratio(batch.perSecond * 50, rest.perSecond)} single REST hits)`);
}

parseBench();
await httpBench();

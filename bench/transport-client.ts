// One side of the transport rows, in a process of its own (its CPU and memory are its own): reads
// BENCH_HOMES distinct homes of the site through `impit` (the own collector's SiteClient, as a lookup
// uses it) or `got` (the client before issue 21, over Node's TLS, HTTP/1.1, as it was set up; got 16 since issue 24, 14 then),
// 10 at a time, and reports CPU and event-loop time per home; then holds 50 reads in flight at once (the
// parent samples the peak RSS). TLS is verified against the bench's CA (SSL_CERT_FILE / NODE_EXTRA_CA_CERTS).
import { performance } from 'node:perf_hooks';
import got from 'got';
import { SiteClient } from '../src/collector/site/client.js';
import { zpids } from './constants.js';

const [mode, site, first] = [process.argv[2] as 'impit' | 'got', process.argv[3]!, Number(process.argv[4] ?? 0)];
const HOMES = Number(process.env.BENCH_HOMES ?? 200);
const url = (zpid: string) => `${site}/homedetails/${zpid}_zpid/`;

const client = new SiteClient({ budgetMs: 60_000, maxConcurrency: 50, sessions: { gapMs: 0, maxDocuments: 3 } });
const http = got.extend({
  timeout: { request: 60_000 },
  retry: { limit: 0 },
  throwHttpErrors: false,
  headers: {
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'accept-language': 'en-US,en;q=0.9',
  },
});
const read = async (zpid: string): Promise<number> => {
  if (mode === 'impit') return (await client.page(url(zpid), { signal: new AbortController().signal })).body.length;
  const res = await http.get(url(zpid), { responseType: 'buffer', decompress: true });
  if (res.statusCode !== 200) throw new Error(`got ${res.statusCode}`);
  return res.body.length;
};

async function inBatches(ids: string[], width: number): Promise<void> {
  for (let i = 0; i < ids.length; i += width) {
    const sizes = await Promise.all(ids.slice(i, i + width).map(read));
    if (sizes.some((n) => n < 1_000_000)) throw new Error('a page came back short');
  }
}

// Warm: connections, TLS sessions, JIT.
await inBatches(zpids(first, 20), 10);
const cpu0 = process.cpuUsage();
const elu0 = performance.eventLoopUtilization();
await inBatches(zpids(first + 20, HOMES), 10);
const cpu = process.cpuUsage(cpu0);
const elu = performance.eventLoopUtilization(elu0);
process.send?.({ cpuUsPerHome: (cpu.user + cpu.system) / HOMES, loopMsPerHome: elu.active / HOMES });
// 50 in flight at once: the parent samples RSS until told the reads are done.
await new Promise<void>((resolve) => process.once('message', () => resolve()));
await inBatches(zpids(first + 20 + HOMES, 50), 50);
process.send?.({ done: true });

// The servers under measurement, in their own process so the load generator does not share their
// event loop: the service (memory store, replayed pages) with warm cache, and a bare node:http baseline.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService } from '../test/helpers/service.js';
import { BENCH_KEY, ZPIDS } from './constants.js';

const svc = await startTestService({ accounts: { bench: { key: BENCH_KEY, plan: 'paid', included: 1_000_000 } } });
for (const z of ZPIDS) await svc.get(`/v1/portal/property?zpid=${z}`, BENCH_KEY);

const body = JSON.stringify({ hello: 'world' });
const bare = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));

process.send?.({ service: svc.url, bare: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/` });
process.on('disconnect', () => {
  bare.close();
  void svc.close().then(() => process.exit(0));
});

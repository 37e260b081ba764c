// The listing site for the bench: every /homedetails/<zpid>_zpid/ is the real 1.06 MB condo page with
// its zpid replaced by the one asked for (so each zpid is a distinct home), answered after a delay
// the bench sets over IPC. Address and other paths: 404.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

const PAGE = readFileSync(new URL('../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url));
const ZPID = '2146993218';
const at: number[] = [];
for (let i = PAGE.indexOf(ZPID); i !== -1; i = PAGE.indexOf(ZPID, i + ZPID.length)) at.push(i);

let delayMs = 0;
process.on('message', (m: { delayMs?: number }) => {
  if (typeof m.delayMs === 'number') delayMs = m.delayMs;
  process.send?.({ ok: true });
});

function pageFor(zpid: string): Buffer {
  const page = Buffer.from(PAGE);
  // Same length keeps every offset; bench zpids have ten digits like the recorded one.
  for (const i of at) page.write(zpid, i, 'latin1');
  return page;
}

const server = http.createServer((req, res) => {
  const m = /^\/homedetails\/(\d{10})_zpid\/$/.exec(req.url ?? '');
  if (!m) {
    res.writeHead(404).end('not found');
    return;
  }
  const body = pageFor(m[1]!);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  }, delayMs);
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
process.on('SIGTERM', () => process.exit(0));

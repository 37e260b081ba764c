// A listing-site stand-in that holds every request until the test opens its gate, then forwards it
// to the replay server: a lookup that is provably in flight for as long as a test needs, with no clock.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedProxy {
  origin: string;
  /** Resolves when the n-th request (1-based) has arrived and is being held. */
  arrived(n?: number): Promise<void>;
  /** Lets every held and future request through. */
  open(): void;
  close(): Promise<void>;
}

export async function startGatedProxy(target: string): Promise<GatedProxy> {
  let opened = false;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  const waiters: Array<{ n: number; wake: () => void }> = [];
  const server = http.createServer((req, res) => {
    count += 1;
    for (const w of waiters.filter((x) => x.n <= count)) w.wake();
    const forward = async () => {
      const upstream = await fetch(target + req.url, { headers: { 'user-agent': req.headers['user-agent'] ?? 'test' }, redirect: 'manual' });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v;
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
    };
    void (opened ? forward() : gate.then(forward)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrived: (n = 1) => (count >= n ? Promise.resolve() : new Promise((wake) => waiters.push({ n, wake }))),
    open() {
      opened = true;
      release();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

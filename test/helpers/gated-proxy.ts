// A listing-site stand-in that holds requests until the test lets them go, then forwards them to the
// replay server: a lookup that is provably in flight for as long as a test needs, with no clock.
// Started closed it holds every request until `open()`; started open it holds only the paths given
// to `hold()`, each until its own release.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedProxy {
  origin: string;
  /** The path (with query) of every request received, in order. */
  paths: string[];
  /** Resolves when the n-th request (1-based) has arrived and is being held. */
  arrived(n?: number): Promise<void>;
  /** Resolves when `n` requests (1 unless given) whose path contains `needle` have arrived. */
  received(needle: string, n?: number): Promise<void>;
  /** Resolves when the caller of a request whose path contains `needle` hung up before it was answered. */
  abandoned(needle: string): Promise<void>;
  /** Lets every held and future request through (held paths stay held until released). */
  open(): void;
  /** Holds every request whose path contains `needle` until the returned release is called. */
  hold(needle: string): () => void;
  close(): Promise<void>;
}

export async function startGatedProxy(target: string, opts: { open?: boolean } = {}): Promise<GatedProxy> {
  let opened = opts.open ?? false;
  const holds = new Map<string, Promise<void>>();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  const paths: string[] = [];
  const hungUp: string[] = [];
  const waiters: Array<{ n: number; wake: () => void }> = [];
  const pathWaiters: Array<{ needle: string; n: number; seen: string[]; wake: () => void }> = [];
  const matching = (needle: string, seen: string[]) => seen.filter((p) => p.includes(needle)).length;
  const wakePaths = () => {
    for (const w of pathWaiters.filter((x) => matching(x.needle, x.seen) >= x.n)) w.wake();
  };
  const until = (needle: string, seen: string[], n = 1) =>
    matching(needle, seen) >= n
      ? Promise.resolve()
      : new Promise<void>((wake) => pathWaiters.push({ needle, n, seen, wake }));
  const server = http.createServer((req, res) => {
    count += 1;
    paths.push(req.url ?? '');
    res.on('close', () => {
      if (res.writableFinished) return;
      hungUp.push(req.url ?? '');
      wakePaths();
    });
    for (const w of waiters.filter((x) => x.n <= count)) w.wake();
    wakePaths();
    const forward = async () => {
      const upstream = await fetch(target + req.url, {
        headers: { 'user-agent': req.headers['user-agent'] ?? 'test' },
        redirect: 'manual',
      });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v;
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
    };
    const path = req.url ?? '';
    const held = [...holds].filter(([needle]) => path.includes(needle)).map(([, released]) => released);
    void Promise.all([opened ? null : gate, ...held])
      .then(forward)
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    paths,
    received: (needle, n) => until(needle, paths, n),
    abandoned: (needle) => until(needle, hungUp),
    arrived: (n = 1) => (count >= n ? Promise.resolve() : new Promise((wake) => waiters.push({ n, wake }))),
    open() {
      opened = true;
      release();
    },
    hold(needle) {
      let letGo: () => void = () => {};
      holds.set(needle, new Promise<void>((resolve) => (letGo = resolve)));
      return () => {
        holds.delete(needle);
        letGo();
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

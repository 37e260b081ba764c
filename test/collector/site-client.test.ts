import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { extractPage } from '../../src/collector/page/index.js';
import { SiteClient, boundedTimeouts, retryAfterSeconds, type SiteClientOptions } from '../../src/collector/site-client.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Catalog } from '../../src/replay/catalog.js';
import { failure } from '../helpers/lookup-error.js';
import { closedPort, useReplayServer } from '../helpers/replay.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8');
const WALL = fixture('blocked-press-and-hold-2025-04.html');

const PAGE_PATH = '/homedetails/1-Test-St-Springfield-IL-62701/111_zpid/';
const PAGE = `<!doctype html><html><head><title>1 Test St</title></head><body>${'x'.repeat(5000)}</body></html>`;
const entry = (path: string, html: string, status = 200, zpid: string | null = null): Catalog[number] => ({
  path,
  status,
  html,
  zpid,
  address: null,
  label: 'synthetic',
});
const CATALOG: Catalog = [
  entry(PAGE_PATH, PAGE, 200, '111'),
  entry('/homedetails/wall-403/', WALL, 403),
  entry('/homedetails/wall-200/', WALL, 200),
  entry('/homedetails/plain-403/', '<html><body>Forbidden</body></html>', 403),
];

const replay = useReplayServer(CATALOG);

const client = (opts: Partial<SiteClientOptions> = {}) => new SiteClient({ totalTimeoutMs: 5_000, ...opts });
const signal = () => new AbortController().signal;

/**
 * A site that takes its time: it answers the page after `answerAfterMs`, or sends it 100 bytes every
 * `dripMs`. `hungUp` settles when the connection closes: true when the client hung up before the
 * answer was complete, false when the site got to the end (so a client that waits fails the test).
 */
async function slowSite(how: { answerAfterMs: number } | { dripMs: number }) {
  let settle!: (cut: boolean) => void;
  const hungUp = new Promise<boolean>((resolve) => (settle = resolve));
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    const timers: NodeJS.Timeout[] = [];
    res.on('close', () => {
      timers.forEach(clearTimeout);
      settle(!res.writableEnded);
    });
    if ('answerAfterMs' in how) {
      timers.push(setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE), how.answerAfterMs));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    const body = Buffer.from(PAGE);
    const drip = (at: number): void => {
      if (at >= body.length) return void res.end();
      res.write(body.subarray(at, at + 100));
      timers.push(setTimeout(() => drip(at + 100), how.dripMs));
    };
    drip(0);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${PAGE_PATH}`,
    hungUp,
    get requests() {
      return requests;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('SiteClient.page', () => {
  it('reads a page', async () => {
    const page = await client().page(replay.current.origin + PAGE_PATH, { signal: signal() });
    expect(page).toEqual({ status: 200, url: replay.current.origin + PAGE_PATH, body: Buffer.from(PAGE) });
  });

  it('follows a redirect within the origin, like zpid-only links to the slugged page', async () => {
    const page = await client().page(`${replay.current.origin}/homedetails/111_zpid/`, { signal: signal() });
    expect(page.url).toBe(replay.current.origin + PAGE_PATH);
    expect(replay.current.requests.map((r) => r.path)).toEqual(['/homedetails/111_zpid/', PAGE_PATH]);
  });

  it('refuses a redirect to another origin and never contacts it', async () => {
    const elsewhere = await startReplayServer({ catalog: CATALOG });
    try {
      replay.current.faults.set('/moved/', { status: 302, headers: { location: `${elsewhere.origin}${PAGE_PATH}` } });
      const e = await failure(client().page(`${replay.current.origin}/moved/`, { signal: signal() }));
      expect(e.code).toBe('upstream_bad_response');
      // The redirect's origin is not the client's business: no location in the details.
      expect(e.details).toEqual({ reason: 'offsite_redirect', status: 302 });
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('maps 404 and 410 to not_found with a reason', async () => {
    const e404 = await failure(client().page(`${replay.current.origin}/homedetails/nothing-here/`, { signal: signal() }));
    expect(e404.code).toBe('not_found');
    expect(e404.status).toBe(404);
    expect(e404.details).toEqual({ reason: 'page_not_found', status: 404 });
    replay.current.faults.set('/gone/', { status: 410, body: 'gone' });
    const e410 = await failure(client().page(`${replay.current.origin}/gone/`, { signal: signal() }));
    expect(e410.details).toEqual({ reason: 'page_gone', status: 410 });
  });

  it('reports the bot wall sent as 403 as upstream_blocked, and hands one sent as 200 to the page reader', async () => {
    const e = await failure(client().page(`${replay.current.origin}/homedetails/wall-403/`, { signal: signal() }));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'bot_wall', status: 403 });
    // The reader tells the wall (test/collector/self-hosted.test.ts: "the real bot wall … as 200").
    const page = await client().page(`${replay.current.origin}/homedetails/wall-200/`, { signal: signal() });
    expect(page.status).toBe(200);
    expect(extractPage(page.body, { zpid: null, building: false })).toEqual({ kind: 'blocked' });
  });

  it('reports a plain 403 as blocked (forbidden)', async () => {
    const e = await failure(client().page(`${replay.current.origin}/homedetails/plain-403/`, { signal: signal() }));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'forbidden', status: 403 });
  });

  it('maps 429 to upstream_busy with the retry-after seconds (30 when absent)', async () => {
    replay.current.faults.set(PAGE_PATH, { status: 429, headers: { 'retry-after': '7' } });
    const e = await failure(client().page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_busy');
    expect(e.retryAfter).toBe(7);
    expect(e.details).toEqual({ reason: 'rate_limited', status: 429 });
    replay.current.faults.set(PAGE_PATH, { status: 429 });
    expect((await failure(client().page(replay.current.origin + PAGE_PATH, { signal: signal() }))).retryAfter).toBe(30);
  });

  it('maps 5xx to upstream_error and does not retry it', async () => {
    replay.current.faults.set(PAGE_PATH, { status: 503, body: 'down' });
    const e = await failure(client().page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_error');
    expect(e.details).toEqual({ status: 503 });
    expect(replay.current.requests).toHaveLength(1);
  });

  it('maps a refused connection to upstream_unreachable', async () => {
    const port = await closedPort();
    const e = await failure(client().page(`http://127.0.0.1:${port}/`, { signal: signal() }));
    expect(e.code).toBe('upstream_unreachable');
    expect(e.details).toEqual({ reason: 'connection_failed' });
  });

  it('maps a reset connection to upstream_unreachable after one immediate re-send', async () => {
    replay.current.faults.set(PAGE_PATH, { closeSocket: true });
    const e = await failure(client().page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_unreachable');
    expect(e.details).toEqual({ reason: 'connection_failed' });
    expect(replay.current.requests).toHaveLength(2);
  });

  it('times out waiting for the answer, hangs up, and does not retry the timeout', async () => {
    const slow = await slowSite({ answerAfterMs: 2_000 });
    try {
      const e = await failure(client({ phases: { response: 150 } }).page(slow.url, { signal: signal() }));
      expect(e.code).toBe('upstream_timeout');
      expect(e.status).toBe(504);
      expect(e.details).toEqual({ reason: 'timeout', phase: 'response' });
      expect(await slow.hungUp).toBe(true);
      expect(slow.requests).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('bounds the whole request by the lookup timeout even while bytes keep trickling in', async () => {
    replay.current.faults.set(PAGE_PATH, { dripMs: 50, dripBytes: 100 });
    const e = await failure(client({ totalTimeoutMs: 300 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'timeout', phase: 'request' });
  });

  it('stops reading and hangs up when the caller aborts mid-read (client gone)', async () => {
    const slow = await slowSite({ dripMs: 50 });
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const e = await failure(client().page(slow.url, { signal: ac.signal }));
      expect(e.code).toBe('upstream_timeout');
      expect(e.details).toEqual({ reason: 'aborted' });
      expect(await slow.hungUp).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('passes on the abort reason when it is already a LookupError (batch deadline)', async () => {
    replay.current.faults.set(PAGE_PATH, { delayMs: 2_000 });
    const deadline = new LookupError('batch_deadline');
    const ac = new AbortController();
    setTimeout(() => ac.abort(deadline), 100);
    expect(await failure(client().page(replay.current.origin + PAGE_PATH, { signal: ac.signal }))).toBe(deadline);
  });

  it('treats a deadline signal (AbortSignal.timeout) as aborted by the caller', async () => {
    replay.current.faults.set(PAGE_PATH, { delayMs: 2_000 });
    const e = await failure(client().page(replay.current.origin + PAGE_PATH, { signal: AbortSignal.timeout(100) }));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
  });

  it('cuts a body over the size limit', async () => {
    const e = await failure(client({ maxBytes: 1_000 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'too_large', maxBytes: 1_000 });
  });

  it('sends browser-like headers and the referer', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const probe = http.createServer((req, res) => {
      seen.push(req.headers);
      res.end('<html></html>');
    });
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    try {
      const { port } = probe.address() as AddressInfo;
      await client().page(`http://127.0.0.1:${port}/p/`, { signal: signal(), referer: 'https://www.zillow.com/' });
      expect(seen[0]).toMatchObject({
        'user-agent': expect.stringMatching(/^Mozilla\/5\.0 .*Chrome\/\d+/),
        accept: expect.stringContaining('text/html'),
        'accept-language': expect.stringContaining('en-US'),
        referer: 'https://www.zillow.com/',
      });
    } finally {
      probe.close();
    }
  });

  it('goes through the outbound proxy when one is set (CONNECT tunnel)', async () => {
    const tunnels: string[] = [];
    const sockets: net.Socket[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.push(client, upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const { port } = proxy.address() as AddressInfo;
      const page = await client({ proxyUrl: `http://127.0.0.1:${port}` }).page(replay.current.origin + PAGE_PATH, { signal: signal() });
      expect(page.body.toString('utf8')).toBe(PAGE);
      expect(tunnels).toEqual([new URL(replay.current.origin).host]);
    } finally {
      // Tunnelled sockets are not the server's connections any more: close them by hand.
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  });
});

describe('SiteClient.json', () => {
  it('parses JSON', async () => {
    replay.current.faults.set('/api/', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"results":[]}' });
    expect(await client().json(`${replay.current.origin}/api/`, { signal: signal() })).toEqual({ results: [] });
  });

  it('reports an HTML answer (captcha) as upstream_blocked', async () => {
    replay.current.faults.set('/api/', { status: 200, headers: { 'content-type': 'text/html' }, body: WALL });
    const e = await failure(client().json(`${replay.current.origin}/api/`, { signal: signal() }));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'captcha', status: 200 });
  });

  it('reports unparseable JSON as upstream_bad_response', async () => {
    replay.current.faults.set('/api/', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"results":' });
    const e = await failure(client().json(`${replay.current.origin}/api/`, { signal: signal() }));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'not_json' });
  });
});

describe('helpers', () => {
  it('boundedTimeouts caps every phase by the total', () => {
    expect(boundedTimeouts(2_000, { response: 60_000 })).toEqual({
      lookup: 2_000, connect: 2_000, secureConnect: 2_000, send: 2_000, response: 2_000, socket: 2_000, request: 2_000,
    });
    expect(boundedTimeouts(60_000).response).toBe(30_000);
  });

  it('retryAfterSeconds reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('12', 30)).toBe(12);
    expect(retryAfterSeconds(undefined, 30)).toBe(30);
    expect(retryAfterSeconds('soon', 30)).toBe(30);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:01:00 GMT', 30, now)).toBe(60);
  });
});

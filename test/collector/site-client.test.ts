// The own collector's client of the listing site (src/collector/site/): answers mapped to spec codes, redirects within
// the origin, budgets and aborts, the pinned Chrome profile's headers, sessions (cookies, warm-up, pacing, proxy
// sessions), retries on fresh sessions, the site-wide bound on documents in flight and the circuit breaker.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { retryAfterSeconds } from '../../src/collector/http-errors.js';
import { CircuitBreaker } from '../../src/collector/site/breaker.js';
import { SiteClient, type AttemptEvent, type SiteClientOptions } from '../../src/collector/site/client.js';
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

const client = (opts: Partial<SiteClientOptions> = {}) => new SiteClient({ budgetMs: 5_000, ...opts });
/** Requests the replay saw for `path`. */
const seen = (path: string) => replay.current.requests.filter((r) => r.path === path).length;
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

/** A loopback server answering with `answer` (after the request is recorded with its headers). */
async function probeServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    answer(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
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

  it('maps 404 and 410 to not_found with a reason, not retried', async () => {
    const e404 = await failure(
      client().page(`${replay.current.origin}/homedetails/nothing-here/`, { signal: signal() }),
    );
    expect(e404.code).toBe('not_found');
    expect(e404.status).toBe(404);
    expect(e404.details).toEqual({ reason: 'page_not_found', status: 404 });
    replay.current.faults.set('/gone/', { status: 410, body: 'gone' });
    const e410 = await failure(client().page(`${replay.current.origin}/gone/`, { signal: signal() }));
    expect(e410.details).toEqual({ reason: 'page_gone', status: 410 });
    expect(replay.current.requests).toHaveLength(2);
  });

  it('a bot wall, as 403 or as 200, is upstream_blocked, tried again on fresh sessions (PORTAL_SESSION_RETRIES)', async () => {
    const events: AttemptEvent[] = [];
    const c = client({ retries: 2 });
    c.onAttempt((e) => events.push(e));
    const e = await failure(c.page(`${replay.current.origin}/homedetails/wall-403/`, { signal: signal() }));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'bot_wall', status: 403 });
    const e200 = await failure(c.page(`${replay.current.origin}/homedetails/wall-200/`, { signal: signal() }));
    expect(e200.details).toEqual({ reason: 'bot_wall', status: 200 });
    expect(seen('/homedetails/wall-403/')).toBe(3);
    expect(seen('/homedetails/wall-200/')).toBe(3);
    expect(events.map((x) => x.outcome)).toEqual(Array(6).fill('wall'));
    // Each refused session was retired: six sessions made, none kept.
    expect(c.status().sessions).toBe(0);
  });

  it('a wall then a page: the retry on a fresh session answers', async () => {
    let n = 0;
    const site = await probeServer((_req, res) =>
      n++ === 0 ? res.writeHead(403).end(WALL) : res.writeHead(200).end(PAGE),
    );
    try {
      const page = await client().page(`${site.origin}/p/`, { signal: signal() });
      expect(page.body.toString()).toBe(PAGE);
      expect(site.requests).toHaveLength(2);
    } finally {
      await site.close();
    }
  });

  it('reports a plain 403 as blocked (forbidden)', async () => {
    const e = await failure(
      client({ retries: 0 }).page(`${replay.current.origin}/homedetails/plain-403/`, { signal: signal() }),
    );
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'forbidden', status: 403 });
  });

  it('maps 429 to upstream_busy with the retry-after seconds (30 when absent)', async () => {
    replay.current.faults.set(PAGE_PATH, { status: 429, headers: { 'retry-after': '7' } });
    const e = await failure(client({ retries: 0 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_busy');
    expect(e.retryAfter).toBe(7);
    expect(e.details).toEqual({ reason: 'rate_limited', status: 429 });
    replay.current.faults.set(PAGE_PATH, { status: 429 });
    expect(
      (await failure(client({ retries: 0 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }))).retryAfter,
    ).toBe(30);
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

  it('maps a reset connection to upstream_unreachable, tried again on fresh sessions', async () => {
    replay.current.faults.set(PAGE_PATH, { closeSocket: true });
    const e = await failure(client({ retries: 1 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_unreachable');
    expect(e.details).toEqual({ reason: 'connection_failed' });
    expect(seen(PAGE_PATH)).toBe(2);
  });

  it('times out waiting for the answer within its budget and hangs up', async () => {
    const slow = await slowSite({ answerAfterMs: 3_000 });
    try {
      const e = await failure(client({ budgetMs: 150 }).page(slow.url, { signal: signal() }));
      expect(e.code).toBe('upstream_timeout');
      expect(e.status).toBe(504);
      expect(e.details).toEqual({ reason: 'timeout' });
      expect(await slow.hungUp).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('bounds the whole read by its budget even while bytes keep trickling in', async () => {
    replay.current.faults.set(PAGE_PATH, { dripMs: 50, dripBytes: 100 });
    const e = await failure(client({ budgetMs: 300 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'timeout' });
  });

  it('never runs past the lookup deadline, whatever its budget', async () => {
    replay.current.faults.set(PAGE_PATH, { delayMs: 3_000 });
    const e = await failure(
      client({ budgetMs: 60_000 }).page(replay.current.origin + PAGE_PATH, {
        signal: signal(),
        deadlineAt: Date.now() + 200,
      }),
    );
    expect(e.code).toBe('upstream_timeout');
  });

  it('stops reading when the caller aborts mid-read (client gone)', async () => {
    const slow = await slowSite({ dripMs: 50 });
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const e = await failure(client().page(slow.url, { signal: ac.signal }));
      expect(e.code).toBe('upstream_timeout');
      expect(e.details).toEqual({ reason: 'aborted' });
      // The body stream is cancelled; whether impit then drops the connection at once depends on its own
      // runtime (after other requests timed out it let the transfer run on: docs/collector.md).
      await slow.hungUp;
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

  it("ends at the lookup's own time limit (an AbortSignal.timeout) as a timeout, not as a caller who left", async () => {
    replay.current.faults.set(PAGE_PATH, { delayMs: 2_000 });
    const e = await failure(client().page(replay.current.origin + PAGE_PATH, { signal: AbortSignal.timeout(100) }));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'timeout' });
  });

  it('cuts a body over the size limit', async () => {
    const e = await failure(client({ maxBytes: 1_000 }).page(replay.current.origin + PAGE_PATH, { signal: signal() }));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'too_large', maxBytes: 1_000 });
  });
});

describe('sessions', () => {
  it("speaks as the pinned Chrome: its user agent, client hints and navigation headers; a session's next document is a click from its last", async () => {
    const site = await probeServer((req, res) =>
      req.url === '/moved/' ? res.writeHead(301, { location: '/b/' }).end() : res.end('<html></html>'),
    );
    try {
      const c = client();
      await c.page(`${site.origin}/a/`, { signal: signal() });
      await c.page(`${site.origin}/b/`, { signal: signal() });
      await c.page(`${site.origin}/moved/`, { signal: signal() });
      const [first, second, hopFrom, hopTo] = site.requests.map((r) => r.headers);
      // A redirect keeps the navigation's headers: the same referer (the page clicked from), not its own URL.
      expect(site.requests.map((r) => r.url)).toEqual(['/a/', '/b/', '/moved/', '/b/']);
      expect(hopFrom).toMatchObject({ 'sec-fetch-site': 'same-origin', referer: `${site.origin}/b/` });
      expect(hopTo).toMatchObject({ 'sec-fetch-site': 'same-origin', referer: `${site.origin}/b/` });
      expect(first).toMatchObject({
        'user-agent': expect.stringMatching(/^Mozilla\/5\.0 .*Chrome\/151\.0\.0\.0 Safari/),
        'sec-ch-ua': expect.stringContaining('v="151"'),
        'sec-ch-ua-mobile': '?0',
        'sec-ch-ua-platform': '"Windows"',
        accept: expect.stringMatching(/^text\/html,.*image\/apng.*application\/signed-exchange/),
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
        'sec-fetch-user': '?1',
        'sec-fetch-site': 'none',
        'upgrade-insecure-requests': '1',
      });
      expect(first!.referer).toBeUndefined();
      expect(second).toMatchObject({ 'sec-fetch-site': 'same-origin', referer: `${site.origin}/a/` });
    } finally {
      await site.close();
    }
  });

  it('sends back the cookies the site set, within a session; a fresh session has none', async () => {
    let n = 0;
    const site = await probeServer((_req, res) =>
      res.writeHead(200, { 'set-cookie': [`_pxhd=v${++n}; Path=/; HttpOnly`, 'zguid=g; Path=/'] }).end('<html></html>'),
    );
    try {
      const c = client({ sessions: { maxDocuments: 2 } });
      for (const p of ['/1/', '/2/', '/3/']) await c.page(site.origin + p, { signal: signal() });
      const cookies = site.requests.map((r) => r.headers.cookie ?? null);
      expect(cookies[0]).toBeNull();
      expect(cookies[1]).toMatch(/_pxhd=v1/);
      expect(cookies[1]).toMatch(/zguid=g/);
      // The first session served its two documents and was retired: the third is a first visit.
      expect(cookies[2]).toBeNull();
    } finally {
      await site.close();
    }
  });

  it('a new session first visits the home page when asked (PORTAL_SESSION_WARMUP), and its cookies go with the document', async () => {
    const site = await probeServer((req, res) =>
      req.url === '/'
        ? res.writeHead(200, { 'set-cookie': '_pxhd=w; Path=/' }).end('<html>home</html>')
        : res.end('<html></html>'),
    );
    try {
      const c = client({ sessions: { warmUp: true, maxDocuments: 3 } });
      await c.page(`${site.origin}/p/1/`, { signal: signal() });
      await c.page(`${site.origin}/p/2/`, { signal: signal() });
      expect(site.requests.map((r) => r.url)).toEqual(['/', '/p/1/', '/p/2/']);
      expect(site.requests[1]!.headers).toMatchObject({
        cookie: '_pxhd=w',
        'sec-fetch-site': 'same-origin',
        referer: `${site.origin}/`,
      });
    } finally {
      await site.close();
    }
  });

  it('one document at a time per session, and its gap before the next: a read that finds only a resting session waits for it', async () => {
    const site = await probeServer((_req, res) => res.end('<html></html>'));
    try {
      // One session that rests ten minutes after each document.
      const c = client({ sessions: { maxSessions: 1, gapMs: 600_000, maxDocuments: 5 } });
      await c.page(`${site.origin}/1/`, { signal: signal() });
      const ac = new AbortController();
      const waiting = failure(c.page(`${site.origin}/2/`, { signal: ac.signal }));
      // Still waiting for the session after the other read's answer came back: the site saw one request.
      await new Promise((r) => setImmediate(r));
      ac.abort();
      expect((await waiting).details).toEqual({ reason: 'aborted' });
      expect(site.requests).toHaveLength(1);
    } finally {
      await site.close();
    }
  });

  it('goes through the proxy with its own proxy session per session (`{session}` in PORTAL_PROXY_URL)', async () => {
    const tunnels: Array<{ target: string; auth: string }> = [];
    const sockets: net.Socket[] = [];
    const authOf = (req: http.IncomingMessage) =>
      Buffer.from(String(req.headers['proxy-authorization'] ?? '').replace(/^Basic /, ''), 'base64').toString();
    // A plain-HTTP site is asked through the proxy in absolute form; an HTTPS one through a CONNECT tunnel.
    const proxy = http.createServer((req, res) => {
      const target = new URL(req.url ?? '');
      tunnels.push({ target: target.host, auth: authOf(req) });
      const { 'proxy-authorization': _auth, ...headers } = req.headers;
      http
        .get(target, { headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        })
        .on('error', () => res.writeHead(502).end());
    });
    proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels.push({ target: req.url ?? '', auth: authOf(req) });
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      sockets.push(socket, upstream);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const { port } = proxy.address() as AddressInfo;
      const events: AttemptEvent[] = [];
      const c = client({
        proxyUrls: [`http://user-session-{session}:secret@127.0.0.1:${port}`],
        sessions: { maxDocuments: 1 },
      });
      c.onAttempt((e) => events.push(e));
      for (let i = 0; i < 2; i++)
        expect((await c.page(replay.current.origin + PAGE_PATH, { signal: signal() })).body.toString('utf8')).toBe(
          PAGE,
        );
      expect(tunnels.map((t) => t.target)).toEqual([
        new URL(replay.current.origin).host,
        new URL(replay.current.origin).host,
      ]);
      const names = tunnels.map((t) => /^user-session-([0-9a-f]{12}):secret$/.exec(t.auth)?.[1]);
      expect(names.every(Boolean)).toBe(true);
      expect(new Set(names).size).toBe(2);
      expect(events.map((e) => [e.outcome, e.proxied, e.bytes])).toEqual([
        ['served', true, PAGE.length],
        ['served', true, PAGE.length],
      ]);
    } finally {
      // Tunnelled sockets are not the server's connections any more: close them by hand.
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  });

  it('a proxy that refuses (407) is upstream_unreachable proxy_refused, tried on fresh sessions', async () => {
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    let connects = 0;
    proxy.on('connect', (_req, socket: net.Socket) => {
      connects++;
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const { port } = proxy.address() as AddressInfo;
      const e = await failure(
        client({ proxyUrls: [`http://127.0.0.1:${port}`], retries: 1 }).page('https://localhost:1/p/', {
          signal: signal(),
        }),
      );
      expect(e.code).toBe('upstream_unreachable');
      expect(e.details).toMatchObject({ reason: 'proxy_refused' });
      expect(connects).toBe(2);
    } finally {
      proxy.close();
    }
  });
});

describe('site-wide pacing', () => {
  it('at most PORTAL_MAX_CONCURRENCY documents in flight; the rest queue and are all read', async () => {
    let inFlight = 0;
    let most = 0;
    const held: Array<() => void> = [];
    const site = await probeServer((_req, res) => {
      most = Math.max(most, ++inFlight);
      held.push(() => {
        inFlight--;
        res.end('<html></html>');
      });
    });
    try {
      const c = client({ maxConcurrency: 2 });
      const reads = Array.from({ length: 5 }, (_, i) => c.page(`${site.origin}/${i}/`, { signal: signal() }));
      // Both slots taken, the other reads queued: one answer lets the next one in.
      for (let answered = 0; answered < 5; answered++) {
        while (held.length < Math.min(2, 5 - answered)) await new Promise((r) => setImmediate(r));
        expect(c.status().in_flight).toBeLessThanOrEqual(2);
        held.shift()!();
      }
      await Promise.all(reads);
      expect(most).toBe(2);
      expect(site.requests).toHaveLength(5);
    } finally {
      await site.close();
    }
  });
});

describe('our own queue', () => {
  it("a read that cannot get a slot before the lookup's deadline is our overload (upstream_busy site_slots_busy), never sent", async () => {
    const held: Array<() => void> = [];
    const site = await probeServer((_req, res) => void held.push(() => res.end('<html></html>')));
    try {
      const c = client({ maxConcurrency: 1 });
      const first = c.page(`${site.origin}/1/`, { signal: signal() });
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      const e = await failure(c.page(`${site.origin}/2/`, { signal: signal(), deadlineAt: Date.now() + 200 }));
      expect(e.code).toBe('upstream_busy');
      expect(e.details).toEqual({ reason: 'site_slots_busy' });
      held.shift()!();
      await first;
      expect(site.requests.map((r) => r.url)).toEqual(['/1/']);
    } finally {
      await site.close();
    }
  });

  it('a read its caller left before the answer keeps its slot until its request is over (impit cannot stop it): the next read waits', async () => {
    const events: string[] = [];
    const held: Array<() => void> = [];
    const site = await probeServer((req, res) => {
      events.push(`arrived ${req.url}`);
      held.push(() => {
        events.push(`answered ${req.url}`);
        res.end('<html></html>');
      });
    });
    try {
      const c = client({ maxConcurrency: 1 });
      const ac = new AbortController();
      const left = failure(c.page(`${site.origin}/1/`, { signal: ac.signal }));
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      ac.abort();
      expect((await left).details).toEqual({ reason: 'aborted' });
      const next = c.page(`${site.origin}/2/`, { signal: signal() });
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      held.shift()!();
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      held.shift()!();
      await next;
      expect(events).toEqual(['arrived /1/', 'answered /1/', 'arrived /2/', 'answered /2/']);
    } finally {
      await site.close();
    }
  });
});

describe('circuit breaker', () => {
  it('while open, only the probe it let through decides: a read admitted before it opened does not close it', () => {
    let now = 0;
    const b = new CircuitBreaker({ window: 20, threshold: 0.8, minAttempts: 10, probeMs: 1_000 }, () => now);
    for (let i = 0; i < 10; i++) b.record(true, false);
    expect(b.open).toBe(true);
    b.record(false, true);
    expect(b.open).toBe(true);
    expect(b.admit()).toBe(false);
    now += 1_000;
    expect(b.admit()).toBe(true);
    // The probe answered by the site's own error (5xx): not served, still open.
    b.record(false, false);
    expect(b.open).toBe(true);
    now += 1_000;
    expect(b.admit()).toBe(true);
    b.record(false, true);
    expect(b.open).toBe(false);
  });

  it('opens after a run of refusals: reads skip the site (circuit_open) but for a probe now and then; a probe served closes it', async () => {
    let now = 1_000_000;
    let wall = true;
    const site = await probeServer((_req, res) => (wall ? res.writeHead(403).end(WALL) : res.end('<html></html>')));
    try {
      const c = client({ retries: 0, now: () => now, breaker: { probeMs: 60_000 } });
      for (let i = 0; i < 10; i++)
        expect((await failure(c.page(`${site.origin}/${i}/`, { signal: signal() }))).details).toMatchObject({
          reason: 'bot_wall',
        });
      expect(c.status().breaker).toMatchObject({ open: true, attempts: 10, failed_share: 1, served_share: 0 });
      const skipped = await failure(c.page(`${site.origin}/x/`, { signal: signal() }));
      expect(skipped.code).toBe('upstream_blocked');
      expect(skipped.details).toEqual({ reason: 'circuit_open' });
      expect(site.requests).toHaveLength(10);
      // A probe is due a minute later: walled, it stays open.
      now += 60_000;
      await failure(c.page(`${site.origin}/p1/`, { signal: signal() }));
      expect(site.requests).toHaveLength(11);
      expect((await failure(c.page(`${site.origin}/y/`, { signal: signal() }))).details).toEqual({
        reason: 'circuit_open',
      });
      // The next probe is served: closed again.
      wall = false;
      now += 60_000;
      await c.page(`${site.origin}/p2/`, { signal: signal() });
      expect(c.status().breaker).toMatchObject({ open: false, attempts: 0 });
      await c.page(`${site.origin}/z/`, { signal: signal() });
      expect(site.requests).toHaveLength(13);
    } finally {
      await site.close();
    }
  });

  it('the canary goes through while it is open (a probe of its own)', async () => {
    const site = await probeServer((_req, res) => res.writeHead(403).end(WALL));
    try {
      const c = client({ retries: 0 });
      for (let i = 0; i < 10; i++) await failure(c.page(`${site.origin}/${i}/`, { signal: signal() }));
      expect(c.status().breaker.open).toBe(true);
      await failure(c.page(`${site.origin}/canary/`, { signal: signal(), probe: true }));
      expect(site.requests).toHaveLength(11);
    } finally {
      await site.close();
    }
  });
});

describe('SiteClient.json', () => {
  it('parses JSON', async () => {
    replay.current.faults.set('/api/', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"results":[]}',
    });
    expect(await client().json(`${replay.current.origin}/api/`, { signal: signal() })).toEqual({ results: [] });
  });

  it("asks as the site's own page would: a cross-site fetch with the site's Origin", async () => {
    const api = await probeServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}'),
    );
    try {
      await client({ siteOrigin: 'https://www.zillow.com' }).json(`${api.origin}/autocomplete/?q=x`, {
        signal: signal(),
      });
      const h = api.requests[0]!.headers;
      expect(h).toMatchObject({
        accept: '*/*',
        origin: 'https://www.zillow.com',
        referer: 'https://www.zillow.com/',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'cors',
        'sec-fetch-dest': 'empty',
        'sec-ch-ua': expect.stringContaining('v="151"'),
      });
      expect(h['sec-fetch-user']).toBeUndefined();
      expect(h['upgrade-insecure-requests']).toBeUndefined();
    } finally {
      await api.close();
    }
  });

  it('reports an HTML answer (captcha) as upstream_blocked', async () => {
    replay.current.faults.set('/api/', { status: 200, headers: { 'content-type': 'text/html' }, body: WALL });
    const e = await failure(client({ retries: 0 }).json(`${replay.current.origin}/api/`, { signal: signal() }));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toMatchObject({ reason: expect.stringMatching(/captcha|bot_wall/), status: 200 });
  });

  it('reports unparseable JSON as upstream_bad_response', async () => {
    replay.current.faults.set('/api/', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"results":',
    });
    const e = await failure(client().json(`${replay.current.origin}/api/`, { signal: signal() }));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'not_json' });
  });
});

describe('helpers', () => {
  it('retryAfterSeconds reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('12', 30)).toBe(12);
    expect(retryAfterSeconds(undefined, 30)).toBe(30);
    expect(retryAfterSeconds('soon', 30)).toBe(30);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:01:00 GMT', 30, now)).toBe(60);
  });
});

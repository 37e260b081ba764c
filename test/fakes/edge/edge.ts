// A fake of the listing site's edge on loopback: real TLS (a test CA's certificate) and HTTP/2, judging
// each client as the site's bot manager does (rules.ts) and serving what it lets through from the replay
// server (src/replay). The front reads each connection's ClientHello before TLS starts, for its JA4 and
// ALPN; TLS is then terminated here and, over HTTP/2, the decrypted stream is tapped for the client's
// first frames (SETTINGS, WINDOW_UPDATE, priority: h2-frames.ts) before Node's HTTP/2 server gets it.
// State is per exit address (the connection's remote address: the exit proxy gives each session one).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import zlib from 'node:zlib';
import type { ReplayServer } from '../../../src/replay/server.js';
import { helloState, ja4, parseClientHello, type ClientHello } from './ja4.js';
import { akamaiFingerprint, PrefaceSniffer, settingsString, type H2ClientPreface } from './h2-frames.js';
import { DEFAULT_RULES, Judge, type EdgeRules, type RequestKind, type Verdict } from './rules.js';
import { WatchedLog } from './watched-log.js';

const WALL_PAGE = readFileSync(
  new URL('../../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const HOME_PAGE =
  '<!doctype html><html><head><title>Zillow: Real Estate, Apartments, Mortgages &amp; Home Values</title></head><body><h1>Find it. Tour it. Own it.</h1></body></html>';

/** What the edge learnt from one TLS connection before any request on it. */
export interface Connection {
  exit: string;
  hello: ClientHello;
  ja4: string;
  /** The negotiated protocol: 'h2' or 'http/1.1'. */
  protocol: string | null;
  /** The client's first HTTP/2 frames; null over HTTP/1.1 or until they arrive. */
  h2: H2ClientPreface | null;
}

export interface EdgeRequest {
  path: string;
  exit: string;
  ja4: string;
  /** ALPN protocols the client offered. */
  alpn: string[];
  httpVersion: string;
  /** Lower-cased names. */
  headers: Record<string, string | undefined>;
  /** Names and values as received, in order; over HTTP/2 the pseudo-headers come first. */
  rawHeaders: string[];
  /** Pseudo-header order as initials (`m,a,s,p`); null over HTTP/1.1. */
  pseudoOrder: string | null;
  /** SETTINGS in Akamai notation and the whole Akamai fingerprint; null over HTTP/1.1. */
  settings: string | null;
  akamai: string | null;
  kind: RequestKind;
  verdict: Verdict;
}

export interface FakeEdgeOptions {
  upstream: ReplayServer;
  /** TLS key pair for localhost (test-ca.ts). */
  cert: string | Buffer;
  key: string | Buffer;
  rules?: Partial<EdgeRules>;
}

export interface FakeEdge {
  origin: string;
  suggestUrl: string;
  port: number;
  /** Every request, in order of arrival, with its verdict. */
  requests: EdgeRequest[];
  /** Resolves with the first logged request `match` accepts (already logged or yet to come). */
  waitFor(match: (r: EdgeRequest) => boolean): Promise<EdgeRequest>;
  /** Every TLS connection, in order. */
  connections: Connection[];
  /** Live: change between requests. */
  rules: EdgeRules;
  stats(): Record<string, { served: number; walled: number }>;
  close(): Promise<void>;
}

/**
 * A duplex over the decrypted stream that lets a sniffer see the client's bytes. Handing Node's HTTP/2
 * server a non-socket stream also stops it from consuming the TLS handle natively, past our reach.
 */
class Tap extends Duplex {
  constructor(
    private readonly inner: tls.TLSSocket,
    sniff: (b: Buffer) => void,
  ) {
    super();
    inner.on('data', (b: Buffer) => {
      sniff(b);
      if (!this.push(b)) inner.pause();
    });
    inner.on('end', () => this.push(null));
    inner.on('close', () => this.destroy());
    inner.on('error', (err) => this.destroy(err));
  }
  override _read(): void {
    this.inner.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.inner.write(chunk, cb);
  }
  override _final(cb: () => void): void {
    this.inner.end(cb);
  }
  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    this.inner.destroy();
    cb(err);
  }
}

/** Reads a connection's first bytes until the ClientHello is whole; null if they are not TLS. */
function readHello(socket: net.Socket): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const onReadable = () => {
      for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null; )
        got = Buffer.concat([got, chunk]);
      const state = helloState(got);
      if (state === 'more') return;
      socket.off('readable', onReadable);
      socket.unshift(got); // TLS reads it back first (Node's TLSSocket takes bytes already buffered)
      resolve(state === 'complete' ? got : null);
    };
    socket.on('readable', onReadable);
    socket.once('end', () => resolve(null));
  });
}

function kindOf(pathname: string, suggestPath: string): RequestKind {
  return pathname === suggestPath ? 'suggest' : pathname === '/' ? 'home' : 'document';
}

// Brotli at a CDN's on-the-fly quality: the default (11) takes about half a second per 1 MB page here.
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

/** The body compressed as the client accepts (the site sends br or gzip), with its content-encoding. */
function encode(body: Buffer, acceptEncoding: string | undefined): { body: Buffer; encoding?: string } {
  if (/\bbr\b/.test(acceptEncoding ?? '')) return { body: zlib.brotliCompressSync(body, BROTLI), encoding: 'br' };
  if (/\bgzip\b/.test(acceptEncoding ?? '')) return { body: zlib.gzipSync(body), encoding: 'gzip' };
  return { body };
}

/** GET from the replay server; relays status, content-type, location and body. */
function fromUpstream(
  upstream: ReplayServer,
  path: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(upstream.origin + path, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const name of ['content-type', 'location'] as const)
            if (res.headers[name]) headers[name] = String(res.headers[name]);
          resolve({ status: res.statusCode ?? 502, headers, body: Buffer.concat(parts) });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function startFakeEdge(opts: FakeEdgeOptions): Promise<FakeEdge> {
  const rules: EdgeRules = { ...DEFAULT_RULES, ...opts.rules };
  const judge = new Judge(rules);
  const suggestPath = new URL(opts.upstream.suggestUrl).pathname;
  const secureContext = tls.createSecureContext({ cert: opts.cert, key: opts.key });
  const sockets = new Set<net.Socket>();
  const log = new WatchedLog<EdgeRequest>();
  const connections: Connection[] = [];

  const handle = (
    conn: Connection,
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) => {
    const url = new URL(req.url ?? '/', 'https://edge.invalid');
    const kind = kindOf(url.pathname, suggestPath);
    const headers = req.headers as Record<string, string | undefined>;
    const rawHeaders = req.rawHeaders;
    const pseudo = rawHeaders.filter((h, i) => i % 2 === 0 && h.startsWith(':'));
    const pseudoOrder = pseudo.length ? pseudo.map((h) => h[1]).join(',') : null;
    const settings = conn.h2 ? settingsString(conn.h2) : null;
    const { verdict, setCookies } = judge.judge({
      kind,
      exit: conn.exit,
      ja4: conn.ja4,
      httpVersion: req.httpVersion,
      headers,
      pseudoOrder,
      settings,
    });
    const entry: EdgeRequest = {
      path: url.pathname + url.search,
      exit: conn.exit,
      ja4: conn.ja4,
      alpn: conn.hello.alpn,
      httpVersion: req.httpVersion,
      headers,
      rawHeaders,
      pseudoOrder,
      settings,
      akamai: conn.h2 && pseudoOrder ? akamaiFingerprint(conn.h2, pseudoOrder) : null,
      kind,
      verdict,
    };
    log.push(entry);
    if (verdict === 'tarpit') return; // the stream stays open until close() destroys the connection

    const send = (status: number, head: Record<string, string>, body: Buffer) => {
      const { body: out, encoding } = encode(body, headers['accept-encoding']);
      try {
        // HTTP/1.1's and HTTP/2's compat response take the same (status, headers) call; their overload sets
        // differ (readonly vs mutable header arrays), so TypeScript cannot call the union directly.
        (res as http.ServerResponse).writeHead(status, {
          ...head,
          ...(encoding ? { 'content-encoding': encoding } : {}),
          'content-length': String(out.length),
          'set-cookie': setCookies,
        });
        res.end(out);
      } catch {
        // the client went away (an aborted request) while the replay answered
      }
    };
    if (verdict !== 'served')
      return send(
        rules.wall === '200' ? 200 : 403,
        { 'content-type': 'text/html; charset=utf-8' },
        Buffer.from(WALL_PAGE),
      );
    if (kind === 'home') return send(200, { 'content-type': 'text/html; charset=utf-8' }, Buffer.from(HOME_PAGE));
    fromUpstream(opts.upstream, url.pathname + url.search).then(
      (a) => send(a.status, a.headers, a.body),
      () => send(502, { 'content-type': 'text/plain' }, Buffer.from('upstream unreachable')),
    );
  };

  /** TLS ends here; the negotiated protocol picks an HTTP/2 or an HTTP/1.1 server for the connection. */
  const serve = (socket: net.Socket, conn: Connection) => {
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['h2', 'http/1.1'] });
    secure.on('error', () => socket.destroy());
    secure.once('secure', () => {
      conn.protocol = secure.alpnProtocol || 'http/1.1';
      if (conn.protocol === 'h2') {
        const sniffer = new PrefaceSniffer();
        const tap = new Tap(secure, (b) => {
          sniffer.feed(b);
          conn.h2 ??= sniffer.result;
        });
        http2
          .createServer((req, res) => handle(conn, req, res))
          .on('sessionError', () => socket.destroy())
          .emit('connection', tap);
      } else {
        http.createServer((req, res) => handle(conn, req, res)).emit('connection', secure);
      }
    });
  };

  const front = net.createServer({ pauseOnConnect: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void readHello(socket).then((bytes) => {
      let hello: ClientHello;
      try {
        if (!bytes) throw new Error('not TLS');
        hello = parseClientHello(bytes);
      } catch {
        return void socket.destroy(); // not a ClientHello the edge can read: a real edge drops it too
      }
      const conn: Connection = { exit: socket.remoteAddress ?? '', hello, ja4: ja4(hello), protocol: null, h2: null };
      connections.push(conn);
      serve(socket, conn);
    });
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
  const { port } = front.address() as AddressInfo;
  const origin = `https://localhost:${port}`;

  return {
    origin,
    suggestUrl: origin + suggestPath + new URL(opts.upstream.suggestUrl).search,
    port,
    requests: log.items,
    waitFor: (match) => log.waitFor(match),
    connections,
    rules,
    stats: () => judge.stats(),
    async close() {
      for (const s of sockets) s.destroy();
      front.close();
      await once(front, 'close');
    },
  };
}

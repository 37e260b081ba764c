// A residential-proxy gateway on loopback: an HTTP CONNECT proxy that gives each proxy session its own
// exit address, as the gateways do with a session id in the proxy username (`user-session-abc123`).
// Session n (in order of first appearance) leaves from 127.0.0.<10+n>; Linux routes all of 127.0.0.0/8
// to `lo`, so the fake edge sees distinct remote addresses with no network set-up, and keys its per-IP
// state on them. The collector's own proxy code path runs unchanged. `mode` makes the gateway fail the
// ways real ones do: a 407 (exhausted or mis-set account), a 502, or a CONNECT that is never answered.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { WatchedLog } from './watched-log.js';

export type ExitProxyMode = 'ok' | 'refuse407' | 'refuse502' | 'blackhole';

export interface ExitProxyOptions {
  mode?: ExitProxyMode;
}

export interface ProxyConnect {
  session: string | null;
  /** The address the tunnel leaves from (assigned even when the mode refuses the CONNECT). */
  exit: string;
  /** `host:port` asked for. */
  target: string;
  mode: ExitProxyMode;
}

export interface ExitProxy {
  port: number;
  /** Changeable between requests. */
  mode: ExitProxyMode;
  /** Every CONNECT received, in order, with the mode that answered it; `session` null without one. */
  connects: ProxyConnect[];
  /** Resolves with the first CONNECT `match` accepts (already received or yet to come). */
  waitFor(match: (c: ProxyConnect) => boolean): Promise<ProxyConnect>;
  /** The exit address a session leaves from (assigning one if the session is new). */
  exitOf(session: string | null): string;
  /** Bytes relayed per session (key `''` for no session): `up` client → target, `down` target → client. */
  bytes(): Record<string, { up: number; down: number }>;
  /** The proxy URL with credentials; `{session}` in the template stays for the caller to substitute. */
  url(usernameTemplate?: string): string;
  close(): Promise<void>;
}

/** The address of requests whose username names no session. */
export const NO_SESSION_EXIT = '127.0.0.2';

/** `session-<id>` in a Basic Proxy-Authorization's username, or null. */
export function sessionOf(proxyAuthorization: string | undefined): string | null {
  const m = /^Basic\s+(\S+)/i.exec(proxyAuthorization ?? '');
  if (!m) return null;
  const user = Buffer.from(m[1]!, 'base64').toString('utf8').split(':')[0] ?? '';
  return /(?:^|-)session-([A-Za-z0-9_]+)/.exec(user)?.[1] ?? null;
}

export async function startExitProxy(opts: ExitProxyOptions = {}): Promise<ExitProxy> {
  const exits = new Map<string, string>();
  const counts = new Map<string, { up: number; down: number }>();
  const sockets = new Set<net.Socket>();
  const log = new WatchedLog<ProxyConnect>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const exitOf = (session: string | null): string => {
    if (session === null) return NO_SESSION_EXIT;
    let exit = exits.get(session);
    if (!exit) {
      // 127.0.0.10 … 127.0.0.254, then round again: 245 sessions before two share an address.
      exit = `127.0.0.${10 + (exits.size % 245)}`;
      exits.set(session, exit);
    }
    return exit;
  };

  const server = http.createServer((_req, res) => res.writeHead(405, { allow: 'CONNECT' }).end());
  const proxy: ExitProxy = {
    port: 0,
    mode: opts.mode ?? 'ok',
    connects: log.items,
    waitFor: (match) => log.waitFor(match),
    exitOf,
    bytes: () => Object.fromEntries([...counts].map(([k, v]) => [k, { ...v }])),
    url: (template = 'user-session-{session}') => `http://${template}:pw@127.0.0.1:${proxy.port}`,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const session = sessionOf(req.headers['proxy-authorization']);
    const exit = exitOf(session);
    const seen: ProxyConnect = { session, exit, target, mode: proxy.mode };
    log.push(seen);
    if (seen.mode === 'refuse407') {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (seen.mode === 'refuse502') {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (seen.mode === 'blackhole') return; // held open, never answered, until close()
    const count = counts.get(session ?? '') ?? { up: 0, down: 0 };
    counts.set(session ?? '', count);

    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    // family 4: `localhost` may resolve to ::1 first, which a 127.0.0.N local address cannot reach.
    const upstream = net.connect({ host, port, localAddress: exit, family: 4 });
    track(upstream);
    let tunnelled = false;
    upstream.once('connect', () => {
      tunnelled = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) {
        count.up += head.length;
        upstream.write(head);
      }
      client.on('data', (b: Buffer) => (count.up += b.length));
      upstream.on('data', (b: Buffer) => (count.down += b.length));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    // Before the tunnel is up the client still awaits the CONNECT answer; after, it only sees the drop.
    upstream.on('error', () =>
      !tunnelled ? client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n') : client.destroy(),
    );
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => tunnelled && client.destroy());
  });

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}

// A stand-in for the listing site on loopback: serves recorded pages by path, redirects zpid-only links
// to the slugged page like the site, and answers the address-suggestion endpoint from the catalog.
// Used by the demo (PORTAL_ORIGIN / PORTAL_SUGGEST_URL point here) and by tests, which inject faults
// and read `requests` to prove that no upstream call happened.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadCatalog, type Catalog, type CatalogAddress } from './catalog.js';

export const SUGGEST_PATH = '/autocomplete/v3/suggestions';

/** What a test can make one path do. Fields combine: delay, then the answer (or a dropped socket). */
export interface Fault {
  /** Wait before answering. */
  delayMs?: number;
  /** Answer only once this settles (after the delay): a test holds the answer until it has done something. */
  hold?: Promise<unknown>;
  /** Answer with this status instead of the recorded one. */
  status?: number;
  headers?: Record<string, string>;
  /** Answer with this body instead of the recorded one. */
  body?: string;
  /** Drop the connection without an answer (after the delay). */
  closeSocket?: boolean;
  /** Send the body in chunks with this pause between them. */
  dripMs?: number;
  /** Chunk size for dripMs; default 1024 bytes. */
  dripBytes?: number;
}

export interface ReplayServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  catalog?: Catalog;
  /** Added to every answer. */
  latencyMs?: number;
  /** By path: the exact path with query first, then the path without it. */
  faults?: Record<string, Fault>;
}

export interface ReplayServer {
  origin: string;
  suggestUrl: string;
  /** Every request received, in order. */
  requests: Array<{ path: string; at: number }>;
  /** Live fault table: tests may set or delete entries between requests. */
  faults: Map<string, Fault>;
  close(): Promise<void>;
}

type Entry = Catalog[number];
type Answer = { status: number; headers: Record<string, string>; body: string };

const ZPID_ONLY = /^\/homedetails\/(\d+)_zpid\/?$/;
const HTML = { 'content-type': 'text/html; charset=utf-8' };
const notFoundPage = (): Answer => ({
  status: 404,
  headers: HTML,
  body: '<!doctype html><html><head><title>Page not found | Zillow</title></head><body><h1>404</h1></body></html>',
});

function display(a: CatalogAddress): string {
  const unit = a.unitNumber ? ` #${a.unitNumber}` : '';
  return `${a.streetNumber} ${a.streetName}${unit}, ${a.city}, ${a.state} ${a.zipCode}`;
}

// Lower-case words and numbers (`1/2` stays one token).
const tokens = (s: string): string[] =>
  s
    .toLowerCase()
    .split(/[^a-z0-9/]+/)
    .filter(Boolean);

/**
 * How many of a home's tokens the query contains: its street number, its street name without the last
 * word (the street type, `St`, `Ave`, which most homes share) and its ZIP. A plain rule, on purpose not
 * the service's address parser: the fake proposes, the service's matcher must choose.
 */
export function tokenOverlap(query: string, a: CatalogAddress): number {
  const asked = new Set(tokens(query));
  const name = tokens(a.streetName);
  const own = new Set([
    ...tokens(a.streetNumber),
    ...(name.length > 1 ? name.slice(0, -1) : name),
    ...tokens(a.zipCode),
  ]);
  return [...own].filter((t) => asked.has(t)).length;
}

/** Fewer shared tokens than this is no guess (a ZIP, a number or a street alone is shared by many homes). */
export const MIN_OVERLAP = 2;

/** The suggestion answer in the site's shape: rows sharing the most tokens with the query first (ties in catalogue order), at most `count`. */
function suggest(catalog: Catalog, q: string, count: number): { results: unknown[] } {
  const ranked = catalog
    .filter((e): e is Entry & { address: CatalogAddress; zpid: string } => !!e.address && !!e.zpid)
    .map((e) => ({ e, score: tokenOverlap(q, e.address) }))
    .filter(({ score }) => score >= MIN_OVERLAP)
    .sort((a, b) => b.score - a.score)
    .slice(0, count);
  return {
    results: ranked.map(({ e }) => ({
      display: display(e.address),
      resultType: 'Address',
      metaData: {
        addressType: 'forsale_address',
        streetNumber: e.address.streetNumber,
        streetName: e.address.streetName,
        ...(e.address.unitNumber ? { unitNumber: e.address.unitNumber } : {}),
        city: e.address.city,
        state: e.address.state,
        country: 'US',
        zipCode: e.address.zipCode,
        zpid: Number(e.zpid),
      },
    })),
  };
}

function answer(catalog: Catalog, url: URL): Answer {
  if (url.pathname === SUGGEST_PATH) {
    const count = Math.max(1, Math.min(10, Number(url.searchParams.get('resultCount')) || 5));
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(suggest(catalog, url.searchParams.get('q') ?? '', count)),
    };
  }
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  const entry = catalog.find((e) => e.path === path + url.search) ?? catalog.find((e) => e.path === path);
  if (entry) return { status: entry.status, headers: HTML, body: entry.html };
  // Like the site: /homedetails/<zpid>_zpid/ moves permanently to the slugged page.
  const zpid = ZPID_ONLY.exec(path)?.[1];
  const target = zpid ? catalog.find((e) => e.zpid === zpid) : undefined;
  if (target) return { status: 301, headers: { location: target.path }, body: '' };
  return notFoundPage();
}

async function send(res: http.ServerResponse, a: Answer, fault: Fault | undefined): Promise<void> {
  res.writeHead(a.status, a.headers);
  if (!fault?.dripMs) {
    res.end(a.body);
    return;
  }
  const bytes = Buffer.from(a.body);
  const size = fault.dripBytes ?? 1024;
  for (let i = 0; i < bytes.length && !res.destroyed; i += size) {
    res.write(bytes.subarray(i, i + size));
    await sleep(fault.dripMs);
  }
  res.end();
}

export async function startReplayServer(opts: ReplayServerOptions = {}): Promise<ReplayServer> {
  const catalog = opts.catalog ?? loadCatalog();
  const host = opts.host ?? '127.0.0.1';
  const faults = new Map(Object.entries(opts.faults ?? {}));
  const requests: ReplayServer['requests'] = [];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay.invalid');
    requests.push({ path: url.pathname + url.search, at: Date.now() });
    const fault = faults.get(url.pathname + url.search) ?? faults.get(url.pathname);
    void (async () => {
      const delay = (opts.latencyMs ?? 0) + (fault?.delayMs ?? 0);
      if (delay > 0) await sleep(delay);
      if (fault?.hold) await fault.hold.catch(() => undefined);
      if (fault?.closeSocket) {
        req.socket.destroy();
        return;
      }
      const base = answer(catalog, url);
      const a: Answer = {
        status: fault?.status ?? base.status,
        headers: { ...base.headers, ...fault?.headers },
        body: fault?.body ?? base.body,
      };
      await send(res, a, fault);
    })().catch(() => res.destroy());
  });
  server.listen(opts.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;

  return {
    origin,
    suggestUrl: `${origin}${SUGGEST_PATH}`,
    requests,
    faults,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

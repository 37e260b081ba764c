// Test wiring shared by the collector tests: a replay server per test file, reset between tests,
// and a loopback port with nothing listening on it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { loadCatalog, type Catalog } from '../../src/replay/catalog.js';
import { startReplayServer, type ReplayServer } from '../../src/replay/server.js';

/** Starts a replay server of `catalog` for the calling test file; read `.current` inside tests. */
export function useReplayServer(catalog?: Catalog): { current: ReplayServer } {
  const holder = {} as { current: ReplayServer };
  beforeAll(async () => {
    holder.current = await startReplayServer(catalog ? { catalog } : {});
  });
  afterAll(() => holder.current.close());
  afterEach(() => {
    holder.current.faults.clear();
    holder.current.requests.length = 0;
  });
  return holder;
}

/** A loopback port that refuses connections (it was just freed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

let catalog: Catalog | undefined;

/**
 * The page the replay serves for home `zpid` (its path after the site's redirect, and its HTML), to
 * serve an edited copy through the replay's faults: `faults.set(path, { body: edited })` is "this
 * home now has price X", until the faults are cleared.
 */
export function recordedPage(zpid: string): { path: string; html: string } {
  const entry = (catalog ??= loadCatalog()).find(
    (e) => e.zpid === zpid && e.status === 200 && e.path.startsWith('/homedetails/'),
  );
  if (!entry) throw new Error(`no recorded page of zpid ${zpid}`);
  return { path: entry.path, html: entry.html };
}

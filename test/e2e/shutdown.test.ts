// The service as `npm start` runs it, in its own process, stopped with SIGTERM (issue 9, items 6, 7, 13):
// idle keep-alive sockets close at once, a request in flight is answered, the process exits 0; past
// SHUTDOWN_GRACE_MS the lookups still running are aborted, their reservations released (nothing
// charged for an answer that never left), and the answer still goes out. Every line the process
// writes is JSON. Outcomes are ordered by events (a gated upstream, socket closes, the exit), never by time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startService } from '../../src/server.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { rawExchange } from '../helpers/raw-http.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const KEY = 'shutdown_key_0001';
const HOMES = ['114303858', '2146993218', '15192198'];

let replay: Awaited<ReturnType<typeof startReplayServer>>;
let redis: RedisServer;
let accountsFile: string;
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  redis = await startRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'shutdown-'));
  accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([{ key: KEY, plan: 'free', allotment: HOMES.length }]));
});
afterAll(async () => {
  await replay.close();
  await disposeRedisServer(redis);
});

interface Child {
  proc: ChildProcess;
  port: Promise<number>;
  exited: Promise<number | null>;
  stdout: string[];
  stderr: string[];
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function spawnService(env: Record<string, string>, prefix: string): Child {
  const proc = spawn(process.execPath, entryArgs('index.ts'), {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      ACCOUNTS_FILE: accountsFile,
      PORTAL_SUGGEST_URL: replay.suggestUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  const stdout: string[] = [];
  const stderr: string[] = [];
  let found: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (found = resolve));
  let buffered = '';
  proc.stdout!.on('data', (d) => {
    buffered += String(d);
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      stdout.push(line);
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (m) found(Number(m[1]));
    }
  });
  proc.stderr!.on('data', (d) => stderr.push(...String(d).split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, port, exited, stdout, stderr };
}

const lookupRequest = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`;

function expectOnlyJsonLines(c: Child): void {
  expect(c.stderr).toEqual([]);
  for (const line of c.stdout.filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
}

describe('SIGTERM', () => {
  let proxy: GatedProxy;
  afterEach(() => proxy?.close());

  it('closes idle keep-alive sockets at once, answers the request in flight, exits 0', async () => {
    proxy = await startGatedProxy(replay.origin);
    const child = spawnService({ PORTAL_ORIGIN: proxy.origin, SHUTDOWN_GRACE_MS: '60000' }, 'sd1:');
    const port = await child.port;

    const idle = rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.response)?.status).toBe(200);
    let answered = false;
    const inFlight = rawExchange(port, lookupRequest(`/v1/portal/property?zpid=${HOMES[0]}`));
    void inFlight.response.then(() => (answered = true));
    await proxy.arrived();

    child.proc.kill('SIGTERM');
    await idle.closed;
    // The idle socket went while the lookup was still held upstream: it did not wait for the drain.
    expect(answered).toBe(false);

    proxy.open();
    const r = await inFlight.response;
    expect(r?.status).toBe(200);
    expect(r!.json.meta.credits).toBe(1);
    expect(r!.headers.connection).toBe('close');
    await inFlight.closed;
    expect(await child.exited).toBe(0);
    expectOnlyJsonLines(child);
  });

  it('past the grace: aborts the lookups still running, releases their credits, still answers, exits 0', async () => {
    proxy = await startGatedProxy(replay.origin);
    const child = spawnService(
      { PORTAL_ORIGIN: proxy.origin, SHUTDOWN_GRACE_MS: '200', BATCH_CONCURRENCY: '1' },
      'sd2:',
    );
    const port = await child.port;
    const body = JSON.stringify({ items: HOMES.map((zpid) => ({ zpid })) });
    const batch = rawExchange(
      port,
      `POST /v1/portal/batch HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    await proxy.arrived();
    child.proc.kill('SIGTERM');

    // The gate never opens: the drain gives up on the batch, which answers with its items failed.
    const r = await batch.response;
    expect(r?.status).toBe(200);
    expect(r!.json.meta).toMatchObject({ count: HOMES.length, succeeded: 0, credits: 0 });
    // Each item says why: this instance stopped (retry: another answers).
    expect(
      r!.json.data.map((d: { error: { code: string; details?: unknown } }) => [d.error.code, d.error.details]),
    ).toEqual(HOMES.map(() => ['upstream_busy', { reason: 'shutting_down', retry_after: 1 }]));
    expect(await child.exited).toBe(0);
    expectOnlyJsonLines(child);

    // Another instance on the same Redis: the account's whole allotment is usable, nothing was charged.
    const next = await startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'sd2:',
        ACCOUNTS_FILE: accountsFile,
        PORTAL_ORIGIN: replay.origin,
        PORTAL_SUGGEST_URL: replay.suggestUrl,
      }),
    );
    try {
      const account = await (await fetch(`${next.url}/v1/account`, { headers: { 'x-api-key': KEY } })).json();
      expect(account.data).toMatchObject({ used: 0, remaining: HOMES.length });
      const all = await fetch(`${next.url}/v1/portal/batch`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body,
      });
      expect((await all.json()).meta).toMatchObject({ succeeded: HOMES.length, credits: HOMES.length });
    } finally {
      await next.close();
    }
  });
});

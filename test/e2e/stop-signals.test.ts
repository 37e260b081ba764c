// The stop signals as close-with-grace handles them for `npm start` (issue 13 §5), beyond the one
// graceful SIGTERM of shutdown.test.ts: a second signal during the drain exits at once with 1, and
// what the process says about it is a JSON log line. Ordered by events (a held upstream, the
// "stopping" line, the exit), never by time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { rawExchange } from '../helpers/raw-http.js';

const KEY = 'stop_signals_key_0001';

let replay: Awaited<ReturnType<typeof startReplayServer>>;
let proxy: GatedProxy;
let accountsFile: string;
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(replay.origin);
  accountsFile = join(mkdtempSync(join(tmpdir(), 'stop-signals-')), 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([{ key: KEY, plan: 'free', allotment: 5 }]));
});
afterAll(async () => {
  await proxy.close();
  await replay.close();
});
let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

/** Resolves with the first JSON log line whose msg matches. */
function lineOf(
  lines: Array<Record<string, unknown>>,
  wanted: (msg: string) => boolean,
  onLine: Array<() => void>,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const look = () => {
      const found = lines.find((l) => typeof l.msg === 'string' && wanted(l.msg));
      if (found) resolve(found);
      else onLine.push(look);
    };
    look();
  });
}

describe('a second stop signal', () => {
  it('while a request is held in the drain: the process exits at once with 1, saying so in a JSON line', async () => {
    const proc = spawn(process.execPath, entryArgs('index.ts'), {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        ACCOUNTS_FILE: accountsFile,
        PORTAL_ORIGIN: proxy.origin,
        PORTAL_SUGGEST_URL: replay.suggestUrl,
        SHUTDOWN_GRACE_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const lines: Array<Record<string, unknown>> = [];
    const stderr: string[] = [];
    const onLine: Array<() => void> = [];
    let buffered = '';
    proc.stdout.on('data', (d) => {
      buffered += String(d);
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const part of parts.filter(Boolean)) lines.push(JSON.parse(part) as Record<string, unknown>);
      for (const wake of onLine.splice(0)) wake();
    });
    proc.stderr.on('data', (d) => stderr.push(String(d)));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));

    const listening = await lineOf(lines, (m) => m.startsWith('Server listening at http://127.0.0.1:'), onLine);
    const port = Number(/:(\d+)$/.exec(String(listening.msg))![1]);
    const held = rawExchange(
      port,
      `GET /v1/portal/property?zpid=114303858 HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`,
    );
    await proxy.arrived();

    proc.kill('SIGTERM');
    expect((await lineOf(lines, (m) => m === 'stopping', onLine)).signal).toBe('SIGTERM');
    proc.kill('SIGTERM');
    // The grace is ten minutes and the upstream never answers: only the second signal can end it now.
    expect(await exited).toBe(1);
    expect(lines.map((l) => l.msg)).toContain('second SIGTERM, exiting');
    expect(lines.map((l) => l.msg)).not.toContain('stopped');
    expect(stderr).toEqual([]);
    await held.closed;
  });
});

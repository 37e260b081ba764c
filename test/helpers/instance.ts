// A real service process (`npm start`: src/index.ts, compiled once per run) on a free loopback port, for crash
// and soak tests: it can be killed like a crashed instance (SIGKILL) and its memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './compiled-src.js';
import { freePort } from './redis-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Bound on a process coming up on a busy machine; a service that never gets ready fails here. */
const READY_WITHIN_MS = 60_000;

export interface Instance {
  url: string;
  pid: number;
  /** Its output so far (JSON log lines), for a failing test's message. */
  readonly log: string;
  /** Resident memory in bytes (VmRSS). */
  rss(): number;
  /** A crash: SIGKILL, resolves once the process is gone. */
  kill(): Promise<void>;
  /** A graceful stop: SIGTERM, resolves once the process has exited. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

const exited = (c: ChildProcess): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => c.once('exit', () => resolve()));

/** Starts `src/index.ts` with `env` (PORT and HOST are chosen here) and waits until /readyz answers 200. */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  // A port found free can be taken by another test's server before the child listens: then a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(env);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof PortTaken)) throw e;
    }
  }
}

class PortTaken extends Error {}

async function startOnFreePort(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, entryArgs('index.ts'), {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORTAL_SESSION_GAP_MS: '0',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let log = '';
  const keep = (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (child.exitCode !== null) {
      if (log.includes('EADDRINUSE')) throw new PortTaken(`port ${port} taken: ${log}`);
      throw new Error(`instance exited with ${child.exitCode}: ${log}`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    // Ready, with the child alive and no listen failure logged (another server on a taken port answers too).
    if (ready && child.exitCode === null && !log.includes('EADDRINUSE')) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`instance not ready within ${READY_WITHIN_MS} ms: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    get log() {
      return log;
    },
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

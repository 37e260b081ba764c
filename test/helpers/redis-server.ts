// A real redis-server for tests: its own free loopback port (never 6379), its own temp dir,
// killed when the test process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerOptions {
  /** Persist every write to an append-only file (appendfsync always), so a kill + restart loses nothing acknowledged. */
  appendOnly?: boolean;
  /** Binary to run (default `redis-server` from PATH). */
  binary?: string;
}

export interface RedisServer {
  url: string;
  port: number;
  /** Its working dir (append-only file, logs); removed by disposeRedisServer or at exit. */
  dir: string;
  /** Graceful stop (SIGTERM); resolves when the process has exited. */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL), like a crash; resolves when the process has exited. */
  kill(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Thaws a paused process (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port and dir (after stop or kill); resolves when it answers PING. */
  restart(): Promise<void>;
  readonly running: boolean;
}

// A tiny detached process per redis-server: if this test process dies without running its exit
// hooks (a worker killed at a timeout), it kills the server and removes its dir.
const WATCHDOG = `
const [parent, child, dir] = process.argv.slice(1);
const alive = (pid) => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
setInterval(() => {
  if (!alive(child)) process.exit(0);
  if (!alive(parent)) {
    try { process.kill(Number(child), 'SIGKILL'); } catch {}
    setTimeout(() => { try { require('node:fs').rmSync(dir, { recursive: true, force: true }); } catch {} process.exit(0); }, 200);
  }
}, 500);
`;

const live = new Set<ChildProcess>();
const dirs = new Set<string>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
}

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port !== 6379 && port > 0) return port;
  }
}

/**
 * True when the redis-server answering on the port is the process `pid` (INFO's process_id). Another test
 * process may have started its own server on the port between our free-port check and our server's bind: ours
 * then exits on the taken port, and a bare PING would have been answered by theirs.
 */
function answersAs(port: number, pid: number, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let buf = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (d) => {
      buf += d.toString('utf8');
      const id = /process_id:(\d+)\r\n/.exec(buf);
      if (id) done(Number(id[1]) === pid);
      else if (buf.startsWith('-') && buf.includes('\r\n')) done(false);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  hookExit();
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'));
  dirs.add(dir);
  let port = 0;
  let child: ChildProcess | null = null;
  let log = '';

  const launch = async (deadlineMs: number): Promise<boolean> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
      ...(opts.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ];
    log = '';
    const c = spawn(opts.binary ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout?.on('data', (d: Buffer) => {
      log = (log + d.toString('utf8')).slice(-4000);
    });
    c.stderr?.on('data', (d: Buffer) => {
      log = (log + d.toString('utf8')).slice(-4000);
    });
    c.once('exit', () => live.delete(c));
    live.add(c);
    if (c.pid !== undefined) {
      spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(c.pid), dir], {
        stdio: 'ignore',
        detached: true,
      }).unref();
    }
    child = c;
    const until = Date.now() + deadlineMs;
    while (Date.now() < until) {
      if (c.exitCode !== null || c.signalCode !== null) return false;
      if (c.pid !== undefined && (await answersAs(port, c.pid))) return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    c.kill('SIGKILL');
    await exited(c);
    return false;
  };

  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    if (await launch(10_000)) break;
    if (attempt >= 4) throw new Error(`redis-server did not start: ${log}`);
  }

  const signalAndWait = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill(signal);
    await exited(c);
  };

  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => signalAndWait('SIGTERM'),
    kill: () => signalAndWait('SIGKILL'),
    pause: () => {
      child?.kill('SIGSTOP');
    },
    resume: () => {
      child?.kill('SIGCONT');
    },
    async restart() {
      await signalAndWait('SIGKILL');
      // The port may take a moment to be free again; retry on the same port only.
      for (let attempt = 0; attempt < 20; attempt++) {
        if (await launch(10_000)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`redis-server did not restart on port ${port}: ${log}`);
    },
    get running() {
      return child !== null && child.exitCode === null && child.signalCode === null;
    },
  };
  return server;
}

/** Kills the server and removes its dir. */
export async function disposeRedisServer(server: RedisServer | undefined): Promise<void> {
  if (!server) return;
  server.resume();
  await server.kill();
  rmSync(server.dir, { recursive: true, force: true });
  dirs.delete(server.dir);
}

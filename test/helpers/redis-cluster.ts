// A real 3-master Redis Cluster for tests, from the `redis-server` binary: each node on its own free
// loopback port (never 6379) in its own temp dir, joined with CLUSTER MEET, the 16384 slots split
// with CLUSTER ADDSLOTSRANGE (over ioredis: no redis-cli needed), ready once every node reports
// cluster_state:ok. Killed when the test process exits (a detached watchdog per node, as
// redis-server.ts, covers a worker killed without exit hooks).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './redis-server.js';

export interface RedisCluster {
  /** The nodes as REDIS_CLUSTER_NODES takes them: `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`. */
  nodes: string;
  /** The same, as a list (config.redisClusterNodes). */
  nodeList: string[];
  ports: number[];
  /** Kills node `index` (SIGKILL, as a crash); resolves when it has exited. */
  kill(index: number): Promise<void>;
  /**
   * Starts node `index` again (killed first if running) on its port and dir: it rejoins with its slots
   * (its nodes.conf), empty. Resolves once every node reports cluster_state:ok again.
   */
  restart(index: number): Promise<void>;
  /** Kills every node and removes their dirs. */
  stop(): Promise<void>;
}

const MASTERS = 3;
const SLOTS = 16384;

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

/** Polls `check` until true, at most `ms`; throws `what` on timeout. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`redis cluster: ${what} not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Node {
  port: number;
  dir: string;
  child: ChildProcess;
  log: () => string;
}

/** A node on `port` with its config and data in `dir`; resolves once it answers as itself (INFO's process_id). */
async function launch(port: number, dir: string): Promise<Node> {
  let log = '';
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--cluster-node-timeout',
      '5000',
      '--appendonly',
      'no',
      '--save',
      '',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4000);
  });
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4000);
  });
  child.once('exit', () => live.delete(child));
  live.add(child);
  if (child.pid !== undefined) {
    spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(child.pid), dir], {
      stdio: 'ignore',
      detached: true,
    }).unref();
  }
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  client.on('error', () => undefined);
  try {
    await until('node start', 10_000, async () => {
      if (child.exitCode !== null || child.signalCode !== null) return false;
      if (client.status !== 'ready') await client.connect();
      // Our node, not another test process's started on the port between the free-port check and our bind.
      return /process_id:(\d+)/.exec(await client.info('server'))?.[1] === String(child.pid);
    });
    return { port, dir, child, log: () => log };
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}: ${log}`);
  } finally {
    client.disconnect();
  }
}

async function startNode(): Promise<Node> {
  for (let attempt = 0; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-test-'));
    dirs.add(dir);
    try {
      return await launch(await freePort(), dir);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
      if (attempt >= 4) throw e;
    }
  }
}

async function kill(n: Node): Promise<void> {
  if (n.child.exitCode !== null || n.child.signalCode !== null) return;
  const exited = new Promise((r) => n.child.once('exit', r));
  n.child.kill('SIGKILL');
  await exited;
}

/** Until every node reports cluster_state:ok and knows all the masters. */
async function clusterOk(nodes: Node[]): Promise<void> {
  const clients = nodes.map(
    (n) => new Redis({ port: n.port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0 }),
  );
  for (const c of clients) c.on('error', () => undefined);
  try {
    await until('cluster_state:ok on every node', 20_000, async () => {
      const infos = await Promise.all(clients.map((c) => c.cluster('INFO')));
      return infos.every(
        (info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${MASTERS}`),
      );
    });
  } finally {
    for (const c of clients) c.disconnect();
  }
}

export async function startRedisCluster(): Promise<RedisCluster> {
  hookExit();
  const nodes = await Promise.all(Array.from({ length: MASTERS }, () => startNode()));
  const clients = nodes.map((n) => new Redis({ port: n.port, host: '127.0.0.1' }));
  try {
    for (const c of clients.slice(1)) await c.cluster('MEET', '127.0.0.1', nodes[0]!.port);
    const per = Math.ceil(SLOTS / MASTERS);
    await Promise.all(
      clients.map((c, i) =>
        c.call('CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(SLOTS, (i + 1) * per) - 1)),
      ),
    );
    await clusterOk(nodes);
  } catch (e) {
    for (const n of nodes) n.child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${nodes.map((n) => n.log()).join('\n')}`);
  } finally {
    for (const c of clients) c.disconnect();
  }
  const nodeList = nodes.map((n) => `127.0.0.1:${n.port}`);
  return {
    nodes: nodeList.join(','),
    nodeList,
    ports: nodes.map((n) => n.port),
    kill: (index) => kill(nodes[index]!),
    async restart(index) {
      const old = nodes[index]!;
      await kill(old);
      // The port may take a moment to be free again: retried on the same port only.
      for (let attempt = 0; ; attempt++) {
        try {
          nodes[index] = await launch(old.port, old.dir);
          break;
        } catch (e) {
          if (attempt >= 20) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await clusterOk(nodes);
    },
    async stop() {
      await Promise.all(
        nodes.map(async (n) => {
          await kill(n);
          rmSync(n.dir, { recursive: true, force: true });
          dirs.delete(n.dir);
        }),
      );
    },
  };
}

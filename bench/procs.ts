// Child processes of the bench: pinned to a core with taskset where the machine has two or more,
// and measured from /proc (CPU time of all their threads, resident memory).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The server under test gets core 0; the load generator, Redis and the fake site core 1. */
export const PINNED = availableParallelism() >= 2;
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';

const CLOCK_TICK_US = 10_000; // USER_HZ is 100 on Linux

/** Pins this process (the load generator) to the load core. */
export function pinSelf(): void {
  if (PINNED) spawn('taskset', ['-pc', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** User + system CPU time of the process so far, µs (all threads). */
  cpuUs(): number;
  /** The same for its main thread only (the event loop). */
  mainThreadCpuUs(): number;
  /** Resident memory now, MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

/** CPU time of a process (all threads), or of one thread with `tid` (the main thread's tid is the pid). */
export function cpuUsOf(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
}

export function rssMbOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const spawned = new Set<Child>();
// Whatever happens to the bench, no server is left behind.
process.on('exit', () => {
  for (const c of spawned) c.proc.kill('SIGKILL');
});

/** Stops every child started so far. */
export async function stopAll(): Promise<void> {
  await Promise.all([...spawned].map((c) => c.stop()));
}

/** Node with TypeScript support when the file is .ts (tsx's loader), pinned to `core` (null: any core). */
export function spawnNode(
  file: string,
  opts: { core: string | null; env?: Record<string, string>; args?: string[]; ipc?: boolean; quiet?: boolean },
): Child {
  const nodeArgs = [...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), file, ...(opts.args ?? [])];
  const [cmd, args] =
    PINNED && opts.core !== null
      ? ['taskset', ['-c', opts.core, process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
  const proc = spawn(cmd, args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', opts.quiet ? 'ignore' : 'inherit', 'inherit', ...(opts.ipc ? ['ipc' as const] : [])],
  });
  const pid = proc.pid!;
  const child: Child = {
    proc,
    pid,
    cpuUs: () => cpuUsOf(pid),
    mainThreadCpuUs: () => cpuUsOf(pid, pid),
    rssMb: () => rssMbOf(pid),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      spawned.delete(child);
    },
  };
  spawned.add(child);
  return child;
}

/** The first IPC message of a child (its address). */
export function firstMessage<T>(child: Child): Promise<T> {
  return new Promise((resolve, reject) => {
    child.proc.once('message', (m) => resolve(m as T));
    child.proc.once('exit', (code) => reject(new Error(`child exited with ${code} before it was ready`)));
  });
}

/** Waits until GET url answers 200. */
export async function ready(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.proc.exitCode !== null) throw new Error(`${url}: the process exited with ${child.proc.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${url} did not become ready`);
}

export const benchFile = (name: string) => fileURLToPath(new URL(name, import.meta.url));

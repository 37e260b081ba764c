// A worker killed mid-job changes nothing: two `npm run worker` processes (src/worker.ts) share a job's
// chunks on Redis, each reading the site through a gated proxy of its own; the one whose proxy receives the
// read of chunk 3's trap home (held there, so that chunk is certainly under way and cannot settle) is
// SIGKILLed, and the other takes over its chunks (BullMQ's stalled-job check, JOB_LOCK_MS) and finishes.
// The results and the bill equal an uninterrupted run's of the same items (in this process, on another prefix): every item's
// outcome, each home charged once, the same homes charged (a home the dead run had cached but not yet
// charged is charged on the re-run from the reservation it held). The survivor stops on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import type { Jobs, JobView } from '../../src/jobs/types.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Account } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { CHUNK_SIZE } from '../../src/jobs/index.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { follow, jobCharges, resultsOf } from './helpers.js';
import { manyHomesCatalog, manyZpids } from './many-homes.js';

const HOMES = manyZpids(780_000_000, 200);
/**
 * A home of one item only, 176 (chunk 3, amid its items): no other chunk reads it, so its read comes from
 * whichever worker runs chunk 3, and is held there until that worker is killed.
 */
const [TRAP] = manyZpids(780_000_200, 1) as [string];
const TRAP_ITEM = 176;
const COUNT = 600;
const homeAt = (i: number): string => (i === TRAP_ITEM ? TRAP : HOMES[(i * 31) % HOMES.length]!);
const itemAt = (i: number): unknown =>
  i % 50 === 9
    ? { zpid: 'bad' }
    : i % 2 === 0
      ? { zpid: homeAt(i) }
      : `https://www.zillow.com/homedetails/${homeAt(i)}_zpid/`;
const ITEMS = Array.from({ length: COUNT }, (_, i) => itemAt(i));
const ACCOUNTS = { paid: { key: 'test_paid_key_0001', plan: 'paid' as const, included: 10_000, overage: false } };
// The chunk lock: a killed worker's chunk is taken over once it lapses (at most about twice this after the
// kill). Long enough that a live worker's renewal (every half of it), late under load, does not lose it.
// No cap on the key's background slots: a read refused a slot would put its item off to a later round
// of its chunk, and the chunk cut short must be the one round the kill interrupts (slots have tests of their own).
const ENV = { RATE_LIMIT_PER_MINUTE: '0', JOB_LOCK_MS: '3000', JOB_CONCURRENCY: '2', BACKGROUND_MAX_LIVE_PER_KEY: '0' };

let redis: RedisServer;
let replay: ReplayServer;
const children: ChildProcess[] = [];
const proxies: GatedProxy[] = [];

interface Worker {
  proc: ChildProcess;
  /** The site as this worker reads it: the trap home's read is held until released. */
  proxy: GatedProxy;
  releaseTrap: () => void;
  /** Resolves at its 'worker started' line; rejects (with its stderr) if it exits first. */
  started: Promise<void>;
  exited: Promise<number | null>;
  /** Its 'job chunk started' log lines. */
  chunks: { chunk: number; rerun: boolean }[];
}

async function spawnWorker(prefix: string): Promise<Worker> {
  const proxy = await startGatedProxy(replay.origin, { open: true });
  proxies.push(proxy);
  const releaseTrap = proxy.hold(TRAP);
  const proc = spawn(process.execPath, entryArgs('worker.ts'), {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      PORTAL_ORIGIN: proxy.origin,
      PORTAL_SUGGEST_URL: replay.suggestUrl,
      ...ENV,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let ready: () => void = () => {};
  let startFailed: (e: Error) => void = () => {};
  const started = new Promise<void>((resolve, reject) => ((ready = resolve), (startFailed = reject)));
  const chunks: Worker['chunks'] = [];
  let buffered = '';
  // Read, or a full stderr pipe would block the worker (Node writes to pipes synchronously): its last lines are kept for a failure's message.
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr = (stderr + String(d)).slice(-4096)));
  proc.on('exit', (code, signal) => {
    startFailed(new Error(`worker ${proc.pid} exited ${code ?? signal} before it started: ${stderr}`));
    if (code !== 0 && signal !== 'SIGKILL' && stderr)
      console.error(`worker ${proc.pid} exited ${code ?? signal}: ${stderr}`);
  });
  proc.stdout!.on('data', (d) => {
    buffered += String(d);
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line.includes('worker started')) ready();
      if (!line.includes('job chunk started')) continue;
      const { chunk, rerun } = JSON.parse(line) as { chunk: number; rerun: boolean };
      chunks.push({ chunk, rerun });
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, proxy, releaseTrap, started, exited, chunks };
}

async function serviceOn(prefix: string): Promise<{ svc: TestService; jobs: Jobs; account: Account }> {
  const svc = await startTestService({
    replayServer: replay,
    store: await RedisStore.connect(redis.url, { prefix }),
    accounts: ACCOUNTS,
    env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix, ...ENV },
  });
  return {
    svc,
    jobs: svc.app.background.jobs,
    account: await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!),
  };
}

/** What must not change: each item's outcome (the home found, or the error), without which duplicate carries the credit. */
const outcomes = (lines: any[]) =>
  lines.map((l) => (l.ok ? { index: l.index, zpid: l.data.zpid } : { index: l.index, code: l.error.code }));

beforeAll(async () => {
  redis = await startRedisServer();
  replay = await startReplayServer({ host: '127.0.0.1', port: 0, catalog: manyHomesCatalog([...HOMES, TRAP]) });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const p of proxies) await p.close();
  await replay?.close();
  if (redis) await disposeRedisServer(redis);
});

describe('a worker killed mid-job', () => {
  let killed: { view: JobView; lines: any[]; charges: string[] };
  let whole: { view: JobView; lines: any[]; charges: string[] };
  let interrupted: number;
  let takenOver: boolean[];

  beforeAll(async () => {
    // The run with a kill: the job made here, run by two worker processes.
    const a = await serviceOn(`kw${randomUUID().slice(0, 6)}:`);
    const prefixA = a.svc.config.redisPrefix;
    const workers = [await spawnWorker(prefixA), await spawnWorker(prefixA)];
    await Promise.all(workers.map((w) => w.started));
    const { id } = await a.jobs.create(a.account, { items: ITEMS, webhookUrl: null, options: { raw: false } });
    const ended = follow(a.jobs, a.account, id);
    // Under way: the worker that runs chunk 3 reads the trap home, held at its proxy, so that chunk cannot
    // settle; it is killed there, its chunk cut short (with the homes it read before, cached, not yet charged).
    // Fails at once, saying why, if a worker exits or the job ends first (neither can happen unless broken).
    const never = (what: string) => () =>
      Promise.reject(new Error(`${what} before a worker read chunk 3's home ${TRAP}`));
    const dead = workers.indexOf(
      await Promise.race([
        ...workers.map((w) => w.proxy.received(TRAP).then(() => w)),
        ...workers.map((w) => w.exited.then(never(`worker ${w.proc.pid} exited`))),
        ended.then(never('the job ended')),
      ]),
    );
    const [w1, w2] = [workers[dead]!, workers[1 - dead]!];
    w1.proc.kill('SIGKILL');
    expect(await w1.exited).toBeNull();
    w2.releaseTrap();
    const view = (await ended).pop()!;
    killed = {
      view,
      lines: await resultsOf(a.jobs, a.account, id),
      charges: (await jobCharges(a.svc.store, a.account.id, id)).map((c) => c.cacheKey).sort(),
    };
    // The chunk the dead worker had begun was taken over by the other, as a re-run of its round.
    interrupted = Math.floor(TRAP_ITEM / CHUNK_SIZE);
    expect(w1.chunks.map((c) => c.chunk)).toContain(interrupted);
    takenOver = w2.chunks.filter((c) => c.chunk === interrupted).map((c) => c.rerun);
    w2.proc.kill('SIGTERM');
    expect(await w2.exited).toBe(0);
    await a.svc.close();

    // The same items uninterrupted, in this process, on a prefix of their own (their own cache).
    const b = await serviceOn(`kb${randomUUID().slice(0, 6)}:`);
    await b.svc.app.background.startWorkers();
    const other = await b.jobs.create(b.account, { items: ITEMS, webhookUrl: null, options: { raw: false } });
    whole = {
      view: (await follow(b.jobs, b.account, other.id)).pop()!,
      lines: await resultsOf(b.jobs, b.account, other.id),
      charges: (await jobCharges(b.svc.store, b.account.id, other.id)).map((c) => c.cacheKey).sort(),
    };
    await b.svc.close();
  }, 240_000);

  it('the other worker takes over the chunk cut short', () => {
    expect(takenOver).toEqual([true]);
  });

  it('completes with every item done once', () => {
    expect(killed.view).toMatchObject({ status: 'completed', count: COUNT, done: COUNT });
    expect(killed.lines.map((l) => l.index)).toEqual(ITEMS.map((_, i) => i));
  });

  it('has the results of an uninterrupted run', () => {
    expect(whole.view).toMatchObject({ status: 'completed', done: COUNT });
    expect(outcomes(killed.lines)).toEqual(outcomes(whole.lines));
    const { succeeded, failed, credits, cache_hits } = whole.view;
    expect(killed.view).toMatchObject({ succeeded, failed, credits, cache_hits });
  });

  it('bills each home once, the same homes as the uninterrupted run', () => {
    expect(whole.charges).toHaveLength(new Set(ITEMS.flatMap((_, i) => (i % 50 === 9 ? [] : [homeAt(i)]))).size);
    expect(killed.charges).toEqual(whole.charges);
    const credited = killed.lines
      .filter((l) => l.ok && l.meta.credits === 1)
      .map((l) => `zpid:${l.data.zpid}`)
      .sort();
    expect(credited).toEqual(killed.charges);
  });
});

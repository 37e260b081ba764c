// A worker-only process (`npm run worker`) sweeps reservations left held by a crashed lookup, as the
// service does (src/sweeper.ts): a deployment of WORK_IN_SERVICE=false instances plus workers gets its
// credits back too. The held reservation's lease has lapsed before the worker starts; the test waits
// (bounded) for the worker to give it back. Without Redis a worker refuses to start (it could get no work).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
let store: RedisStore;
let worker: ChildProcess | undefined;
const prefix = `ws${randomUUID().slice(0, 6)}:`;

beforeAll(async () => {
  redis = await startRedisServer();
  store = await RedisStore.connect(redis.url, { prefix });
});

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await store?.close();
  if (redis) await disposeRedisServer(redis);
});

it('a worker gives back a reservation whose lease lapsed', { timeout: 30_000 }, async () => {
  const accountId = 'acct_swept';
  const reservation = {
    reservationId: `res_${randomUUID()}`,
    accountId,
    period: 'lifetime',
    included: 3,
    overage: null,
    budget: { day: '2026-03-01', scope: 'service' as const, cap: null },
    ttlMs: 1,
  };
  expect((await store.reserve(reservation)).ok).toBe(true);
  expect(await store.usage(accountId, 'lifetime')).toMatchObject({ reserved: 1 });
  let log = '';
  worker = spawn(process.execPath, entryArgs('worker.ts'), {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      LEASE_TTL_MS: '300',
      REDIS_COMMAND_TIMEOUT_MS: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  worker.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  // Eventually (bounded): the worker sweeps every lease, then logs it (its line comes through the pipe
  // after Redis shows the sweep: under load a check between the two saw no line yet).
  const swept = 'released reservations left by a crashed lookup';
  const until = Date.now() + 20_000;
  while ((await store.usage(accountId, 'lifetime')).reserved > 0 || !log.includes(swept)) {
    if (Date.now() > until || worker.exitCode !== null) throw new Error(`not swept; worker log:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(
    await store.commit({
      reservationId: reservation.reservationId,
      accountId,
      cacheKey: 'zpid:1',
      requestId: 'r',
      kind: 'included',
      at: new Date().toISOString(),
    }),
  ).toBe(false);
  expect(log).toContain(swept);
});

it('a worker without Redis refuses to start: exit 78, saying why', { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, entryArgs('worker.ts'), {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect(code).toBe(78);
  expect(stderr).toContain('npm run worker needs REDIS_URL or REDIS_CLUSTER_NODES');
});

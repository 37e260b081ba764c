// A worker-only process (`npm run worker`) sweeps reservations left held by a crashed lookup, as the
// service does (src/sweeper.ts): a deployment of WORK_IN_SERVICE=false instances plus workers gets its
// credits back too. The held reservation's lease has lapsed before the worker starts; the test waits for
// the worker's line saying it gave it back (its first sweep, a lease after it started), or for it to exit.
// Without Redis a worker refuses to start (it could get no work).
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
  const swept = 'released reservations left by a crashed lookup';
  let saw: (what: 'swept' | 'exited') => void = () => {};
  const seen = new Promise<'swept' | 'exited'>((resolve) => (saw = resolve));
  worker = spawn(process.execPath, entryArgs('worker.ts'), {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      // The worker sweeps once a lease (it holds none here): 3 s, so that its commands may take the default
      // 1 s (a lease is at least three, config.ts); 100 ms, which a loaded machine overruns, could fail its
      // start-up.
      LEASE_TTL_MS: '3000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.includes(swept)) saw('swept');
  };
  worker.stdout!.on('data', keep);
  worker.stderr!.on('data', keep);
  worker.once('close', () => saw('exited'));
  // The worker logs its sweep once Redis has answered it: the reservation is given back by then.
  expect(await seen, `worker log:\n${log}`).toBe('swept');
  expect(await store.usage(accountId, 'lifetime')).toMatchObject({ reserved: 0 });
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

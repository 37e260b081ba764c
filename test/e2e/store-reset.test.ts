// Redis restarted empty (no persistence) under a running service (issue 9.14): the service notices
// that the store is not the one it seeded, says so in /readyz, seeds its accounts file again, and
// the seeded keys work again; an unknown-looking key is never answered 401 while that is going on.
// The re-seed is held back deterministically by a broken accounts file, then let through.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startService, type RunningService } from '../../src/server.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import type { ReplayServer } from '../helpers/service.js';

let redis: RedisServer | undefined;
let service: RunningService | undefined;
let replay: ReplayServer | undefined;
afterEach(async () => {
  await service?.close();
  await replay?.close();
  await disposeRedisServer(redis);
  service = undefined;
  replay = undefined;
  redis = undefined;
});

/** Bound on something that must happen (a missing recovery fails the test here). */
const EVENTUALLY_MS = 20_000;

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + EVENTUALLY_MS;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not within ${EVENTUALLY_MS} ms: ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Redis restarted empty under a running service', () => {
  it('readyz says the store lost its data until the accounts are seeded again; seeded keys never get 401', async () => {
    redis = await startRedisServer(); // no append-only file: a restart comes back empty
    replay = await startReplayServer();
    const dir = mkdtempSync(join(tmpdir(), 'reset-'));
    const accountsFile = join(dir, 'accounts.json');
    const accounts = JSON.stringify([
      { key: 'reset_key_used_0001', plan: 'free', allotment: 3 },
      { key: 'reset_key_idle_0002', plan: 'free', allotment: 3 },
    ]);
    writeFileSync(accountsFile, accounts);
    service = await startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        REDIS_URL: redis.url,
        ACCOUNTS_FILE: accountsFile,
        LOG_LEVEL: 'silent',
        PORTAL_ORIGIN: replay.origin,
        PORTAL_SUGGEST_URL: replay.suggestUrl,
      }),
    );
    const get = async (path: string, key = 'reset_key_used_0001') => {
      const res = await fetch(service!.url + path, { headers: { 'x-api-key': key } });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await get('/v1/portal/property?zpid=114303858')).body.meta.credits).toBe(1);
    expect((await get('/readyz')).status).toBe(200);

    // The gate: the accounts file cannot be read while Redis comes back empty.
    writeFileSync(accountsFile, 'not json yet');
    await redis.restart();
    const notReady = await until(
      'readyz reports the store reset',
      () => get('/readyz'),
      (r) => r.body?.error?.details?.reason === 'store_reset',
    );
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.code).toBe('store_unavailable');
    // A seeded key is not "unknown": the store lost it.
    const refused = await get('/v1/account', 'reset_key_idle_0002');
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
      status: 503,
      code: 'store_unavailable',
    });

    writeFileSync(accountsFile, accounts);
    await until(
      'readyz is 200 again',
      () => get('/readyz'),
      (r) => r.status === 200,
    );
    // Every seeded key works again, at once (usage recorded before the reset was lost with the data).
    expect((await get('/v1/account', 'reset_key_idle_0002')).body.data).toMatchObject({
      plan: 'free',
      included: 3,
      used: 0,
    });
    const home = await get('/v1/portal/property?zpid=15192198');
    expect(home.status).toBe(200);
    expect(home.body.meta.credits).toBe(1);
    expect((await get('/v1/portal/property?zpid=114303858', 'no_such_key_00001')).status).toBe(401);
  });
});

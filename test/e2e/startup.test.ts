// The service as `npm start` runs it (startService): it comes up with its store down, reports not
// ready, seeds its accounts file and serves once Redis answers, without a restart. Without Redis it runs
// its background work itself even with WORK_IN_SERVICE=false (no worker process could).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startService, type RunningService } from '../../src/server.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer | undefined;
let service: RunningService | undefined;
let replay: Awaited<ReturnType<typeof startReplayServer>> | undefined;
afterAll(async () => {
  await service?.close();
  await replay?.close();
  await disposeRedisServer(redis);
});

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i += 1) {
    const v = await probe();
    if (ok(v) || i > 300) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('starting with the store down', () => {
  it('is live but not ready, then seeds and serves when Redis arrives', async () => {
    redis = await startRedisServer();
    await redis.stop();
    replay = await startReplayServer();
    const dir = mkdtempSync(join(tmpdir(), 'startup-'));
    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(accountsFile, JSON.stringify([{ key: 'startup_key_0001', plan: 'free', allotment: 3 }]));
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
    const get = async (path: string) => {
      const res = await fetch(service!.url + path, { headers: { 'x-api-key': 'startup_key_0001' } });
      return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
    };
    expect((await get('/healthz')).status).toBe(200);
    const notReady = await get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.code).toBe('store_unavailable');
    const refused = await get('/v1/portal/property?zpid=114303858');
    expect(refused).toMatchObject({ status: 503, retryAfter: '30', body: { error: { code: 'store_unavailable' } } });

    await redis.restart();
    expect(
      (
        await until(
          () => get('/readyz'),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);
    const account = await until(
      () => get('/v1/account'),
      (r) => r.status === 200,
    );
    expect(account.body.data).toMatchObject({ plan: 'free', included: 3, used: 0 });
    const home = await get('/v1/portal/property?zpid=114303858');
    expect(home.status).toBe(200);
    expect(home.body.meta.credits).toBe(1);
  });
});

describe('a bad accounts file', () => {
  it('stops the start-up with its reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'startup-bad-'));
    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(accountsFile, JSON.stringify([{ key: 'short', plan: 'gold' }]));
    await expect(
      startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', ACCOUNTS_FILE: accountsFile, LOG_LEVEL: 'silent' })),
    ).rejects.toThrow(/ACCOUNTS_FILE\[0\]\.key/);
  });
});

describe('WORK_IN_SERVICE=false without Redis', () => {
  it('still checks watches here: no worker process could (they run on Redis only)', async () => {
    replay ??= await startReplayServer();
    const dir = mkdtempSync(join(tmpdir(), 'startup-nowork-'));
    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(accountsFile, JSON.stringify([{ key: 'nowork_key_00001', plan: 'paid', included: 100 }]));
    const svc = await startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        ACCOUNTS_FILE: accountsFile,
        LOG_LEVEL: 'silent',
        WORK_IN_SERVICE: 'false',
        WATCH_MIN_INTERVAL_SECONDS: '3600',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        PORTAL_ORIGIN: replay.origin,
        PORTAL_SUGGEST_URL: replay.suggestUrl,
      }),
    );
    try {
      const call = async (path: string, body?: unknown) => {
        const res = await fetch(svc.url + path, {
          method: body ? 'POST' : 'GET',
          headers: { 'x-api-key': 'nowork_key_00001', 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: await res.json() };
      };
      const made = await call('/v1/portal/watches', {
        zpid: '15192198',
        webhook_url: `${replay.origin}/hooks`,
        interval_hours: 1,
      });
      expect(made.status).toBe(201);
      // The first check runs at once (bounded wait): before, the watch was kept but never checked.
      const checked = await until(
        () => call(`/v1/portal/watches/${made.body.data.id}`),
        (r) => r.body.data.last_checked_at !== null,
      );
      expect(checked.body.data).toMatchObject({ home_zpid: '15192198', last_error: null });
    } finally {
      await svc.close();
    }
  });
});

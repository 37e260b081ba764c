// Idempotent batches across a crash (docs/idempotency.md): real service processes on one real
// redis-server. Instance `a` runs a batch under an Idempotency-Key: its first home read and billed, its
// second held at the site; `a` is killed (SIGKILL) holding the key's claim. The client's retry sent to
// instance `b` waits for that claim, which lapses with its lease (no one renews it), then runs the batch
// once: the home `a` billed is a hit (credits 0), the other is read and billed (its credit, still reserved
// by `a`, freed when that reservation lapses: the account has exactly two). One charge per home;
// a further retry replays `b`'s answer byte for byte.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startInstance, type Instance } from '../helpers/instance.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import type { ReplayServer } from '../helpers/service.js';

// The lease of `a`, the instance killed: the retry waits about this long for its claim (and the second
// home's reservation and lock) to lapse. Renewed every third of it: the one thing that must outlast it is
// `a`'s own run up to its first home's charge, from that home's reservation (at 1 s a stall of `a`'s event
// loop of about 700 ms, a loaded machine, lapsed it before the commit, which then charged nothing). `b`'s
// lease is long: nothing waits for it to lapse, and its own reservation, lock and claim must hold while it
// runs the retry (which waits out `a`'s lease).
const LEASE_TTL_MS = 2000;
const SECRET = 'idem-crash-secret';
const ACCOUNT = { key: 'idem_crash_key_0001', plan: 'free' as const, allotment: 2 };
const [BILLED, HELD] = ['2146993218', '15192198'];

let redis: RedisServer;
let site: ReplayServer;
let gate: GatedProxy;
let a: Instance;
let b: Instance;
let store: RedisStore;
beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  gate = await startGatedProxy(site.origin, { open: true });
  const dir = mkdtempSync(join(tmpdir(), 'idem-crash-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([ACCOUNT]));
  const prefix = `idemcrash${randomUUID().slice(0, 6)}:`;
  const env = (origin: string) => ({
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    ACCOUNTS_FILE: accountsFile,
    API_KEY_SECRET: SECRET,
    PORTAL_ORIGIN: origin,
    PORTAL_SUGGEST_URL: site.suggestUrl,
  });
  [a, b] = await Promise.all([
    startInstance({
      ...env(gate.origin),
      LEASE_TTL_MS: String(LEASE_TTL_MS),
      REDIS_COMMAND_TIMEOUT_MS: String(Math.floor(LEASE_TTL_MS / 3)),
    }),
    startInstance({ ...env(site.origin), LEASE_TTL_MS: '15000', REDIS_COMMAND_TIMEOUT_MS: '5000' }),
  ]);
  store = await RedisStore.connect(redis.url, { prefix });
});
afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((i) => i.kill()));
  await store?.close();
  await gate?.close();
  await site?.close();
  await disposeRedisServer(redis);
});

const accountId = seededAccountId(hashApiKey(ACCOUNT.key, SECRET));
const body = JSON.stringify({ items: [{ zpid: BILLED }, { zpid: HELD }] });
const batch = (on: Instance) =>
  fetch(`${on.url}/v1/portal/batch`, {
    method: 'POST',
    headers: { 'x-api-key': ACCOUNT.key, 'content-type': 'application/json', 'idempotency-key': 'crash-order-1' },
    body,
  }).then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), text: await r.text() }));

/** The account's charges by home, once `n` are recorded (the ledger is the only outside sign of a charge). */
async function chargesOnce(n: number): Promise<string[]> {
  for (;;) {
    const homes = (await store.ledger(accountId)).map((e) => e.cacheKey).sort();
    if (homes.length >= n) return homes;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('an instance killed while it holds an Idempotency-Key', () => {
  it('the retry on another instance waits for the claim to lapse, runs the batch once and bills each home once', async () => {
    gate.hold(`${HELD}_zpid`);
    const lost = batch(a).then(
      () => 'answered',
      () => 'connection lost',
    );
    await gate.received(`${HELD}_zpid`);
    // The first home is charged by a (and cached as it was read); the second is held at the site.
    expect(await chargesOnce(1)).toEqual([`zpid:${BILLED}`]);
    await a.kill();
    expect(await lost).toBe('connection lost');

    const retry = await batch(b);
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBeNull();
    const items = JSON.parse(retry.text).data as Array<{ ok: boolean; meta: { credits: number; cached: boolean } }>;
    expect(items.map((i) => [i.ok, i.meta.credits, i.meta.cached])).toEqual([
      [true, 0, true],
      [true, 1, false],
    ]);
    expect(await store.ledger(accountId).then((l) => l.map((e) => e.cacheKey).sort())).toEqual(
      [`zpid:${BILLED}`, `zpid:${HELD}`].sort(),
    );
    expect(await store.usage(accountId, 'lifetime')).toEqual({ used: 2, reserved: 0, overageUsed: 0 });

    const again = await batch(b);
    expect(again.replayed).toBe('true');
    expect(again.text).toBe(retry.text);
    expect((await store.ledger(accountId)).length).toBe(2);
  }, 60_000);
});

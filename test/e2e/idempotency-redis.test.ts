// Idempotency keys across instances: two services, each with its own connection to one real
// redis-server. A retry sent to the other instance replays the first one's answer;
// sent while the first still runs (its read held at a gate), it waits for it there (polling the store)
// and the home is read and billed once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import type { ClaimResult } from '../../src/store/index.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

let redis: RedisServer;
let site: ReplayServer;
let proxy: GatedProxy;
let a: TestService;
let b: TestService;
/** Resolves when instance b found a key held by a run (its retry now waiting). */
let bSawRunning: Promise<void>;
beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(site.origin, { open: true });
  const prefix = `idem${randomUUID().slice(0, 6)}:`;
  const storeB = await RedisStore.connect(redis.url, { prefix });
  const claim = storeB.claimIdempotency.bind(storeB);
  let wake!: () => void;
  bSawRunning = new Promise((resolve) => (wake = resolve));
  storeB.claimIdempotency = async (...args): Promise<ClaimResult> => {
    const found = await claim(...args);
    if (found.state === 'running') wake();
    return found;
  };
  const env = { PORTAL_ORIGIN: proxy.origin };
  a = await startTestService({ store: await RedisStore.connect(redis.url, { prefix }), replayServer: site, env });
  b = await startTestService({ store: storeB, replayServer: site, env });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await a?.store.close();
  await b?.store.close();
  await proxy?.close();
  await site?.close();
  await disposeRedisServer(redis);
});

async function batch(on: TestService, body: string, key: string) {
  const res = await on.fetch(`${on.url}/v1/portal/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': on.keys.free!, 'idempotency-key': key },
    body,
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
}

const body = (...zpids: string[]) => JSON.stringify({ items: zpids.map((zpid) => ({ zpid })) });
const reads = (zpid: string) =>
  site.requests.filter((r) => r.path.includes(`${zpid}_zpid`) && !/^\/homedetails\/\d+_zpid\/$/.test(r.path)).length;

describe('Idempotency-Key across instances on one Redis', () => {
  it('a retry sent to the other instance replays the first answer; nothing is read or billed again', async () => {
    const first = await batch(a, body('2146993218', '15192198'), 'multi-1');
    expect(JSON.parse(first.text).meta.credits).toBe(2);
    const charged = (await a.store.ledger()).length;
    const upstream = site.requests.length;
    const retry = await batch(b, body('2146993218', '15192198'), 'multi-1');
    expect(retry).toEqual({ status: 200, replayed: 'true', text: first.text });
    expect((await b.store.ledger()).length).toBe(charged);
    expect(site.requests.length).toBe(upstream);
    const other = await batch(b, body('15192198'), 'multi-1');
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text).error.code).toBe('idempotency_key_reused');
  });

  it('a retry on the other instance while the first still runs waits for its answer; the home is read and billed once', async () => {
    const release = proxy.hold('114303858');
    const before = reads('114303858');
    const charged = (await a.store.ledger()).length;
    const first = batch(a, body('114303858'), 'multi-2');
    await proxy.received('114303858');
    const retry = batch(b, body('114303858'), 'multi-2');
    await bSawRunning;
    release();
    const [x, y] = await Promise.all([first, retry]);
    expect(x.replayed).toBeNull();
    expect(JSON.parse(x.text).meta.credits).toBe(1);
    expect(y).toEqual({ status: 200, replayed: 'true', text: x.text });
    expect(reads('114303858') - before).toBe(1);
    expect((await a.store.ledger()).length - charged).toBe(1);
  });
});

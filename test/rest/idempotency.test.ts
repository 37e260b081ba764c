// Idempotent batches over real sockets: POST /v1/portal/batch with an Idempotency-Key runs once per
// account and key; a retry gets the same bytes back with idempotent-replayed: true and bills nothing;
// a retry while the first still runs waits for it (the first held at a gate) and the home is read once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import {
  MemoryStore,
  type CacheEntry,
  type ClaimRef,
  type ClaimResult,
  type LedgerEntry,
} from '../../src/store/index.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { portOf, rawRequest } from '../helpers/raw-http.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

/** A memory store that tells when a claim found the key held by a run (a retry now waiting). */
class WatchedStore extends MemoryStore {
  /**
   * With `beatMs`, the store's clock is moved by the lease renewer alone: each of its beats moves it
   * `beatMs` on (before renewing), whenever the beat actually fires. A lease then lapses by the beats
   * that passed, never because the event loop stalled between two of them (a loaded machine).
   */
  constructor(private readonly beatMs?: number) {
    const time = { now: Date.now() };
    super(beatMs === undefined ? Date.now : () => time.now);
    this.time = time;
  }
  private readonly time: { now: number };
  private readonly waiters: Array<() => void> = [];
  private readonly claimWatchers: Array<(state: ClaimResult['state']) => void> = [];
  running = 0;
  /** What the next claim finds. */
  nextClaim(): Promise<ClaimResult['state']> {
    return new Promise((resolve) => this.claimWatchers.push(resolve));
  }
  override async claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    const found = await super.claimIdempotency(ref, bodyHash, leaseMs);
    for (const seen of this.claimWatchers.splice(0)) seen(found.state);
    if (found.state === 'running') {
      this.running += 1;
      for (const wake of this.waiters.splice(0)) wake();
    }
    return found;
  }
  sawRunning(): Promise<void> {
    return this.running > 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
  private readonly beatWaiters: Array<{ n: number; wake: () => void }> = [];
  beats = 0;
  /** Each beat of the process's lease renewer renews the reservations held (here: the held read's). */
  override async renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]> {
    if (this.beatMs !== undefined) this.time.now += this.beatMs;
    const lost = await super.renewReservations(ids, ttlMs);
    this.beats += 1;
    for (const w of this.beatWaiters.filter((x) => this.beats >= x.n)) w.wake();
    return lost;
  }
  /** Resolves after `n` beats of the lease renewer. */
  beaten(n: number): Promise<void> {
    return this.beats >= n ? Promise.resolve() : new Promise((wake) => this.beatWaiters.push({ n, wake }));
  }
  private readonly written: Array<{ what: string; wake: () => void }> = [];
  private wrote(what: string): void {
    for (const w of this.written.filter((x) => x.what === what)) w.wake();
  }
  /** Resolves once the home `cacheKey` has been both charged and cached (from now on). */
  chargedAndCached(cacheKey: string): Promise<void> {
    const seen = (what: string) => new Promise<void>((wake) => this.written.push({ what, wake }));
    return Promise.all([seen(`commit ${cacheKey}`), seen(`put ${cacheKey}`)]).then(() => undefined);
  }
  override async commit(entry: LedgerEntry): Promise<boolean> {
    const ok = await super.commit(entry);
    this.wrote(`commit ${entry.cacheKey}`);
    return ok;
  }
  override async putEntry(
    key: string,
    entry: CacheEntry,
    rawJson: string | null,
    ttlMs: number,
    keepMs?: number,
  ): Promise<void> {
    await super.putEntry(key, entry, rawJson, ttlMs, keepMs);
    this.wrote(`put ${key}`);
  }
}

const ACCOUNTS = {
  free: { key: 'idem_free_key_0001', plan: 'free' as const, allotment: 50 },
  other: { key: 'idem_other_key_001', plan: 'free' as const, allotment: 50 },
};

let site: ReplayServer;
let proxy: GatedProxy;
let store: WatchedStore;
let svc: TestService;
let quick: TestService;
beforeAll(async () => {
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(site.origin, { open: true });
  store = new WatchedStore();
  // On a socket: one case sends the header twice, which only raw bytes can.
  svc = await startTestService({
    socket: 'raw-http',
    store,
    replayServer: site,
    accounts: ACCOUNTS,
    env: { PORTAL_ORIGIN: proxy.origin },
  });
  // A retry there does not wait at all for a run under way.
  quick = await startTestService({
    replayServer: site,
    accounts: ACCOUNTS,
    env: { PORTAL_ORIGIN: proxy.origin, IDEMPOTENCY_WAIT_MS: '0' },
  });
});
afterAll(async () => {
  await svc?.close();
  await quick?.close();
  await proxy?.close();
  await site?.close();
});

interface Raw {
  status: number;
  headers: Headers;
  text: string;
}

async function batch(
  on: TestService,
  body: string,
  key: string | null,
  opts: { account?: string; path?: string } = {},
): Promise<Raw> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-api-key': opts.account ?? ACCOUNTS.free.key,
  };
  if (key !== null) headers['idempotency-key'] = key;
  const res = await on.fetch(`${on.url}${opts.path ?? '/v1/portal/batch'}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// Page reads of a home; a zpid-only link is first redirected to the slugged page, like on the site.
const reads = (zpid: string) =>
  site.requests.filter((r) => r.path.includes(`${zpid}_zpid`) && !/^\/homedetails\/\d+_zpid\/$/.test(r.path)).length;
const ledgerOf = async (on: TestService) => (await on.store.ledger()).length;
const body = (...zpids: string[]) => JSON.stringify({ items: zpids.map((zpid) => ({ zpid })) });

describe('POST /v1/portal/batch with an Idempotency-Key', () => {
  it('the first request runs and bills; its retry gets the same bytes with idempotent-replayed: true, reads and bills nothing', async () => {
    const first = await batch(svc, body('2146993218', '15192198'), 'order-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(first.text).meta).toMatchObject({ count: 2, succeeded: 2, credits: 2 });
    const ledger = await ledgerOf(svc);
    const upstream = site.requests.length;

    // The same JSON with other whitespace is the same request.
    const again = await batch(svc, `{ "items" : [ {"zpid":"2146993218"},\n {"zpid": "15192198"} ] }`, 'order-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.text).toBe(first.text); // meta.took_ms included: it is the same answer
    expect(await ledgerOf(svc)).toBe(ledger);
    expect(site.requests.length).toBe(upstream);
    // A new request id names the retry itself.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('the same key with another body is refused with 422 idempotency_key_reused, before anything runs', async () => {
    expect((await batch(svc, body('114303858'), 'order-2')).status).toBe(200);
    const upstream = site.requests.length;
    const ledger = await ledgerOf(svc);
    const other = await batch(svc, body('114303858', '2146993218'), 'order-2');
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text).error.code).toBe('idempotency_key_reused');
    // The query string is part of the request.
    const previewed = await batch(svc, body('114303858'), 'order-2', { path: '/v1/portal/batch?dry_run=true' });
    expect(JSON.parse(previewed.text).error.code).toBe('idempotency_key_reused');
    expect(site.requests.length).toBe(upstream);
    expect(await ledgerOf(svc)).toBe(ledger);
  });

  it('keys are per account: another account with the same key runs its own request and is billed for it', async () => {
    const mine = await batch(svc, body('450233440'), 'order-3');
    expect(JSON.parse(mine.text).meta.credits).toBe(1);
    const theirs = await batch(svc, body('450233440'), 'order-3', { account: ACCOUNTS.other.key });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    // Read from the cache for them (free), but their own answer, not a replay of mine.
    expect(JSON.parse(theirs.text).data[0].meta.cached).toBe(true);
    expect(theirs.text).not.toBe(mine.text);
  });

  it('a retry while the first request still runs waits for it and gets its answer; the home is read once', async () => {
    const release = proxy.hold('999000101');
    const before = reads('999000101');
    const ledger = await ledgerOf(svc);
    const first = batch(svc, body('999000101'), 'order-4');
    await proxy.received('999000101');
    const retry = batch(svc, body('999000101'), 'order-4');
    await store.sawRunning();
    release();
    const [a, b] = await Promise.all([first, retry]);
    expect(a.status).toBe(200);
    expect(JSON.parse(a.text).meta.credits).toBe(1);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.text).toBe(a.text);
    expect(reads('999000101') - before).toBe(1);
    expect((await ledgerOf(svc)) - ledger).toBe(1);
  });

  it('a retry that cannot wait (IDEMPOTENCY_WAIT_MS=0) is told 409 idempotency_key_in_use with a retry-after; later it replays', async () => {
    const release = proxy.hold('999000102');
    const first = batch(quick, body('999000102'), 'order-5');
    await proxy.received('999000102');
    const busy = await batch(quick, body('999000102'), 'order-5');
    expect(busy.status).toBe(409);
    expect(JSON.parse(busy.text).error.code).toBe('idempotency_key_in_use');
    expect(busy.headers.get('retry-after')).toBe('5');
    release();
    const done = await first;
    const later = await batch(quick, body('999000102'), 'order-5');
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.text).toBe(done.text);
  });

  it('a bad key is 400 bad_param naming the header, and nothing runs', async () => {
    const upstream = site.requests.length;
    for (const key of ['', 'k'.repeat(256), 'tab\there']) {
      const r = await batch(svc, body('2146993218'), key);
      expect(r.status, JSON.stringify(key)).toBe(400);
      expect(JSON.parse(r.text).error).toMatchObject({ code: 'bad_param', details: { param: 'Idempotency-Key' } });
    }
    expect((await batch(svc, body('2146993218'), 'k'.repeat(255))).status).toBe(200);
    expect(site.requests.length).toBe(upstream);
  });

  it('the header sent on two lines is 400 bad_param (not one key joined by a comma), and nothing runs', async () => {
    const upstream = site.requests.length;
    const json = body('2146993218');
    const head = (keys: string[]) =>
      [
        'POST /v1/portal/batch HTTP/1.1',
        'host: 127.0.0.1',
        'content-type: application/json',
        `x-api-key: ${ACCOUNTS.free.key}`,
        ...keys.map((k) => `idempotency-key: ${k}`),
        `content-length: ${Buffer.byteLength(json)}`,
        'connection: close',
        '',
        json,
      ].join('\r\n');
    for (const keys of [
      ['order-10', 'order-10'],
      ['order-10', 'order-11'],
    ]) {
      const r = await rawRequest(portOf(svc.url), head(keys));
      expect(r?.status).toBe(400);
      expect(r?.json.error).toMatchObject({
        code: 'bad_param',
        details: { param: 'Idempotency-Key', reason: 'sent more than once' },
      });
      // The message names the rule broken, not only the key's characters.
      expect(r?.json.error.message).toMatch(/sent once/);
    }
    expect(site.requests.length).toBe(upstream);
    // One line with a comma in it is one key.
    const one = await rawRequest(portOf(svc.url), head(['order-10, order-11']));
    expect(one?.status).toBe(200);
  });

  it('/openapi.json documents the header, the idempotent-replayed response header and the two codes on the batch only', async () => {
    const doc = (await (await svc.fetch(`${svc.url}/openapi.json`)).json()) as any;
    const batchOp = doc.paths['/v1/portal/batch'].post;
    expect(batchOp.parameters.find((p: any) => p.name === 'Idempotency-Key')).toMatchObject({
      in: 'header',
      required: false,
      schema: { minLength: 1, maxLength: 255 },
    });
    expect(Object.keys(batchOp.responses['200'].headers)).toContain('idempotent-replayed');
    expect(Object.keys(batchOp.responses['409'].content['application/json'].examples)).toEqual([
      'idempotency_key_in_use',
    ]);
    expect(Object.keys(batchOp.responses['422'].content['application/json'].examples)).toEqual([
      'idempotency_key_reused',
    ]);
    const propertyOp = doc.paths['/v1/portal/property'].get;
    expect(Object.keys(propertyOp.responses['409'].content['application/json'].examples)).not.toContain(
      'idempotency_key_in_use',
    );
    expect(Object.keys(propertyOp.responses['422'].content['application/json'].examples)).not.toContain(
      'idempotency_key_reused',
    );
  });

  it('a run longer than its lease keeps its claim (renewed with the other leases): a retry after several leases still waits for it', async () => {
    // A short lease (renewed every 100 ms), so several pass while the first run is held at the gate; the
    // store's time moves 100 ms a beat, so a beat that fires late (a stalled event loop) lapses nothing.
    // (The command timeout is only the third config.ts asks of a lease: this store is in memory.)
    const watched = new WatchedStore(100);
    const short = await startTestService({
      store: watched,
      replayServer: site,
      accounts: ACCOUNTS,
      env: { PORTAL_ORIGIN: proxy.origin, LEASE_TTL_MS: '300', REDIS_COMMAND_TIMEOUT_MS: '100' },
    });
    const release = proxy.hold('999000103');
    try {
      const before = reads('999000103');
      const first = batch(short, body('999000103'), 'order-7');
      await proxy.received('999000103');
      // Four beats (one every third of the lease): 400 ms of the store's time, more than a whole lease
      // since the claim, which lapsed at the third unless renewed.
      await watched.beaten(4);
      const claim = watched.nextClaim();
      const retry = batch(short, body('999000103'), 'order-7');
      expect(await claim).toBe('running');
      release();
      const [a, b] = await Promise.all([first, retry]);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.text).toBe(a.text);
      expect(reads('999000103') - before).toBe(1);
    } finally {
      release();
      await short.close();
    }
  });

  it("a run whose client went away is not kept (its lookups were cut short): the client's retry runs and gets the home", async () => {
    const letGo = proxy.hold('999000104_zpid');
    const client = new AbortController();
    const gone = fetch(`${svc.url}/v1/portal/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ACCOUNTS.free.key, 'idempotency-key': 'order-8' },
      body: body('999000104'),
      signal: client.signal,
    }).catch((e: unknown) => e);
    await proxy.received('999000104_zpid');
    client.abort();
    await gone;
    await proxy.abandoned('999000104_zpid');
    const retry = batch(svc, body('999000104'), 'order-8');
    letGo();
    const r = await retry;
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(r.text).data[0]).toMatchObject({ ok: true, meta: { credits: 1 } });
  });

  it('an answer with a transient refusal in it (an item past the batch deadline) is not kept: the retry runs again', async () => {
    const short = await startTestService({
      replayServer: site,
      accounts: ACCOUNTS,
      env: { PORTAL_ORIGIN: proxy.origin, BATCH_DEADLINE_MS: '1' },
    });
    // The home's read is held at the site until the test ends: the item is past the deadline however late
    // the deadline's timer fires under load; it is never answered.
    const letGo = proxy.hold('888000001_zpid');
    try {
      const first = await batch(short, body('888000001'), 'order-6');
      expect(JSON.parse(first.text).data[0].error.code).toBe('batch_deadline');
      const retry = await batch(short, body('888000001'), 'order-6');
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(JSON.parse(retry.text).data[0].error.code).toBe('batch_deadline');
    } finally {
      letGo();
      await short.close();
    }
  });

  it('a run not kept bills a home once across the retry, even with max_age=0: the retry takes the reads made since the first run began', async () => {
    // The first client leaves once its first home (max_age=0) is charged and cached, its second held at the site.
    const twoHomes = JSON.stringify({ items: [{ zpid: '2146993218', max_age: 0 }, { zpid: '999000102' }] });
    const charges = async () => (await store.ledger()).filter((e) => e.cacheKey === 'zpid:2146993218').length;
    const chargedBefore = await charges();
    const letGo = proxy.hold('999000102_zpid');
    const charged = store.chargedAndCached('zpid:2146993218');
    const client = new AbortController();
    const gone = fetch(`${svc.url}/v1/portal/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ACCOUNTS.free.key, 'idempotency-key': 'order-9' },
      body: twoHomes,
      signal: client.signal,
    }).catch((e: unknown) => e);
    await Promise.all([charged, proxy.received('999000102_zpid')]);
    client.abort();
    await gone;
    await proxy.abandoned('999000102_zpid');
    const before = reads('2146993218');
    const retry = batch(svc, twoHomes, 'order-9');
    letGo();
    const r = await retry;
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(
      JSON.parse(r.text).data.map((d: { ok: boolean; meta: { credits: number } }) => [d.ok, d.meta.credits]),
    ).toEqual([
      [true, 0],
      [true, 1],
    ]);
    expect(reads('2146993218')).toBe(before);
    expect((await charges()) - chargedBefore).toBe(1);
    // A max_age=0 lookup of the home without the key reads it again, as it asks.
    const fresh = await batch(svc, twoHomes, null);
    expect(JSON.parse(fresh.text).data[0].meta.credits).toBe(1);
  });

  it('an answer larger than IDEMPOTENCY_MAX_ANSWER_BYTES is not kept: the retry runs again, a hit billed nothing', async () => {
    const small = await startTestService({
      replayServer: site,
      accounts: ACCOUNTS,
      env: { PORTAL_ORIGIN: proxy.origin, IDEMPOTENCY_MAX_ANSWER_BYTES: '2000' },
    });
    try {
      const first = await batch(small, body('2146993218'), 'order-12');
      expect(first.text.length).toBeGreaterThan(2000);
      expect(JSON.parse(first.text).data[0].meta.credits).toBe(1);
      const retry = await batch(small, body('2146993218'), 'order-12');
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(JSON.parse(retry.text).data[0].meta).toMatchObject({ credits: 0, cached: true });
      expect(await ledgerOf(small)).toBe(1);
      // An answer within the bound is kept.
      const count = await batch(small, JSON.stringify({ items: [{ zpid: 'not-a-zpid' }] }), 'order-13');
      expect(count.text.length).toBeLessThanOrEqual(2000);
      expect(
        (await batch(small, JSON.stringify({ items: [{ zpid: 'not-a-zpid' }] }), 'order-13')).headers.get(
          'idempotent-replayed',
        ),
      ).toBe('true');
    } finally {
      await small.close();
    }
  });
});

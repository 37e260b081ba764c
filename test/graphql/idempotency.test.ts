// Idempotency-Key on GraphQL operations sent by POST, over real sockets: the same rule as REST's batch
// (test/rest/idempotency.test.ts): one run per account and key, retries replay its HTTP answer with
// idempotent-replayed: true and bill nothing, a retry during the run waits for it, another operation
// under the same key is 422 idempotency_key_reused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore, type ClaimRef, type ClaimResult } from '../../src/store/index.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { portOf, rawRequest } from '../helpers/raw-http.js';
import { endpoint } from './client.js';

/** A memory store that tells when a claim found the key held by a run (a retry now waiting). */
class WatchedStore extends MemoryStore {
  private readonly waiters: Array<() => void> = [];
  running = 0;
  override async claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    const found = await super.claimIdempotency(ref, bodyHash, leaseMs);
    if (found.state === 'running') {
      this.running += 1;
      for (const wake of this.waiters.splice(0)) wake();
    }
    return found;
  }
  sawRunning(): Promise<void> {
    return this.running > 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

const BATCH =
  'query Batch($items: [LookupItem!]!) { properties(items: $items) { results { index ok data { zpid price } meta { credits cached tookMs } error { code } } meta { credits tookMs } } }';

let site: ReplayServer;
let proxy: GatedProxy;
let store: WatchedStore;
let svc: TestService;
beforeAll(async () => {
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(site.origin, { open: true });
  store = new WatchedStore();
  // On a socket: one case sends the header twice (raw bytes), others go away mid-request.
  svc = await startTestService({ socket: 'raw-http', store, replayServer: site, env: { PORTAL_ORIGIN: proxy.origin } });
});
afterAll(async () => {
  await svc?.close();
  await proxy?.close();
  await site?.close();
});

interface Raw {
  status: number;
  headers: Headers;
  text: string;
}

async function post(
  body: string,
  key: string | null,
  apiKey = svc.keys.free!,
  accept = 'application/graphql-response+json',
): Promise<Raw> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept, 'x-api-key': apiKey };
  if (key !== null) headers['idempotency-key'] = key;
  const res = await fetch(endpoint(svc), { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const operation = (...zpids: string[]) =>
  JSON.stringify({ query: BATCH, variables: { items: zpids.map((zpid) => ({ zpid })) } });
const reads = (zpid: string) =>
  site.requests.filter((r) => r.path.includes(`${zpid}_zpid`) && !/^\/homedetails\/\d+_zpid\/$/.test(r.path)).length;
const ledger = async () => (await svc.store.ledger()).length;

describe('GraphQL operations sent by POST with an Idempotency-Key', () => {
  it('run once: the retry (same operation, other whitespace) gets the same status, content-type and bytes, replayed, and bills nothing', async () => {
    const first = await post(operation('2146993218', '15192198'), 'gql-1');
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).data.properties.meta.credits).toBe(2);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const charged = await ledger();
    const upstream = site.requests.length;
    const again = await post(JSON.stringify(JSON.parse(operation('2146993218', '15192198')), null, 2), 'gql-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.text).toBe(first.text);
    expect(await ledger()).toBe(charged);
    expect(site.requests.length).toBe(upstream);
  });

  it('another operation (other variables) under the key is 422 idempotency_key_reused; another account with the key runs its own', async () => {
    expect((await post(operation('114303858'), 'gql-2')).status).toBe(200);
    const upstream = site.requests.length;
    const reused = await post(operation('2146993218'), 'gql-2');
    expect(reused.status).toBe(422);
    expect(JSON.parse(reused.text).errors[0].extensions.code).toBe('idempotency_key_reused');
    expect(site.requests.length).toBe(upstream);
    const theirs = await post(operation('2146993218'), 'gql-2', svc.keys.paid!);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(theirs.text).data.properties.results[0].meta.cached).toBe(true);
  });

  it('a retry while the first operation still runs waits for it and gets its answer; the home is read and billed once', async () => {
    const release = proxy.hold('999000101');
    const before = reads('999000101');
    const charged = await ledger();
    const first = post(operation('999000101'), 'gql-3');
    await proxy.received('999000101');
    const retry = post(operation('999000101'), 'gql-3');
    await store.sawRunning();
    release();
    const [a, b] = await Promise.all([first, retry]);
    expect(JSON.parse(a.text).data.properties.meta.credits).toBe(1);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.text).toBe(a.text);
    expect(reads('999000101') - before).toBe(1);
    expect((await ledger()) - charged).toBe(1);
  });

  it('a bad key is 400 bad_param naming the header; a GET or an operation that needs no key ignores it', async () => {
    const bad = await post(operation('2146993218'), 'k'.repeat(256));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).errors[0].extensions).toMatchObject({
      code: 'bad_param',
      details: { param: 'Idempotency-Key' },
    });
    // Two header lines are refused, not joined into one key.
    const json = operation('2146993218');
    const twoLines = [
      'POST /graphql HTTP/1.1',
      'host: 127.0.0.1',
      'content-type: application/json',
      `x-api-key: ${svc.keys.free!}`,
      'idempotency-key: gql-5',
      'Idempotency-Key: gql-5',
      `content-length: ${Buffer.byteLength(json)}`,
      'connection: close',
      '',
      json,
    ].join('\r\n');
    const dup = await rawRequest(portOf(svc.url), twoLines);
    expect(dup?.status).toBe(400);
    expect(dup?.json.errors[0].extensions).toMatchObject({
      code: 'bad_param',
      details: { param: 'Idempotency-Key', reason: 'sent more than once' },
    });
    const introspection = JSON.stringify({ query: '{ __typename }' });
    const once = await post(introspection, 'gql-4');
    const twice = await post(introspection, 'gql-4');
    expect(twice.headers.get('idempotent-replayed')).toBeNull();
    expect(twice.text).toBe(once.text);
  });
});

describe('GraphQL idempotency: answers a retry must run past', () => {
  it('an item past the batch deadline (an error as data, even unselected) is not kept: the retry runs again', async () => {
    const short = await startTestService({
      replayServer: site,
      env: { PORTAL_ORIGIN: proxy.origin, BATCH_DEADLINE_MS: '1' },
    });
    // The home's read is held at the site until the test ends: every item is past the deadline (its read
    // aborted, or never started), however late the deadline's timer fires under load; none is answered.
    const letGo = proxy.hold('888000002_zpid');
    try {
      const send = (query: string) =>
        short.fetch(endpoint(short), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
            'x-api-key': short.keys.free!,
            'idempotency-key': 'gql-deadline',
          },
          body: JSON.stringify({ query, variables: { items: [{ zpid: '888000002' }] } }),
        });
      const first = await send(BATCH);
      expect(JSON.parse(await first.text()).data.properties.results[0].error.code).toBe('batch_deadline');
      const retry = await send(BATCH);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(JSON.parse(await retry.text()).data.properties.results[0].error.code).toBe('batch_deadline');
      // Without `error { code }` selected the response does not say why the item failed: still not kept.
      const bare = 'query Batch($items: [LookupItem!]!) { properties(items: $items) { results { index ok } } }';
      const send2 = (q: string) =>
        short.fetch(endpoint(short), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
            'x-api-key': short.keys.free!,
            'idempotency-key': 'gql-deadline-bare',
          },
          body: JSON.stringify({ query: q, variables: { items: [{ zpid: '888000002' }] } }),
        });
      expect(JSON.parse(await (await send2(bare)).text()).data.properties.results[0].ok).toBe(false);
      expect((await send2(bare)).headers.get('idempotent-replayed')).toBeNull();
    } finally {
      letGo();
      await short.close();
    }
  });

  it('an operation whose client went away is not kept and does not hold the key: the retry runs and gets the home', async () => {
    const letGo = proxy.hold('999000105_zpid');
    const client = new AbortController();
    const gone = fetch(endpoint(svc), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        'x-api-key': svc.keys.free!,
        'idempotency-key': 'gql-gone',
      },
      body: operation('999000105'),
      signal: client.signal,
    }).catch((e: unknown) => e);
    await proxy.received('999000105_zpid');
    client.abort();
    await gone;
    await proxy.abandoned('999000105_zpid');
    const retry = post(operation('999000105'), 'gql-gone');
    letGo();
    const r = await retry;
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(r.text).data.properties.results[0]).toMatchObject({ ok: true, meta: { credits: 1 } });
  });
});

describe('GraphQL idempotency: a streamed answer', () => {
  it('an @defer operation whose client leaves mid-stream releases its key (it was held, renewed, for good): the retry runs', async () => {
    const query = JSON.stringify({
      query:
        '{ account { used } ... @defer { properties(items: [{ zpid: "999000106" }]) { results { ok meta { credits } error { code } } } } }',
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'multipart/mixed',
      'x-api-key': svc.keys.free!,
      'idempotency-key': 'gql-defer-gone',
    };
    const letGo = proxy.hold('999000106_zpid');
    const client = new AbortController();
    const first = await fetch(endpoint(svc), { method: 'POST', headers, body: query, signal: client.signal });
    expect(first.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    // The first part (account) has gone out; the deferred batch is held at the site.
    await first.body!.getReader().read();
    await proxy.received('999000106_zpid');
    client.abort();
    await proxy.abandoned('999000106_zpid');
    const retry = fetch(endpoint(svc), { method: 'POST', headers, body: query });
    letGo();
    const r = await retry;
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(await r.text()).toContain('"results":[{"ok":true,"meta":{"credits":1},"error":null}]');
  });
});

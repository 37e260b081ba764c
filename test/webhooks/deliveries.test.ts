// Webhook deliveries through the whole service (issue 23, item 3), on the memory store and on a real Redis
// (BullMQ): a job's job.completed attempt shows in GET /v1/webhooks/deliveries with the receiver's status; a
// redelivery reaches the receiver with the same webhook-id and shows as one; a receiver answering 500, or a
// closed port, shows its failed attempts with the next retry time (null once none is left); the list pages
// newest first by cursor, a bad cursor or limit is 400 bad_param; another account's attempt is 404 not_found,
// and absent from its list; GraphQL's webhookDeliveries and redeliverWebhook, and MCP's webhook_deliveries,
// answer the same. Everything is
// gated on events (the receiver's, the list's entries); no time is asserted.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';
import { WEBHOOK_DELIVERY_SCHEMAS, WebhookDeliveryListResponse } from '../../src/contract/webhook-deliveries.js';
import { RedisStore } from '../../src/store/redis.js';
import { WEBHOOK_ATTEMPTS } from '../../src/webhooks/index.js';
import { postGql } from '../graphql/client.js';
import '../helpers/schema.js';
import { disposeRedisServer, freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { DEFAULT_ACCOUNTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const DELIVERIES = '/v1/webhooks/deliveries';

interface DeliveryView {
  id: string;
  webhook_id: string;
  type: string;
  url: string;
  attempt: number;
  redelivery: boolean;
  ok: boolean;
  status: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
  at: string;
}

/** Polls `probe` until it gives a value (bounded): only for "eventually", never to decide an outcome. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, boundMs = 30_000): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`not reached in ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each([
  ['memory', false],
  ['redis', true],
])('webhook deliveries on the %s store', (_name, onRedis) => {
  let svc: TestService;
  let redis: RedisServer | undefined;
  let store: RedisStore | undefined;
  let receiver: WebhookReceiver;
  const secret = newWebhookSecret();

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret });
    const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '5' };
    if (onRedis) {
      redis = await startRedisServer();
      const prefix = `dlv${randomUUID().slice(0, 6)}:`;
      store = await RedisStore.connect(redis.url, { prefix });
      env.REDIS_URL = redis.url;
      env.REDIS_PREFIX = prefix;
    }
    const accounts = { ...DEFAULT_ACCOUNTS, free: { ...DEFAULT_ACCOUNTS.free!, webhookSecret: secret } };
    svc = await startTestService({ env, accounts, ...(store ? { store } : {}) });
    await svc.app.background.startWorkers();
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await store?.close();
    await disposeRedisServer(redis);
  });

  /** Every attempt the account's list holds, newest first, read a page of `limit` at a time. */
  async function allDeliveries(key = svc.keys.free!, limit = 100): Promise<DeliveryView[]> {
    const out: DeliveryView[] = [];
    let cursor: string | null = null;
    do {
      const r = await svc.get(`${DELIVERIES}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect([...Value.Errors(WebhookDeliveryListResponse, [...WEBHOOK_DELIVERY_SCHEMAS], r.body)]).toEqual([]);
      out.push(...(r.body.data as DeliveryView[]));
      cursor = r.body.meta.next_cursor;
    } while (cursor !== null);
    return out;
  }

  /** The attempts of one event (its webhook-id), oldest first, once `enough` holds of them. */
  const attemptsOf = (webhookId: string, enough: (a: DeliveryView[]) => boolean) =>
    until(async () => {
      const own = (await allDeliveries()).filter((d) => d.webhook_id === webhookId).reverse();
      return enough(own) ? own : undefined;
    }, `the attempts of ${webhookId}`);

  /** A job of one home with `url` as its webhook: its id. */
  async function job(url: string): Promise<string> {
    const r = await svc.post('/v1/portal/jobs', { items: [{ zpid: '114303858' }], webhook_url: url });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return r.body.data.id;
  }
  const eventOf = async (jobId: string) =>
    (await receiver.waitFor((events) => events.some((e) => (e.data as { id?: string }).id === jobId))).find(
      (e) => (e.data as { id?: string }).id === jobId,
    )!;

  let delivered: DeliveryView;

  it("a job's job.completed attempt shows with the receiver's status; a redelivery reaches it with the same webhook-id", async () => {
    const jobId = await job(receiver.url);
    const event = await eventOf(jobId);
    expect(event.type).toBe('job.completed');
    const [attempt] = await attemptsOf(event.id, (a) => a.length >= 1);
    expect(attempt).toMatchObject({
      webhook_id: event.id,
      type: 'job.completed',
      url: receiver.url,
      attempt: 1,
      redelivery: false,
      ok: true,
      status: 204,
      error: null,
      next_retry_at: null,
    });
    expect(attempt!.id).toMatch(/^dlv_/);
    delivered = attempt!;

    const r = await svc.post(`${DELIVERIES}/${attempt!.id}/redeliver`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data).toEqual(attempt);
    const again = await receiver.waitFor((events) => events.filter((e) => e.id === event.id).length === 2);
    const both = again.filter((e) => e.id === event.id);
    // The same event: the same webhook-id and body (a receiver that dedupes sees one event).
    expect(both[1]!.body).toEqual(both[0]!.body);
    const attempts = await attemptsOf(event.id, (a) => a.length === 2);
    expect(attempts[1]).toMatchObject({ attempt: 1, redelivery: true, ok: true, status: 204, next_retry_at: null });
    expect(attempts[1]!.id).not.toBe(attempt!.id);
  });

  it('a receiver answering 500 shows its failed attempts, each with the next retry time, then the delivered one', async () => {
    receiver.failNext(2);
    const event = await eventOf(await job(receiver.url));
    const attempts = await attemptsOf(event.id, (a) => a.some((d) => d.ok));
    expect(attempts.map((d) => [d.attempt, d.ok, d.status, d.error])).toEqual([
      [1, false, 500, 'answered 500'],
      [2, false, 500, 'answered 500'],
      [3, true, 204, null],
    ]);
    for (const d of attempts.slice(0, 2)) expect(Date.parse(d.next_retry_at!)).not.toBeNaN();
    expect(attempts[2]!.next_retry_at).toBeNull();
  });

  it('a closed port: every attempt failed with the network error, the next retry time until none is left', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/hooks`;
    const jobId = await job(closed);
    const webhookId = await until(async () => {
      const found = (await allDeliveries()).find((d) => d.url === closed);
      return found?.webhook_id;
    }, `the first attempt of job ${jobId}`);
    const attempts = await attemptsOf(webhookId, (a) => a.length === WEBHOOK_ATTEMPTS);
    expect(attempts.map((d) => d.attempt)).toEqual(Array.from({ length: WEBHOOK_ATTEMPTS }, (_, i) => i + 1));
    for (const d of attempts) expect(d).toMatchObject({ type: 'job.completed', ok: false, status: null });
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
    for (const d of attempts.slice(0, -1)) expect(Date.parse(d.next_retry_at!)).not.toBeNaN();
    expect(attempts.at(-1)!.next_retry_at).toBeNull();
  }, 60_000);

  it('pages newest first by cursor; a bad cursor or limit is 400 bad_param', async () => {
    const whole = await allDeliveries();
    expect(whole.length).toBeGreaterThan(3);
    const paged = await allDeliveries(svc.keys.free!, 2);
    expect(paged).toEqual(whole);
    const order = (id: string) => id.slice(4).split('-').map(Number) as [number, number];
    for (let i = 1; i < whole.length; i++) {
      const [a, b] = [order(whole[i - 1]!.id), order(whole[i]!.id)];
      expect(a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]), `${whole[i - 1]!.id} before ${whole[i]!.id}`).toBe(true);
    }
    for (const query of ['cursor=nope', 'cursor=', 'limit=0', 'limit=101', 'limit=2.5', 'other=1']) {
      const r = await svc.get(`${DELIVERIES}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe('bad_param');
    }
    expect((await svc.get(DELIVERIES, null)).status).toBe(401);
  });

  it("another account's attempt, or an unknown one, is 404 not_found; it lists only its own", async () => {
    for (const id of [delivered.id, 'dlv_1-0', 'nope']) {
      const r = await svc.post(`${DELIVERIES}/${id}/redeliver`, {}, svc.keys.paid);
      expect(r.status, id).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', message: 'No such delivery.' });
    }
    expect(await allDeliveries(svc.keys.paid)).toEqual([]);
    // Bearer reads the same list.
    const r = await svc.fetch(`${svc.url}${DELIVERIES}`, { headers: { authorization: `Bearer ${svc.keys.free}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: DeliveryView[] }).data.map((d) => d.id)).toContain(delivered.id);
  });

  it('MCP over HTTP: webhook_deliveries answers the same pages as REST; a bad cursor is bad_param', async () => {
    const mcp = async (key: string) => {
      const client = new Client({ name: 'deliveries-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
          requestInit: { headers: { 'x-api-key': key } },
          fetch: svc.fetch,
        }),
      );
      const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: 'webhook_deliveries', arguments: args })) as CallToolResult & {
          structuredContent: any;
        };
      return { client, call };
    };
    const { client, call } = await mcp(svc.keys.free!);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'webhook_deliveries');
      expect(tool?.annotations?.readOnlyHint).toBe(true);
      const restFirst = await svc.get(`${DELIVERIES}?limit=2`, svc.keys.free!);
      const first = await call({ limit: 2 });
      expect(first.isError).toBeFalsy();
      expect(first.structuredContent).toEqual({
        data: restFirst.body.data,
        meta: { next_cursor: restFirst.body.meta.next_cursor },
      });
      expect(first.structuredContent.data).toHaveLength(2);
      const cursor = first.structuredContent.meta.next_cursor;
      const restSecond = await svc.get(`${DELIVERIES}?limit=2&cursor=${cursor}`, svc.keys.free!);
      expect((await call({ limit: 2, cursor })).structuredContent).toEqual({
        data: restSecond.body.data,
        meta: { next_cursor: restSecond.body.meta.next_cursor },
      });
      for (const args of [{ cursor: 'nope' }, { limit: 0 }, { limit: true }]) {
        const bad = await call(args);
        expect(bad.isError, JSON.stringify(args)).toBe(true);
        expect(bad.structuredContent.error.code).toBe('bad_param');
      }
    } finally {
      await client.close();
    }
    // Another account sees only its own.
    const other = await mcp(svc.keys.paid!);
    try {
      const page = await other.call({ limit: 100 });
      expect(page.isError).toBeFalsy();
      expect(page.structuredContent.data.map((d: DeliveryView) => d.id)).not.toContain(delivered.id);
    } finally {
      await other.client.close();
    }
  });

  it('GraphQL: webhookDeliveries pages the same attempts; redeliverWebhook sends the event again', async () => {
    const whole = await allDeliveries();
    const first = await postGql(svc, {
      query:
        '{ webhookDeliveries(first: 2) { deliveries { id webhookId attempt ok status nextRetryAt } endCursor hasNextPage } }',
    });
    const page = first.body.data.webhookDeliveries;
    expect(page.deliveries.map((d: { id: string }) => d.id)).toEqual(whole.slice(0, 2).map((d) => d.id));
    expect(page.hasNextPage).toBe(true);
    const second = await postGql(svc, {
      query: 'query($after: String) { webhookDeliveries(first: 2, after: $after) { deliveries { id } } }',
      variables: { after: page.endCursor },
    });
    expect(second.body.data.webhookDeliveries.deliveries.map((d: { id: string }) => d.id)).toEqual(
      whole.slice(2, 4).map((d) => d.id),
    );
    const bad = await postGql(svc, { query: '{ webhookDeliveries(after: "nope") { hasNextPage } }' });
    expect(bad.body.errors[0].extensions.code).toBe('bad_param');

    const before = receiver.events.filter((e) => e.id === delivered.webhook_id).length;
    const redone = await postGql(svc, {
      query: `mutation { redeliverWebhook(id: "${delivered.id}") { id webhookId } }`,
    });
    expect(redone.body.data.redeliverWebhook).toEqual({ id: delivered.id, webhookId: delivered.webhook_id });
    await receiver.waitFor((events) => events.filter((e) => e.id === delivered.webhook_id).length === before + 1);
    const other = await postGql(
      svc,
      { query: `mutation { redeliverWebhook(id: "${delivered.id}") { id } }` },
      { key: svc.keys.paid },
    );
    expect(other.body.errors[0].extensions.code).toBe('not_found');
  });
});

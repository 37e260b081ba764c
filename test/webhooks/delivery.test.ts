// Webhook delivery end to end, into a real receiver that verifies with the `standardwebhooks` package:
// retried after failures with doubling delays (the attempt log says so), at least once with one
// webhook-id across attempts, the same event sent twice delivered once, the secret read at each attempt
// (a rotation applies to retries), the URL checked again at each attempt, redirects not followed, and
// all that on memory and on a real Redis (BullMQ), where one instance queues and another delivers.
// Delays come from a tiny WEBHOOK_RETRY_BASE_MS; the tests assert order and count, never wall time.
import { createServer, type Server } from 'node:net';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, rotateWebhookSecret } from '../../src/accounts/admin.js';
import { loadConfig } from '../../src/config.js';
import { LookupError } from '../../src/contract/errors.js';
import type { Store } from '../../src/store/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis.js';
import { createWebhooks, WEBHOOK_ATTEMPTS, webhookId, type WebhookDeps } from '../../src/webhooks/index.js';
import type { Webhooks } from '../../src/webhooks/types.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { backendFor } from '../../src/backend.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface LogLine {
  msg: string;
  webhookId?: string;
  attempt?: number;
  status?: number | null;
  error?: string;
  nextRetryMs?: number | null;
  host?: string;
  type?: string;
  account?: string;
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(redis);
});

/** Polls `check` until it holds (bounded): only for "eventually", never to decide an outcome. */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Instance {
  webhooks: Webhooks;
  logs: LogLine[];
  store: Store;
  close(): Promise<void>;
}

type Backend = 'memory' | 'redis';

async function instance(
  backend: Backend,
  env: Record<string, string>,
  shared?: { store: Store; prefix: string },
): Promise<Instance> {
  const prefix = shared?.prefix ?? `wh${randomUUID().slice(0, 8)}:`;
  const config = loadConfig({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '5',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...(backend === 'redis' ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {}),
    ...env,
  });
  const store =
    shared?.store ?? (backend === 'redis' ? await RedisStore.connect(redis.url, { prefix }) : new MemoryStore());
  const logs: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
  const deps: WebhookDeps = { config, store, logger, clock: () => new Date() };
  const webhooks = createWebhooks(deps, backendFor(config).webhookRunner(deps, logger));
  return {
    webhooks,
    logs,
    store: Object.assign(store, { prefix }),
    async close() {
      await webhooks.close();
      if (!shared) await store.close();
    },
  };
}

const attemptLines = (logs: LogLine[], id: string) => logs.filter((l) => l.webhookId === id);

for (const backend of ['memory', 'redis'] as const) {
  describe(`webhook delivery (${backend})`, () => {
    it('retries after 500s with doubling delays, one webhook-id throughout, then delivers once; each attempt logged', async () => {
      const a = await instance(backend, {});
      const { account } = await createAccount(a.store, 'k', {});
      const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
      try {
        await a.webhooks.startWorker();
        receiver.failNext(3);
        const id = await a.webhooks.send(account, receiver.url, {
          type: 'job.completed',
          data: { id: 'job_1', count: 3 },
        });
        expect(id).toMatch(/^msg_/);
        const [event] = await receiver.waitFor((e) => e.length === 1);
        expect(event).toMatchObject({ id, type: 'job.completed', data: { id: 'job_1', count: 3 } });
        expect(Date.parse(event!.body.timestamp)).not.toBeNaN();
        expect(event!.headers['content-type']).toBe('application/json');
        expect(event!.headers['user-agent']).toMatch(/portal-lookup/);
        expect(receiver.attempts.map((t) => [t.id, t.verified, t.status])).toEqual([
          [id, true, 500],
          [id, true, 500],
          [id, true, 500],
          [id, true, 204],
        ]);
        await until(() => attemptLines(a.logs, id).length === 4, 'four attempt log lines');
        const lines = attemptLines(a.logs, id);
        expect(lines.map((l) => [l.attempt, l.status, l.nextRetryMs ?? null])).toEqual([
          [1, 500, 5],
          [2, 500, 10],
          [3, 500, 20],
          [4, 204, null],
        ]);
        expect(lines[0]).toMatchObject({ type: 'job.completed', account: account.id, host: '127.0.0.1' });
      } finally {
        await receiver.close();
        await a.close();
      }
    });

    it(`gives up after ${WEBHOOK_ATTEMPTS} attempts; a redirect is an answer like any other (not followed)`, async () => {
      const a = await instance(backend, { WEBHOOK_RETRY_BASE_MS: '1' });
      const { account } = await createAccount(a.store, 'k', {});
      const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
      try {
        await a.webhooks.startWorker();
        receiver.failNext(1000, 302);
        const id = await a.webhooks.send(account, receiver.url, { type: 'property.changed', data: { zpid: '1' } });
        await until(() => a.logs.some((l) => l.webhookId === id && /given up/.test(l.msg)), 'given up', 30_000);
        expect(receiver.attempts).toHaveLength(WEBHOOK_ATTEMPTS);
        expect(new Set(receiver.attempts.map((t) => t.id))).toEqual(new Set([id]));
        const lines = attemptLines(a.logs, id);
        expect(lines.map((l) => l.attempt)).toEqual(Array.from({ length: WEBHOOK_ATTEMPTS }, (_, i) => i + 1));
        expect(lines.every((l) => l.status === 302)).toBe(true);
        expect(receiver.events).toEqual([]);
      } finally {
        await receiver.close();
        await a.close();
      }
    }, 40_000);

    it('the same event sent twice is delivered once (webhook-id from the event id)', async () => {
      const a = await instance(backend, {});
      const { account } = await createAccount(a.store, 'k', {});
      const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
      try {
        const event = { type: 'job.completed' as const, id: 'job_42', data: { id: 'job_42' } };
        const first = await a.webhooks.send(account, receiver.url, event);
        const second = await a.webhooks.send(account, receiver.url, event);
        expect(second).toBe(first);
        expect(first).toBe(webhookId(account.id, event));
        const other = await a.webhooks.send(account, receiver.url, { ...event, id: 'job_43' });
        expect(other).not.toBe(first);
        await a.webhooks.startWorker();
        await receiver.waitFor((e) => e.length === 2);
        await until(
          () => attemptLines(a.logs, other).length === 1 && attemptLines(a.logs, first).length === 1,
          'both logged',
        );
        expect(receiver.attempts.map((t) => t.id).sort()).toEqual([first, other].sort());
      } finally {
        await receiver.close();
        await a.close();
      }
    });

    it('the secret is read at each attempt: a rotation between attempts signs the retry with the new one', async () => {
      const a = await instance(backend, {});
      const { account } = await createAccount(a.store, 'k', {});
      let rotated: string | null = null;
      const receiver: WebhookReceiver = await startWebhookReceiver({
        secret: account.webhookSecret!,
        beforeAnswer: async () => {
          if (rotated) return;
          rotated = (await rotateWebhookSecret(a.store, account.id)).secret;
          receiver.setSecret(rotated);
        },
      });
      try {
        await a.webhooks.startWorker();
        receiver.failNext(1);
        const id = await a.webhooks.send(account, receiver.url, { type: 'job.failed', data: { id: 'job_9' } });
        await receiver.waitFor((e) => e.length === 1);
        // First attempt: old secret (verified before the rotation), answered 500; the retry: the new secret.
        expect(receiver.attempts.map((t) => [t.id, t.verified, t.status])).toEqual([
          [id, true, 500],
          [id, true, 204],
        ]);
      } finally {
        await receiver.close();
        await a.close();
      }
    });

    it('the URL is checked again at each attempt: a private address is not contacted without WEBHOOK_ALLOW_PRIVATE', async () => {
      const a = await instance(backend, { WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_BASE_MS: '1' });
      const { account } = await createAccount(a.store, 'k', {});
      const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
      try {
        await expect(a.webhooks.checkUrl(receiver.url, 'webhook_url')).rejects.toMatchObject({
          code: 'bad_param',
          details: { param: 'webhook_url' },
        });
        await a.webhooks.startWorker();
        const id = await a.webhooks.send(account, receiver.url, { type: 'job.completed', data: {} });
        await until(() => attemptLines(a.logs, id).length >= 2, 'two refused attempts');
        expect(attemptLines(a.logs, id)[0]).toMatchObject({
          attempt: 1,
          status: null,
          error: expect.stringMatching(/URL refused: .*loopback/),
        });
        expect(receiver.attempts).toEqual([]);
      } finally {
        await receiver.close();
        await a.close();
      }
    });
  });
}

describe('webhook delivery (memory): the time limit', () => {
  it('an endpoint that never answers is an attempt failed at WEBHOOK_TIMEOUT_MS, then retried', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const a = await instance('memory', { WEBHOOK_TIMEOUT_MS: '100', WEBHOOK_RETRY_BASE_MS: '1' });
    try {
      const { account } = await createAccount(a.store, 'k', {});
      await a.webhooks.startWorker();
      const id = await a.webhooks.send(account, `http://127.0.0.1:${port}/x`, { type: 'job.completed', data: {} });
      await until(() => attemptLines(a.logs, id).length >= 2, 'two timed-out attempts');
      expect(attemptLines(a.logs, id).slice(0, 2)).toMatchObject([
        { attempt: 1, error: 'no answer within 100 ms', nextRetryMs: 1 },
        { attempt: 2, error: 'no answer within 100 ms', nextRetryMs: 2 },
      ]);
    } finally {
      await a.close();
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});

describe('webhook delivery (memory): an attempt whose account cannot be read', () => {
  it('is logged like any failed attempt (the log is the attempt log), then retried', async () => {
    const a = await instance('memory', {});
    const { account } = await createAccount(a.store, 'k', {});
    const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
    const read = a.store.getAccount.bind(a.store);
    let failing = 1;
    a.store.getAccount = async (id) => {
      if (failing-- > 0) throw new LookupError('store_unavailable');
      return read(id);
    };
    try {
      const id = await a.webhooks.send(account, receiver.url, { type: 'job.completed', data: {} });
      await receiver.waitFor((e) => e.length === 1);
      await until(() => attemptLines(a.logs, id).length === 2, 'both attempts logged');
      const lines = attemptLines(a.logs, id);
      expect(lines.map((l) => [l.attempt, l.status ?? null, l.nextRetryMs ?? null])).toEqual([
        [1, null, 5],
        [2, 204, null],
      ]);
      expect(lines[0]!.error).toMatch(/store is unreachable/);
    } finally {
      await receiver.close();
      await a.close();
    }
  });
});

describe('webhook delivery (redis): one instance queues, another delivers', () => {
  it("a delivery queued by an instance without a worker is delivered by another instance's worker", async () => {
    const producer = await instance('redis', {});
    const consumer = await instance(
      'redis',
      {},
      { store: producer.store, prefix: (producer.store as unknown as { prefix: string }).prefix },
    );
    const { account } = await createAccount(producer.store, 'k', {});
    const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
    try {
      receiver.failNext(1);
      const id = await producer.webhooks.send(account, receiver.url, {
        type: 'job.completed',
        id: 'job_x',
        data: { id: 'job_x' },
      });
      await consumer.webhooks.startWorker();
      await receiver.waitFor((e) => e.length === 1);
      expect(receiver.attempts.map((t) => [t.id, t.status])).toEqual([
        [id, 500],
        [id, 204],
      ]);
      await until(() => attemptLines(consumer.logs, id).length === 2, 'the consumer logged both attempts');
      expect(attemptLines(producer.logs, id)).toEqual([]);
      // Sent again after delivery: still one delivery (the kept job has the id).
      expect(
        await producer.webhooks.send(account, receiver.url, {
          type: 'job.completed',
          id: 'job_x',
          data: { id: 'job_x' },
        }),
      ).toBe(id);
    } finally {
      await receiver.close();
      await consumer.close();
      await producer.close();
    }
  });
});

// The service on a real 3-master Redis Cluster (REDIS_CLUSTER_NODES): two instances share the store,
// cache, billing and rate limits on the cluster (a lookup is billed once, then a hit on the other
// instance; concurrent lookups across instances charge each home once), and BullMQ runs on it with
// src/queue/bull.ts's per-queue hash tag (a queue's keys in one slot): a lookup job made on one instance
// is run by the workers of two, bills each home once and sends one signed job.completed through the
// webhooks queue; the accounts command works on the cluster.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId, type AccountSeed } from '../../src/accounts/index.js';
import { loadConfig } from '../../src/config.js';
import { bullConnection, bullOptions, bullPrefix } from '../../src/queue/bull.js';
import { startReplayServer } from '../../src/replay/server.js';
import { createRedisClient, keySlot } from '../../src/store/redis-connection.js';
import { RedisStore } from '../../src/store/redis.js';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { freePort } from '../helpers/redis-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

// The services' clock, frozen at this run's start (not at a fixed date): Redis keeps its own time.
const NOW = new Date();
const HOMES = ['2146993218', '15192198', '114303858', '450233440', '999000101', '999000102', '999000103', '999000104'];

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

let services: TestService[] = [];
let stores: RedisStore[] = [];
let replay: ReplayServer | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await Promise.all(services.map((s) => s.close()));
  await Promise.all(stores.map((s) => s.close()));
  await replay?.close();
  services = [];
  stores = [];
  replay = undefined;
});

/** `n` service instances on the cluster, under one fresh prefix, sharing one replay site. */
async function instances(
  n: number,
  accounts: Record<string, AccountSeed>,
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const prefix = `e2e${randomUUID().slice(0, 8)}:`;
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  for (let i = 0; i < n; i++) {
    const store = await RedisStore.connect(
      { redisUrl: null, redisClusterNodes: cluster.nodeList },
      { prefix, commandTimeoutMs: 5000 },
    );
    stores.push(store);
    services.push(
      await startTestService({
        store,
        accounts,
        clock: () => NOW,
        replayServer: replay,
        env: {
          REDIS_CLUSTER_NODES: cluster.nodes,
          REDIS_PREFIX: prefix,
          REDIS_COMMAND_TIMEOUT_MS: '5000',
          LEASE_TTL_MS: '15000',
          RATE_LIMIT_PER_MINUTE: '1000',
          MAX_LIVE_PER_KEY: '100',
          ...extraEnv,
        },
      }),
    );
  }
  return prefix;
}

describe('the service on a Redis Cluster', () => {
  it('a lookup is billed once on one instance, then a free hit on the other; the rate window is shared', async () => {
    const accounts = { a: { key: 'cluster_key_a_0001', plan: 'free', allotment: 10 } } satisfies Record<
      string,
      AccountSeed
    >;
    await instances(2, accounts);
    const [one, two] = services as [TestService, TestService];
    expect(one.config.redisClusterNodes).toEqual(cluster.nodeList);

    const first = await one.get('/v1/portal/property?zpid=2146993218', accounts.a.key);
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({ credits: 1, cached: false });
    const second = await two.get('/v1/portal/property?zpid=2146993218', accounts.a.key);
    expect(second.status).toBe(200);
    expect(second.body.meta).toMatchObject({ credits: 0, cached: true });
    expect(second.body.data).toEqual(first.body.data);

    // A batch on the second instance: the cached home is a hit, the others are read once each.
    const batch = await two.post(
      '/v1/portal/batch',
      { items: HOMES.slice(0, 4).map((zpid) => ({ zpid })) },
      accounts.a.key,
    );
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.data.map((r: { meta?: { cached: boolean } }) => r.meta?.cached)).toEqual([
      true,
      false,
      false,
      false,
    ]);

    const id = seededAccountId(hashApiKey(accounts.a.key, one.config.apiKeySecret));
    const ledger = await stores[0]!.ledger(id);
    expect(ledger.map((e) => e.cacheKey).sort()).toEqual(
      HOMES.slice(0, 4)
        .map((z) => `zpid:${z}`)
        .sort(),
    );
    expect((await stores[1]!.usage(id, 'lifetime')).used).toBe(4);
    // The per-minute window (on the cluster) counts every lookup of both instances.
    const remaining = Number(/;r=(\d+)/.exec(batch.headers.get('ratelimit') ?? '')?.[1]);
    expect(remaining).toBe(1000 - 6);
  });

  it('concurrent lookups of the same homes on three instances: each home charged once, credits == ledger', async () => {
    const accounts: Record<string, AccountSeed> = {};
    for (let i = 0; i < 6; i++) accounts[`f${i}`] = { key: `cluster_conc_key_${i}`, plan: 'free', allotment: 50 };
    await instances(3, accounts);
    const names = Object.keys(accounts);
    const outcomes = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const name = names[i % names.length]!;
        const r = await services[i % 3]!.get(
          `/v1/portal/property?zpid=${HOMES[(i * 5) % HOMES.length]}`,
          accounts[name]!.key,
        );
        return {
          status: r.status,
          body: JSON.stringify(r.body),
          credits: r.status === 200 ? (r.body.meta.credits as number) : 0,
          requestId: r.headers.get('x-request-id'),
        };
      }),
    );
    for (const o of outcomes) expect(o.status, o.body).toBe(200);
    const ledger = await stores[0]!.ledger();
    const charged = outcomes.filter((o) => o.credits === 1);
    expect(ledger).toHaveLength(charged.length);
    expect(new Set(ledger.map((e) => e.requestId))).toEqual(new Set(charged.map((o) => o.requestId)));
    // One charge per home: the single-flight lock and the cache are shared on the cluster.
    expect(ledger.map((e) => e.cacheKey).sort()).toEqual(HOMES.map((z) => `zpid:${z}`).sort());
  });
});

describe('a lookup job on the cluster', () => {
  it('made on one instance, run by the workers of two: completes, results in item order from either, each home billed once, one signed job.completed', async () => {
    const secret = newWebhookSecret();
    const accounts = {
      a: { key: 'cluster_job_key_0001', plan: 'free', allotment: 50, webhookSecret: secret },
    } satisfies Record<string, AccountSeed>;
    receiver = await startWebhookReceiver({ secret });
    await instances(2, accounts, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    for (const svc of services) await svc.app.background.startWorkers();
    const [one, two] = services as [TestService, TestService];
    // 3 chunks of up to 50: every home many times over, and two bad items.
    const items: unknown[] = Array.from({ length: 118 }, (_, i) => ({ zpid: HOMES[i % HOMES.length]! }));
    items.splice(30, 0, { zpid: 'nope' });
    items.splice(90, 0, { zpid: '999999999' });
    const made = await one.post('/v1/portal/jobs', { items, webhook_url: receiver.url }, accounts.a.key);
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const id = made.body.data.id as string;

    let job: any;
    for (let i = 0; i < 1500; i++) {
      const r = await two.get(`/v1/portal/jobs/${id}`, accounts.a.key);
      expect(r.status).toBe(200);
      job = r.body.data;
      if (['completed', 'cancelled', 'failed'].includes(job.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(job).toMatchObject({
      status: 'completed',
      count: 120,
      done: 120,
      succeeded: 118,
      failed: 2,
      credits: HOMES.length,
    });

    const res = await two.fetch(`${two.url}/v1/portal/jobs/${id}/results`, {
      headers: { 'x-api-key': accounts.a.key },
    });
    const lines = (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual(items.map((_, i) => i));
    expect(lines.filter((l) => !l.ok).map((l) => [l.index, l.error.code])).toEqual([
      [30, 'bad_param'],
      [90, 'not_found'],
    ]);
    expect(lines.reduce((n, l) => n + (l.ok ? l.meta.credits : 0), 0)).toBe(HOMES.length);

    const accountId = seededAccountId(hashApiKey(accounts.a.key, one.config.apiKeySecret));
    const charges = (await stores[0]!.ledger(accountId)).filter((e) => e.requestId.startsWith(`job:${id}:`));
    expect(charges.map((e) => e.cacheKey).sort()).toEqual(HOMES.map((z) => `zpid:${z}`).sort());
    expect((await stores[1]!.usage(accountId, 'lifetime')).used).toBe(HOMES.length);

    // The webhook went through the webhooks queue on the cluster, verified by the receiver (standardwebhooks).
    const events = await receiver.waitFor((all) => all.some((e) => e.type === 'job.completed'));
    const completed = events.filter((e) => e.type === 'job.completed');
    expect(new Set(completed.map((e) => e.id)).size).toBe(1);
    expect(completed[0]!.data).toMatchObject({ id, status: 'completed', count: 120, credits: HOMES.length });
  });
});

/** The accounts command (this run's compiled entry) with `env`. */
function accountsCommand(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entryArgs('accounts-cli.ts'), ...args], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('npm run accounts on the cluster', () => {
  it('creates and lists an account through REDIS_CLUSTER_NODES; no node answering, it names the cluster', async () => {
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_PREFIX: `cli${randomUUID().slice(0, 6)}:`,
      API_KEY_SECRET: 'x'.repeat(32),
    };
    const made = await accountsCommand(['create', '--plan', 'free', '--label', 'on-cluster'], env);
    expect(made.code, made.err).toBe(0);
    const id = /Created account (\S+)/.exec(made.out)?.[1];
    const listed = await accountsCommand(['list', '--json'], env);
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id, label: 'on-cluster' })]);

    const down = `127.0.0.1:${await freePort()}`;
    const refused = await accountsCommand(['list'], { ...env, REDIS_CLUSTER_NODES: down });
    expect(refused.code).toBe(4);
    expect(refused.err).toContain(`cannot reach Redis at cluster ${down}`);
  });
});

describe('BullMQ on the cluster', () => {
  it('a queue with its hash-tagged prefix: a job added is processed by a worker, and all its keys share one slot', async () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: cluster.nodes, REDIS_PREFIX: `bq${randomUUID().slice(0, 6)}:` });
    const name = 'jobs' as const;
    const queueConnection = bullConnection(config);
    const workerConnection = bullConnection(config);
    const queue = new Queue(name, bullOptions(config, name, queueConnection));
    let done!: (v: unknown) => void;
    const processed = new Promise((r) => (done = r));
    const worker = new Worker(
      name,
      async (job) => {
        done(job.data);
        return { doubled: (job.data as { n: number }).n * 2 };
      },
      bullOptions(config, name, workerConnection),
    );
    try {
      const job = await queue.add('double', { n: 21 });
      expect(await processed).toEqual({ n: 21 });
      // Completed: its return value stored (polled, bounded).
      let state = '';
      for (let i = 0; i < 200 && state !== 'completed'; i++) {
        state = await queue.getJobState(job.id!);
        if (state !== 'completed') await new Promise((r) => setTimeout(r, 25));
      }
      expect(state).toBe('completed');
      expect((await queue.getJob(job.id!))?.returnvalue).toEqual({ doubled: 42 });

      // Every key of the queue is under its tagged prefix, so in one slot.
      const raw = createRedisClient(config, {}) as Cluster;
      try {
        await new Promise((r) => raw.once('ready', r));
        const keys: string[] = [];
        for (const node of raw.nodes('master')) keys.push(...(await node.keys(`${bullPrefix(config, name)}*`)));
        expect(keys.length).toBeGreaterThan(2);
        expect(new Set(keys.map(keySlot)).size).toBe(1);
      } finally {
        raw.disconnect();
      }
    } finally {
      await worker.close();
      await queue.close();
      queueConnection.disconnect();
      workerConnection.disconnect();
    }
  });
});

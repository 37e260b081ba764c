// The per-account bounds of lookup jobs (issue 25, item 5), over REST on the memory store and on a real Redis
// (two instances sharing it): jobs queued or running (JOB_MAX_ACTIVE_PER_ACCOUNT), their items
// (JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT) and open event streams (JOB_MAX_EVENT_STREAMS_PER_ACCOUNT). Past one:
// 429 rate_limited, details.limit naming the bound and its value, a retry-after. Concurrent posts meet the bound
// exactly (atomic); a job leaves the count when it is final (completed, failed, or cancelled at once) and new
// jobs are taken again. Jobs are kept running by a site that holds their reads: gated, never timed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MAX_JOB_ITEMS } from '../../src/jobs/types.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const JOBS = '/v1/portal/jobs';
const MAX_ACTIVE = 3;
const MAX_STREAMS = 2;
const ACCOUNTS = {
  paid: { key: 'test_paid_key_0001', plan: 'paid' as const, included: 100_000, overage: false },
  other: { key: 'test_other_key_001', plan: 'paid' as const, included: 1000, overage: false },
};

describe('the bounds in the environment schema', () => {
  it('have their defaults, and an items bound below one full job is refused at start-up', () => {
    expect(loadConfig({}).jobBounds).toEqual({ maxActive: 100, maxQueuedItems: 100_000, maxEventStreams: 20 });
    expect(() => loadConfig({ JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT: String(MAX_JOB_ITEMS - 1) })).toThrow(
      /JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT must be an integer >= 10000/,
    );
    expect(loadConfig({ JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT: String(MAX_JOB_ITEMS) }).jobBounds.maxQueuedItems).toBe(
      MAX_JOB_ITEMS,
    );
  });
});

describe.each(['memory', 'redis'] as const)('per-account job bounds on %s', (backend) => {
  let redis: RedisServer | undefined;
  let site: Awaited<ReturnType<typeof startReplayServer>>;
  let proxy: GatedProxy;
  let svc: TestService;
  /** On Redis a second instance on the same Redis (no worker): the bounds are counted across both. */
  let svc2: TestService | undefined;
  const instances = (): [TestService, TestService] => [svc, svc2 ?? svc];

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
    const prefix = `ab${randomUUID().slice(0, 6)}:`;
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    const env = {
      // JOB_LOCK_MS is the service's own (30 s): nothing here waits for a chunk's lock to lapse.
      PORTAL_ORIGIN: proxy.origin,
      JOB_MAX_ACTIVE_PER_ACCOUNT: String(MAX_ACTIVE),
      JOB_MAX_EVENT_STREAMS_PER_ACCOUNT: String(MAX_STREAMS),
      // Its least: one full job.
      JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT: String(MAX_JOB_ITEMS),
      ...(redis ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {}),
    };
    svc = await startTestService({
      socket: 'streaming',
      replayServer: site,
      accounts: ACCOUNTS,
      env,
      ...(redis ? { store: await RedisStore.connect(redis.url, { prefix }) } : {}),
    });
    // The first instance runs the jobs (server.ts starts its workers; a test service leaves that to the test).
    await svc.app.background.startWorkers();
    if (redis) {
      svc2 = await startTestService({
        socket: 'streaming',
        replayServer: site,
        accounts: ACCOUNTS,
        env: { ...env, WORK_IN_SERVICE: 'false' },
        store: await RedisStore.connect(redis.url, { prefix }),
      });
    }
  });

  afterAll(async () => {
    proxy?.open();
    await svc2?.close();
    await svc?.close();
    await proxy?.close();
    await site?.close();
    if (redis) await disposeRedisServer(redis);
  });

  const post = (items: unknown[], key = ACCOUNTS.paid.key, on = svc) => on.post(JOBS, { items }, key);
  const cancel = async (id: string) => {
    const r = await svc.fetch(`${svc.url}${JOBS}/${id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': ACCOUNTS.paid.key },
    });
    expect(r.status).toBe(200);
    await r.text();
  };
  /** The job once final, polled with a bound ("eventually"), never a fixed wait. */
  async function finalJob(id: string): Promise<any> {
    for (let i = 0; i < 1500; i++) {
      const r = await svc.get(`${JOBS}/${id}`, ACCOUNTS.paid.key);
      if (['completed', 'cancelled', 'failed'].includes(r.body.data.status) && r.body.data.finished_at)
        return r.body.data;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`job ${id} did not finish`);
  }

  it('jobs queued or running: concurrent posts meet the bound exactly, then 429 jobs_active until one is final', async () => {
    const release = proxy.hold('114303858');
    // Eight at once (over both instances on Redis): exactly MAX_ACTIVE are taken.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post([{ zpid: '114303858' }], undefined, instances()[i % 2])),
    );
    const taken = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(taken).toHaveLength(MAX_ACTIVE);
    expect(refused).toHaveLength(8 - MAX_ACTIVE);
    for (const r of refused) {
      expect(r.body.error).toMatchObject({
        code: 'rate_limited',
        details: { limit: 'jobs_active', max: MAX_ACTIVE, active: MAX_ACTIVE },
      });
      expect(r.headers.get('retry-after')).toBe('30');
    }
    // Another account is not held by this one's bound.
    const other = await post([{ zpid: 'nope' }], ACCOUNTS.other.key);
    expect(other.status).toBe(202);

    // A cancelled job leaves the count at once (its running chunk, if any, settles later).
    await cancel(taken[2]!.body.data.id);
    const fourth = await post([{ zpid: '114303858' }], undefined, instances()[1]);
    expect(fourth.status).toBe(202);
    expect((await post([{ zpid: '114303858' }])).status).toBe(429);

    // Completed jobs leave it too: once the reads are let through and the jobs are final, MAX_ACTIVE more are taken.
    release();
    for (const id of [taken[0]!, taken[1]!, fourth].map((a) => a.body.data.id as string))
      expect((await finalJob(id)).status).toBe('completed');
    const again = await Promise.all(Array.from({ length: MAX_ACTIVE }, () => post([{ zpid: 'nope' }])));
    expect(again.map((a) => a.status)).toEqual(Array(MAX_ACTIVE).fill(202));
    for (const a of again) await finalJob(a.body.data.id);
  });

  it('items queued or running: 429 job_items_queued past JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT, taken again once the job is final', async () => {
    const release = proxy.hold('15192198');
    const big = await post(Array.from({ length: MAX_JOB_ITEMS }, () => ({ zpid: '15192198' })));
    expect(big.status).toBe(202);
    const over = await post([{ zpid: '15192198' }], undefined, instances()[1]);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 'job_items_queued', max: MAX_JOB_ITEMS, queued: MAX_JOB_ITEMS },
    });
    expect(over.headers.get('retry-after')).toBe('30');
    await cancel(big.body.data.id);
    const after = await post([{ zpid: '15192198' }]);
    expect(after.status).toBe(202);
    release();
    await finalJob(after.body.data.id);
    await finalJob(big.body.data.id);
  });

  it('open event streams: 429 event_streams past JOB_MAX_EVENT_STREAMS_PER_ACCOUNT, another taken once one closes', async () => {
    const release = proxy.hold('2146993218');
    const job = await post([{ zpid: '2146993218' }]);
    expect(job.status).toBe(202);
    const id = job.body.data.id as string;
    const open = (on: TestService) => {
      const stop = new AbortController();
      const answer = fetch(`${on.url}${JOBS}/${id}/events`, {
        headers: { 'x-api-key': ACCOUNTS.paid.key },
        signal: stop.signal,
      });
      return { stop, answer };
    };
    const streams = [open(svc), open(instances()[1])];
    for (const s of streams) {
      const res = await s.answer;
      expect(res.status).toBe(200);
      // Its first event has come: the stream is open and counted.
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: progress');
    }
    const third = await await open(instances()[1]).answer;
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({
      error: { code: 'rate_limited', details: { limit: 'event_streams', max: MAX_STREAMS } },
    });
    expect(third.headers.get('retry-after')).toBe('5');

    // One client leaves: its stream stops counting once the service has seen it go (eventually, not timed).
    streams[0]!.stop.abort();
    let status = 429;
    for (let i = 0; i < 500 && status === 429; i++) {
      const s = open(svc);
      const res = await s.answer;
      status = res.status;
      if (status === 429) await res.text();
      else streams.push(s);
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(200);
    release();
    await finalJob(id);
    for (const s of streams) s.stop.abort();
  });
});

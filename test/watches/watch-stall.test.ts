// A watch check whose worker dies mid-check, through BullMQ itself (issue 11: "a restart or a second
// instance neither loses nor doubles a check"): instance A's worker reads the changed home (billed),
// records the change and dies before queuing the event; its lock lapses (the test deletes it, as its
// expiry would), BullMQ's stalled-job check moves the iteration back, and instance B's worker runs it
// again as a re-run: the event is queued by B under the iteration's id, and the iteration is billed once.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { parseLocator } from '../../src/contract/index.js';
import { bullConnection, bullPrefix } from '../../src/queue/bull.js';
import type { Account } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { createWatches } from '../../src/watches/index.js';
import type { WebhookEvent, Webhooks } from '../../src/webhooks/types.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';

const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const PRICE = 850_000;
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":${PRICE},`;

/** Webhooks that record what was queued; with `hold`, every send never returns (the worker "dies" there). */
class RecordingWebhooks implements Webhooks {
  sent: WebhookEvent[] = [];
  held: WebhookEvent[] = [];
  constructor(private readonly hold: boolean) {}
  async checkUrl(raw: unknown): Promise<string> {
    return String(raw);
  }
  async send(_account: Pick<Account, 'id'>, _url: string, event: WebhookEvent): Promise<string> {
    if (this.hold) {
      this.held.push(event);
      return new Promise<string>(() => undefined);
    }
    this.sent.push(event);
    return `msg_${event.id}`;
  }
  async startWorker(): Promise<void> {}
  async close(): Promise<void> {}
}

async function until(probe: () => Promise<boolean> | boolean, what: string, boundMs = 30_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached in ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let redis: RedisServer;
let svc: TestService;
let store: RedisStore;
const prefix = `ws${randomUUID().slice(0, 8)}:`;
beforeAll(async () => {
  redis = await startRedisServer();
  store = await RedisStore.connect(redis.url, { prefix });
  svc = await startTestService({
    store,
    env: { WATCH_MIN_INTERVAL_SECONDS: '1', REDIS_URL: redis.url, REDIS_PREFIX: prefix },
  });
});
afterAll(async () => {
  await svc?.close();
  await store?.close();
  await disposeRedisServer(redis);
});

it('a check whose worker died after recording a change: BullMQ re-runs the iteration on another instance, which queues the event; billed once', async () => {
  const account = await authenticate(store, svc.config.apiKeySecret, svc.keys.paid);
  const hooksA = new RecordingWebhooks(true);
  const hooksB = new RecordingWebhooks(false);
  const a = createWatches(svc.app.core, hooksA, partsFor(svc.app.core).watches());
  const b = createWatches(svc.app.core, hooksB, partsFor(svc.app.core).watches());
  const connection = bullConnection(svc.config);
  // Takes no job: only BullMQ's stalled-job check, often (a worker's default is every 30 s).
  const stallChecker = new Worker('watches', null, {
    connection,
    prefix: bullPrefix(svc.config, 'watches'),
    autorun: false,
    stalledInterval: 200,
  });
  try {
    await a.startWorker();
    const { id } = await a.create(account, {
      locator: parseLocator({ zpid: ZPID }),
      webhookUrl: 'http://127.0.0.1:9/hooks',
      intervalHours: 1 / 3600,
    });
    await until(async () => (await a.get(account, id)).home_zpid === ZPID, 'the first check');
    svc.replay.faults.set(PAGE.path, { body: PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":807000,`) });
    await until(() => hooksA.held.length >= 1, 'a check on A recorded the change and reached its send');
    const eventId = hooksA.held[0]!.id!;
    const iteration = eventId.slice(id.length + 1);
    expect(iteration).toMatch(new RegExp(`^repeat:${id}:\\d+$`));
    // A dies: its worker stops (the held check never ends) and its lock on the iteration lapses.
    await a.close();
    // Its lock and the stalled-job check's pause (A's worker checked last, 30 s between checks) lapse.
    const keys = `${bullPrefix(svc.config, 'watches')}:watches`;
    await connection.del(`${keys}:${iteration}:lock`, `${keys}:stalled-check`);
    // BullMQ's stalled-job check finds the iteration without a lock and puts it back; then B's worker runs.
    await stallChecker.startStalledCheckTimer();
    const queue = new Queue('watches', { connection, prefix: bullPrefix(svc.config, 'watches') });
    await until(
      async () => ['wait', 'waiting'].includes(await queue.getJobState(iteration)),
      'the iteration put back by the stalled-job check',
    );
    await queue.close();
    await b.startWorker();
    await until(() => hooksB.sent.some((e) => e.id === eventId), 'B queued the event of the re-run iteration');
    expect(hooksB.sent.filter((e) => e.type === 'property.changed').map((e) => e.id)).toEqual([eventId]);
    expect(hooksB.sent[0]!.data).toMatchObject({ zpid: ZPID, changes: [{ field: 'price', from: PRICE, to: 807_000 }] });
    const billed = (await store.ledger(account.id)).filter((e) => e.requestId === `watch:${id}:${iteration}`);
    expect(billed).toHaveLength(1);
    await b.remove(account, id);
  } finally {
    await stallChecker.close();
    await a.close();
    await b.close();
    connection.disconnect();
  }
}, 60_000);

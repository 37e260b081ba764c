// Watched homes, the core end to end (issue 11 "Done when": a watched home whose price changes at the
// local site produces one property.changed event): a service on the replay site whose page for the
// watched home the test edits (a new price), the real webhooks delivering to a receiver that verifies
// every delivery with the standardwebhooks package, with the memory store (timers) and with a real
// Redis (BullMQ job schedulers), where two instances share the schedule and a restart keeps it. Checks
// every 0.2 s (WATCH_MIN_INTERVAL_SECONDS=0.2); progress is read from the ledger, the site's request log
// and the checks seen starting and ending (SeenScheduler around the real scheduler), never from how long
// the test waited.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { bullConnection, bullOptions } from '../../src/queue/bull.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Account, Store } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { createWatches, type Watches } from '../../src/watches/index.js';
import { BullScheduler, TimerScheduler } from '../../src/watches/schedule.js';
import { createWebhooks } from '../../src/webhooks/index.js';
import { accountWebhookSecret } from '../../src/webhooks/secret.js';
import type { WebhookEvent, Webhooks } from '../../src/webhooks/types.js';
import { parseLocator } from '../../src/contract/index.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type ReplayServer, type TestService, partsFor } from '../helpers/service.js';
import { SeenScheduler } from '../helpers/watch-runs.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const PRICE = 850_000;
const NEW_PRICE = 799_000;
// The home's own price in the page's data (the other prices on the page are nearby homes').
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":${PRICE},`;
const withPrice = (price: number): string => {
  if (!PAGE.html.includes(OWN_PRICE))
    throw new Error('the recorded page no longer holds the price where this test edits it');
  return PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":${price},`);
};
const OTHER = recordedPage('2146993218');
/** The shortest interval the services below allow (WATCH_MIN_INTERVAL_SECONDS), in seconds and hours. */
const SECONDS = 0.2;
const INTERVAL = SECONDS / 3600;

/** Polls `probe` until it holds (an "eventually", bounded); the outcome is asserted after. */
async function until(probe: () => Promise<boolean> | boolean, what: string, boundMs = 30_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached in ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let replay: ReplayServer;
let redis: RedisServer;
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  redis = await startRedisServer();
});
afterAll(async () => {
  await replay?.close();
  await disposeRedisServer(redis);
});

/**
 * A service of its own with the real webhooks and watches made on its core, their workers running; the
 * watches on the real scheduler of the store (BullMQ on Redis, else timers), seen by `seen`, and the
 * events they queue recorded in `sent` on their way to the real webhooks.
 */
interface Instance {
  svc: TestService;
  webhooks: Webhooks;
  watches: Watches;
  seen: SeenScheduler;
  sent: WebhookEvent[];
  close(): Promise<void>;
}

describe.each(['memory', 'redis'] as const)('with the %s store', (kind) => {
  const prefix = `w${randomUUID().slice(0, 8)}:`;
  const stores: Store[] = [];
  const instances: Instance[] = [];
  let account: Account;
  let receiver: WebhookReceiver;

  async function instance(): Promise<Instance> {
    const store = kind === 'redis' ? await RedisStore.connect(redis.url, { prefix }) : undefined;
    if (store) stores.push(store);
    const svc = await startTestService({
      replayServer: replay,

      env: {
        WATCH_MIN_INTERVAL_SECONDS: String(SECONDS),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ...(kind === 'redis' ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix } : {}),
      },
      ...(store ? { store } : {}),
    });
    const { core } = svc.app;
    const webhooks = createWebhooks(core, partsFor(core).webhookRunner());
    const sent: WebhookEvent[] = [];
    const recorded: Webhooks = {
      checkUrl: (raw, param) => webhooks.checkUrl(raw, param),
      send: (account, url, event) => (sent.push(event), webhooks.send(account, url, event)),
      startWorker: () => webhooks.startWorker(),
      close: () => webhooks.close(),
    };
    // The scheduler createWatches would make for this store, seen.
    const seen = new SeenScheduler(
      kind === 'redis' ? new BullScheduler(core.config, core.logger) : new TimerScheduler(core.newId),
    );
    const watches = createWatches(core, recorded, { ...partsFor(core).watches(), scheduler: seen });
    await webhooks.startWorker();
    await watches.startWorker();
    const made: Instance = {
      svc,
      webhooks,
      watches,
      seen,
      sent,
      async close() {
        await watches.close();
        await webhooks.close();
        await svc.close();
      },
    };
    instances.push(made);
    return made;
  }

  beforeAll(async () => {
    const first = await instance();
    account = await authenticate(first.svc.store, first.svc.config.apiKeySecret, first.svc.keys.paid);
    receiver = await startWebhookReceiver({ secret: (await accountWebhookSecret(first.svc.store, account.id))! });
  });
  afterAll(async () => {
    replay.faults.clear();
    for (const i of instances) await i.close();
    for (const s of stores) await s.close();
    await receiver?.close();
  });

  const store = () => instances[0]!.svc.store;
  /** The charges of one watch's checks (their requestId names the watch). */
  const charges = async (watchId: string) =>
    (await store().ledger(account.id)).filter((e) => e.requestId.startsWith(`watch:${watchId}:`));
  const reads = (path: string) => replay.requests.filter((r) => r.path === path).length;
  const watchOf = (w: Watches, id: string) => w.get(account, id);

  it('a price change at the site: exactly one property.changed, with the changes and the record; each check billed as a lookup; a removed watch stops', async () => {
    replay.faults.clear();
    replay.requests.length = 0;
    const { watches, seen, sent } = instances[0]!;
    const made = await watches.create(account, {
      locator: parseLocator({ zpid: ZPID }),
      webhookUrl: receiver.url,
      intervalHours: INTERVAL,
    });
    expect(made).toMatchObject({
      zpid: ZPID,
      interval_hours: INTERVAL,
      home_zpid: null,
      last_checked_at: null,
      last_error: null,
    });
    // The first check only records what it saw.
    await until(async () => (await watchOf(watches, made.id)).home_zpid === ZPID, 'the first check');
    expect((await watchOf(watches, made.id)).last_error).toBeNull();
    expect(receiver.events).toHaveLength(0);

    replay.faults.set(PAGE.path, { body: withPrice(NEW_PRICE) });
    const [event] = await receiver.waitFor((events) => events.length >= 1, 30_000);
    // Two more checks read the new price again and, like every check begun by then, ended: still one
    // event queued, and one delivered.
    const billedAtEvent = (await charges(made.id)).length;
    await until(async () => (await charges(made.id)).length >= billedAtEvent + 2, 'two more checks');
    const begun = seen.mark(made.id);
    await until(() => begun.over(), 'the checks begun by then ended');
    expect(sent.filter((e) => e.id?.startsWith(`${made.id}:`)).map((e) => e.type)).toEqual(['property.changed']);
    expect(receiver.events).toHaveLength(1);
    expect(event!.type).toBe('property.changed');
    const data = event!.data as { zpid: string; changes: unknown[]; data: { zpid: string; price: number } };
    expect(data.zpid).toBe(ZPID);
    expect(data.changes).toEqual([{ field: 'price', from: PRICE, to: NEW_PRICE }]);
    expect(data.data).toMatchObject({ zpid: ZPID, price: NEW_PRICE });

    // Removed: a control watch on another home runs on; the removed one reads its page no more once the
    // checks of it under way at the removal ended.
    await watches.remove(account, made.id);
    const removed = seen.mark(made.id);
    await expect(watches.get(account, made.id)).rejects.toMatchObject({ code: 'not_found', message: 'No such watch.' });
    const control = await watches.create(account, {
      locator: parseLocator({ zpid: '2146993218' }),
      webhookUrl: receiver.url,
      intervalHours: INTERVAL,
    });
    await until(
      async () => (await charges(control.id)).length >= 2 && removed.over(),
      'two checks of the control, and the checks of the removed watch under way at its removal ended',
    );
    const stopped = reads(PAGE.path);
    await until(async () => (await charges(control.id)).length >= 4, 'two more checks of the control');
    expect(reads(PAGE.path)).toBe(stopped);
    await watches.remove(account, control.id);

    // Billed like lookups: one charge per live read of the page, none else.
    const billed = await charges(made.id);
    expect(billed.length).toBe(reads(PAGE.path));
    expect(new Set(billed.map((e) => e.requestId)).size).toBe(billed.length);
    expect(reads(OTHER.path)).toBeGreaterThanOrEqual(4);
  }, 90_000);

  it.runIf(kind === 'redis')(
    'two instances on one Redis and a restart: every scheduler iteration checked once, the schedule kept',
    async () => {
      replay.faults.clear();
      replay.requests.length = 0;
      const a = instances[0]!;
      const made = await a.watches.create(account, {
        locator: parseLocator({ zpid: ZPID }),
        webhookUrl: receiver.url,
        intervalHours: INTERVAL,
      });
      await until(async () => (await charges(made.id)).length >= 2, 'two checks on the first instance');
      // The first instance stops (its worker and queue); two new instances on the same Redis take over
      // the schedule without being told about the watch.
      await a.watches.close();
      const [b, c] = [await instance(), await instance()];
      const connection = bullConnection(b.svc.config);
      const queue = new Queue('watches', bullOptions(b.svc.config, 'watches', connection));
      try {
        expect(await queue.getJobSchedulersCount()).toBe(1);
        const before = (await charges(made.id)).length;
        await until(async () => (await charges(made.id)).length >= before + 4, 'four checks after the restart');
        await b.watches.remove(account, made.id);
        const removed = [a, b, c].map((i) => i.seen.mark(made.id));
        expect(await queue.getJobSchedulersCount()).toBe(0);
        const control = await c.watches.create(account, {
          locator: parseLocator({ zpid: '2146993218' }),
          webhookUrl: receiver.url,
          intervalHours: INTERVAL,
        });
        await until(
          async () => (await charges(control.id)).length >= 3 && removed.every((r) => r.over()),
          'three checks of the control, and the checks of the removed watch under way at its removal ended',
        );
        await c.watches.remove(account, control.id);
      } finally {
        await queue.close();
        // The queue leaves a connection it was given open.
        connection.disconnect();
      }
      // Each check is a BullMQ scheduler iteration (its job id, repeat:<watch>:<millis>, names the charge):
      // no iteration was checked twice, each check read the page once and was billed once.
      const billed = (await charges(made.id)).map((e) => e.requestId);
      const iterations = billed.map((id) => id.slice(`watch:${made.id}:`.length));
      for (const it of iterations) expect(it).toMatch(new RegExp(`^repeat:${made.id}:\\d+$`));
      expect(new Set(iterations).size).toBe(iterations.length);
      expect(reads(PAGE.path)).toBe(billed.length);
      // The schedule kept its pace across the restart: iterations one interval apart, none doubled.
      const millis = iterations.map((it) => Number(it.split(':').pop())).sort((x, y) => x - y);
      for (let i = 1; i < millis.length; i++)
        expect(millis[i]! - millis[i - 1]!).toBeGreaterThanOrEqual(SECONDS * 1000);
    },
    90_000,
  );
});

// Watch checks run again and racing (issue 11: "a restart or a second instance neither loses nor doubles
// a check"): the test drives the scheduler itself, so it can run one iteration twice as BullMQ does when a
// worker dies mid-check (stalled-job re-run, with the iteration's scheduled time as rerunSince) or loses
// its lock while still running. Each iteration is billed once and its change queued under one event id
// (the webhooks deliver one id once), never lost. Also: a locator that now finds another home, a read
// whose estimate section could not be read, a check the account cannot pay for. Memory store; the webhooks are a recorder whose send the test can hold.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { parseLocator } from '../../src/contract/index.js';
import { createRequestContext } from '../../src/lookup/context.js';
import { lookupOne } from '../../src/lookup/lookup.js';
import type { Account } from '../../src/store/index.js';
import type { CheckRun, WatchScheduler } from '../../src/watches/schedule.js';
import { createWatches, type Watches } from '../../src/watches/index.js';
import type { WebhookEvent, Webhooks } from '../../src/webhooks/types.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';

const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const OTHER_ZPID = '2146993218';
const OTHER = recordedPage(OTHER_ZPID);
const PRICE = 850_000;
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":${PRICE},`;
const withPrice = (price: number): string => {
  if (!PAGE.html.includes(OWN_PRICE))
    throw new Error('the recorded page no longer holds the price where this test edits it');
  return PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":${price},`);
};

/** A scheduler that runs nothing by itself: the test runs checks. */
class DrivenScheduler implements WatchScheduler {
  run: ((check: CheckRun) => Promise<void>) | null = null;
  scheduled = 0;
  async schedule(): Promise<void> {
    this.scheduled++;
  }
  async unschedule(): Promise<void> {}
  async start(run: (check: CheckRun) => Promise<void>): Promise<void> {
    this.run = run;
  }
  async close(): Promise<void> {}
}

/** Webhooks that record what was queued; `holdNext` makes the next send never return (its worker "dies" there). */
class RecordingWebhooks implements Webhooks {
  sent: WebhookEvent[] = [];
  holdNext = false;
  held = 0;
  async checkUrl(raw: unknown): Promise<string> {
    return String(raw);
  }
  async send(_account: Pick<Account, 'id'>, _url: string, event: WebhookEvent): Promise<string> {
    if (this.holdNext) {
      this.holdNext = false;
      this.held++;
      return new Promise<string>(() => undefined);
    }
    this.sent.push(event);
    return `msg_${event.id}`;
  }
  async startWorker(): Promise<void> {}
  async close(): Promise<void> {}
}

async function until(probe: () => Promise<boolean> | boolean, what: string, boundMs = 10_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached in ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let svc: TestService;
let account: Account;
let scheduler: DrivenScheduler;
let webhooks: RecordingWebhooks;
let watches: Watches;
beforeAll(async () => {
  svc = await startTestService({
    env: { WATCH_MIN_INTERVAL_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid);
});
afterAll(async () => {
  await watches?.close();
  await svc?.close();
});
beforeEach(async () => {
  await watches?.close();
  svc.replay.faults.clear();
  scheduler = new DrivenScheduler();
  webhooks = new RecordingWebhooks();
  watches = createWatches(svc.app.core, webhooks, { ...partsFor(svc.app.core).watches(), scheduler });
  await watches.startWorker();
});

const charges = async (watchId: string, iteration: string) =>
  (await svc.store.ledger(account.id)).filter((e) => e.requestId === `watch:${watchId}:${iteration}`).length;
const check = (watchId: string, iteration: string, rerunSince?: number) =>
  scheduler.run!({ account: account.id, watchId, iteration, ...(rerunSince === undefined ? {} : { rerunSince }) });

/** A watch of ZPID whose first check recorded the recorded page's values. */
async function watched(locator: Record<string, string> = { zpid: ZPID }): Promise<string> {
  const { id } = await watches.create(account, {
    locator: parseLocator(locator),
    webhookUrl: 'http://127.0.0.1:9/hooks',
    intervalHours: 1,
  });
  await check(id, 'repeat:first');
  expect((await watches.get(account, id)).last_error).toBeNull();
  expect(webhooks.sent).toEqual([]);
  return id;
}

it('a worker that died after recording a change, before queuing its event: the re-run of the iteration queues it, billed once', async () => {
  const id = await watched();
  svc.replay.faults.set(PAGE.path, { body: withPrice(801_000) });
  const scheduled = Date.now();
  webhooks.holdNext = true;
  void check(id, 'repeat:2');
  await until(() => webhooks.held === 1, 'the first run reached its send');
  // BullMQ takes the stalled iteration over: the same job id, flagged as a re-run.
  await check(id, 'repeat:2', scheduled);
  expect(webhooks.sent).toEqual([
    {
      type: 'property.changed',
      id: `${id}:repeat:2`,
      data: expect.objectContaining({ zpid: ZPID, changes: [{ field: 'price', from: PRICE, to: 801_000 }] }),
    },
  ]);
  expect(await charges(id, 'repeat:2')).toBe(1);
  // Taken over once more: the same event id again at most (the webhooks deliver an id once), nothing billed.
  await check(id, 'repeat:2', scheduled);
  expect(new Set(webhooks.sent.map((e) => e.id))).toEqual(new Set([`${id}:repeat:2`]));
  expect(await charges(id, 'repeat:2')).toBe(1);
  // The next iteration finds nothing new.
  await check(id, 'repeat:3');
  expect(new Set(webhooks.sent.map((e) => e.id)).size).toBe(1);
});

it('a worker that died after its read was billed, before recording: the re-run reads that read, bills nothing more, announces once', async () => {
  const id = await watched();
  svc.replay.faults.set(PAGE.path, { body: withPrice(802_000) });
  const scheduled = Date.now();
  // What the dead run did: the iteration's live read, billed under its request id.
  const ctx = createRequestContext(svc.app.core, account, { requestId: `watch:${id}:repeat:2` });
  await lookupOne(ctx, parseLocator({ zpid: ZPID }), { raw: false, maxAge: 0, stale: false });
  expect(await charges(id, 'repeat:2')).toBe(1);
  const reads = svc.replay.requests.filter((r) => r.path === PAGE.path).length;
  await check(id, 'repeat:2', scheduled);
  expect(await charges(id, 'repeat:2')).toBe(1);
  expect(svc.replay.requests.filter((r) => r.path === PAGE.path).length).toBe(reads);
  expect(webhooks.sent).toEqual([
    expect.objectContaining({
      id: `${id}:repeat:2`,
      data: expect.objectContaining({ changes: [{ field: 'price', from: PRICE, to: 802_000 }] }),
    }),
  ]);
});

it('two runs of one iteration at once (a worker that lost its lock, and the one that took over): billed once, one event id', async () => {
  const id = await watched();
  svc.replay.faults.set(PAGE.path, { body: withPrice(803_000) });
  const scheduled = Date.now();
  await Promise.all([check(id, 'repeat:2'), check(id, 'repeat:2', scheduled)]);
  expect(await charges(id, 'repeat:2')).toBe(1);
  expect(webhooks.sent.length).toBeGreaterThanOrEqual(1);
  expect(new Set(webhooks.sent.map((e) => e.id))).toEqual(new Set([`${id}:repeat:2`]));
  expect(webhooks.sent[0]!.data).toMatchObject({ changes: [{ field: 'price', from: PRICE, to: 803_000 }] });
});

it('a locator that now finds another home: its values are a first sighting of that home, not changes of the one watched', async () => {
  const id = await watched();
  expect((await watches.get(account, id)).home_zpid).toBe(ZPID);
  // The site now answers the watched link with another home's page (a listing moved, an address re-resolved).
  svc.replay.faults.set(PAGE.path, { body: OTHER.html });
  await check(id, 'repeat:2');
  const view = await watches.get(account, id);
  expect(view.last_error).toBeNull();
  expect(view.home_zpid).toBe(OTHER_ZPID);
  expect(webhooks.sent).toEqual([]);
});

it('a watch deleted while its check reads the home: nothing recorded or sent after, no schedule made again', async () => {
  const id = await watched();
  // The page's answer is held until the delete has landed: the check waits for it meanwhile.
  let answer!: () => void;
  svc.replay.faults.set(PAGE.path, { body: withPrice(806_000), hold: new Promise<void>((r) => (answer = r)) });
  const seen = svc.replay.requests.filter((r) => r.path === PAGE.path).length;
  const running = check(id, 'repeat:2');
  await until(
    () => svc.replay.requests.filter((r) => r.path === PAGE.path).length > seen,
    'the check reading the page',
  );
  await watches.remove(account, id);
  answer();
  await running;
  expect(webhooks.sent).toEqual([]);
  await expect(watches.get(account, id)).rejects.toMatchObject({ code: 'not_found' });
  expect(scheduler.scheduled).toBe(1);
});

const OWN_ESTIMATE = '\\"zestimate\\":887000,';
it('a read whose estimate section could not be read (extraction_failed): no estimate change either way, the kept estimate stays', async () => {
  if (!PAGE.html.includes(OWN_ESTIMATE))
    throw new Error('the recorded page no longer holds the estimate where this test edits it');
  const id = await watched();
  // The estimate in a shape the mapper does not read, and a new price: only the price is a change.
  svc.replay.faults.set(PAGE.path, {
    body: withPrice(805_000).replace(OWN_ESTIMATE, '\\"zestimate\\":{\\"odd\\":1},'),
  });
  await check(id, 'repeat:2');
  expect(webhooks.sent.map((e) => (e.data as { changes: unknown }).changes)).toEqual([
    [{ field: 'price', from: PRICE, to: 805_000 }],
  ]);
  // Read again: the estimate is what it was, no change.
  svc.replay.faults.set(PAGE.path, { body: withPrice(805_000) });
  await check(id, 'repeat:3');
  expect(webhooks.sent).toHaveLength(1);
  // And a real change of it is one.
  svc.replay.faults.set(PAGE.path, { body: withPrice(805_000).replace(OWN_ESTIMATE, '\\"zestimate\\":900000,') });
  await check(id, 'repeat:4');
  expect(webhooks.sent.map((e) => (e.data as { changes: unknown }).changes)[1]).toEqual([
    { field: 'estimate', from: 887_000, to: 900_000 },
  ]);
});

it('a check the account cannot pay for: last_error credits_exhausted, nothing billed or sent, the watch goes on', async () => {
  const tiny = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.tiny);
  const { id } = await watches.create(tiny, {
    locator: parseLocator({ zpid: ZPID }),
    webhookUrl: 'http://127.0.0.1:9/hooks',
    intervalHours: 1,
  });
  const run = (iteration: string) => scheduler.run!({ account: tiny.id, watchId: id, iteration });
  await run('repeat:1');
  expect((await watches.get(tiny, id)).last_error).toBeNull();
  svc.replay.faults.set(PAGE.path, { body: withPrice(804_000) });
  await run('repeat:2');
  const view = await watches.get(tiny, id);
  expect(view).toMatchObject({ last_error: 'credits_exhausted', home_zpid: ZPID });
  expect(view.next_check_at).not.toBeNull();
  expect((await svc.store.ledger(tiny.id)).filter((e) => e.requestId === `watch:${id}:repeat:2`)).toEqual([]);
  expect(webhooks.sent).toEqual([]);
});

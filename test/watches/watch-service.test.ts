// Watched homes through the whole service (memory store): a watch made over REST is checked by the
// background's workers (deps.background, as startService runs them), its checks show on REST and
// GraphQL, the property.changed event reaches a receiver that verifies it with standardwebhooks, and a
// watch whose account is revoked stops: no more reads of its home while another account's watch runs on.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { accountWebhookSecret } from '../../src/webhooks/secret.js';
import { postGql } from '../graphql/client.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const OTHER = recordedPage('2146993218');
const PRICE = 850_000;
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":${PRICE},`;
/** The shortest interval the service allows (WATCH_MIN_INTERVAL_SECONDS), in seconds and hours. */
const SECONDS = 0.2;
const INTERVAL = SECONDS / 3600;

async function until(probe: () => Promise<boolean> | boolean, what: string, boundMs = 30_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached in ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let svc: TestService;
let receiver: WebhookReceiver;
beforeAll(async () => {
  svc = await startTestService({
    env: { WATCH_MIN_INTERVAL_SECONDS: String(SECONDS), WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const free = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.free);
  receiver = await startWebhookReceiver({ secret: (await accountWebhookSecret(svc.store, free.id))! });
  await svc.app.background.startWorkers();
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const reads = (path: string) => svc.replay.requests.filter((r) => r.path === path).length;

it('a watch made over REST is checked by the workers: billed, shown on REST and GraphQL, its change sent; revoked, it stops', async () => {
  const made = await svc.post('/v1/portal/watches', {
    zpid: ZPID,
    webhook_url: receiver.url,
    interval_hours: INTERVAL,
  });
  expect(made.status).toBe(201);
  const id: string = made.body.data.id;
  await until(async () => (await svc.get(`/v1/portal/watches/${id}`)).body.data.home_zpid === ZPID, 'the first check');
  const view = (await svc.get(`/v1/portal/watches/${id}`)).body.data;
  expect(view.last_error).toBeNull();
  expect(Date.parse(view.next_check_at) - Date.parse(view.last_checked_at)).toBe(SECONDS * 1000);
  const gql = await postGql(svc, { query: `{ watches { id homeZpid lastCheckedAt } }` });
  expect(gql.body.data.watches).toContainEqual({ id, homeZpid: ZPID, lastCheckedAt: expect.any(String) });
  // Billed as lookups: the account's usage counts each check.
  expect((await svc.get('/v1/account')).body.data.used).toBeGreaterThanOrEqual(1);

  svc.replay.faults.set(PAGE.path, { body: PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":812000,`) });
  const [event] = await receiver.waitFor((events) => events.length >= 1);
  expect(event!.data).toMatchObject({
    zpid: ZPID,
    changes: [{ field: 'price', from: PRICE, to: 812_000 }],
    data: { zpid: ZPID, price: 812_000 },
  });

  // The key is revoked: the watch stops (its schedule removed) and says why. The check that found it
  // revoked wrote that; no other check of it runs (the timers never run two checks of a watch at once).
  const free = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.free);
  await svc.store.putAccount({ ...free, revoked: true });
  const watches = svc.app.background.watches;
  await until(async () => (await watches.get(free, id)).next_check_at === null, 'the watch stopped');
  expect((await watches.get(free, id)).last_error).toBe('invalid_api_key');
  // Another account's watch runs on; the revoked one's home is read no more.
  const control = await svc.post(
    '/v1/portal/watches',
    { zpid: '2146993218', webhook_url: receiver.url, interval_hours: INTERVAL },
    svc.keys.paid,
  );
  expect(control.status).toBe(201);
  const otherReads = reads(OTHER.path);
  await until(() => reads(OTHER.path) >= otherReads + 2, 'two checks of the control');
  const stopped = reads(PAGE.path);
  await until(() => reads(OTHER.path) >= otherReads + 4, 'two more checks of the control');
  expect(reads(PAGE.path)).toBe(stopped);
  expect(
    (
      await svc.fetch(`${svc.url}/v1/portal/watches/${control.body.data.id}`, {
        method: 'DELETE',
        headers: { 'x-api-key': svc.keys.paid! },
      })
    ).status,
  ).toBe(204);
}, 90_000);

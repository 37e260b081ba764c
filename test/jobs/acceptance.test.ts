// Issue 11's acceptance run: a 2,000-item job (links, zpids and addresses mixed, some bad, many
// duplicates) against the local site, on Redis with BullMQ, completes with each home billed once (the
// results' credits, the job's counters and the ledger agree) and one signed job.completed webhook,
// verified by a receiver using the standardwebhooks package.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import type { JobView } from '../../src/jobs/types.js';
import type { Account } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { follow, jobCharges, resultsOf } from './helpers.js';
import { manyHomesCatalog, manyZpids } from './many-homes.js';

const HOMES = manyZpids(770_000_000, 250);
/** Two catalog homes by address (Ames is zpid 114303858, San Francisco 15192198). */
const ADDRESSES = ['2435 Aspen Rd Unit 104, Ames, IA 50010', { address: '661 Lakeview Ave, San Francisco, CA 94112' }];
const BAD: unknown[] = [{ zpid: 'nope' }, 42, {}, { zpid: '1', url: 'https://www.zillow.com/homedetails/1_zpid/' }];
const COUNT = 2_000;

/** Item i: a bad one every 40th, an address every 97th, else one of HOMES (so each about 8 times) as a zpid, a link object or a link string. */
function itemAt(i: number): unknown {
  if (i % 40 === 7) return BAD[((i / 40) % BAD.length) | 0];
  if (i % 97 === 3) return ADDRESSES[i % ADDRESSES.length];
  const zpid = HOMES[(i * 7919) % HOMES.length]!;
  const link = `https://www.zillow.com/homedetails/${zpid}_zpid/`;
  return i % 3 === 0 ? { zpid } : i % 3 === 1 ? { url: link } : link;
}
const ITEMS = Array.from({ length: COUNT }, (_, i) => itemAt(i));
const BAD_COUNT = ITEMS.filter((_, i) => i % 40 === 7).length;

let redis: RedisServer;
let svc: TestService;
let receiver: WebhookReceiver;
let account: Account;

beforeAll(async () => {
  redis = await startRedisServer();
  const secret = newWebhookSecret();
  receiver = await startWebhookReceiver({ secret });
  const prefix = `acc${randomUUID().slice(0, 6)}:`;
  svc = await startTestService({
    store: await RedisStore.connect(redis.url, { prefix }),
    replay: { catalog: manyHomesCatalog(HOMES) },
    accounts: {
      paid: { key: 'test_paid_key_0001', plan: 'paid', included: 10_000, overage: false, webhookSecret: secret },
    },
    env: {
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      JOB_CONCURRENCY: '4',
    },
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.paid!);
  await svc.app.background.startWorkers();
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await receiver?.close();
  if (redis) await disposeRedisServer(redis);
});

describe('a 2,000-item job', () => {
  let id: string;
  let final: JobView;

  beforeAll(async () => {
    const { jobs } = svc.app.background;
    id = (await jobs.create(account, { items: ITEMS, webhookUrl: receiver.url, options: { raw: false } })).id;
    final = (await follow(jobs, account, id)).pop()!;
  }, 120_000);

  it('completes, every item done, the bad ones failed', () => {
    expect(final).toMatchObject({
      status: 'completed',
      count: COUNT,
      done: COUNT,
      failed: BAD_COUNT,
      succeeded: COUNT - BAD_COUNT,
      waiting: 0,
    });
  });

  it('bills each home once: results, counters and ledger agree', async () => {
    const lines = await resultsOf(svc.app.background.jobs, account, id);
    expect(lines.map((l) => l.index)).toEqual(ITEMS.map((_, i) => i));
    expect(lines.filter((l) => !l.ok).map((l) => l.index)).toEqual(ITEMS.flatMap((_, i) => (i % 40 === 7 ? [i] : [])));
    const billed = lines.filter((l) => l.ok && l.meta.credits === 1);
    const charges = await jobCharges(svc.store, account.id, id);
    // The distinct homes: HOMES and the two the addresses lead to.
    expect(charges).toHaveLength(HOMES.length + 2);
    expect(new Set(charges.map((c) => c.cacheKey)).size).toBe(charges.length);
    expect(billed.map((l) => `zpid:${l.data.zpid}`).sort()).toEqual(charges.map((c) => c.cacheKey).sort());
    expect(final.credits).toBe(charges.length);
    expect(final.cache_hits).toBe(COUNT - BAD_COUNT - charges.length);
  });

  it('sends one signed job.completed webhook, verified with standardwebhooks', async () => {
    const events = await receiver.waitFor(
      (es) => es.some((e) => e.type === 'job.completed' && (e.data as JobView).id === id),
      20_000,
    );
    const mine = events.filter((e) => (e.data as JobView).id === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.data).toMatchObject({ id, status: 'completed', count: COUNT, done: COUNT, credits: final.credits });
  });
});

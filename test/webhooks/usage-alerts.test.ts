// Usage alerts: set with the accounts command (its URL checked, its thresholds read), each threshold reached
// sends one signed `account.usage_threshold` event to the account's URL, once per period, even when two
// charges cross it at once; on the memory store (in-process deliveries) and on Redis (BullMQ).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { runAdmin } from '../../src/accounts/admin.js';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const HOMES = ['2146993218', '114303858', '15192198', '450233440'];

describe.each([
  ['memory', false],
  ['redis', true],
])('usage alerts on the %s store', (_name, onRedis) => {
  let svc: TestService;
  let redis: RedisServer | undefined;
  let store: RedisStore | undefined;
  let receiver: WebhookReceiver;
  const secret = newWebhookSecret();
  const key = `alert_key_${randomUUID().slice(0, 8)}`;
  let accountId: string;

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const code = await runAdmin(
      argv,
      { store: svc.store, secret: svc.config.apiKeySecret },
      {
        out: (l) => out.push(l),
        err: (l) => out.push(l),
      },
    );
    return { code, text: out.join('\n') };
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret });
    const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    if (onRedis) {
      redis = await startRedisServer();
      store = await RedisStore.connect(redis.url, { prefix: `alert${randomUUID().slice(0, 6)}:` });
      env.REDIS_URL = redis.url;
    }
    const accounts = { alert: { key, plan: 'free' as const, allotment: HOMES.length, webhookSecret: secret } };
    svc = await startTestService({ env, accounts, ...(store ? { store } : {}) });
    await svc.app.background.startWorkers();
    accountId = seededAccountId(hashApiKey(key, svc.config.apiKeySecret));
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await store?.close();
    if (redis) await disposeRedisServer(redis);
  });

  it('the accounts command sets them (URL and thresholds checked), shows them, and clears them', async () => {
    expect((await admin('set-usage-alert', accountId, '--url', 'ftp://x.example')).code).toBe(2);
    expect((await admin('set-usage-alert', accountId, '--url', receiver.url, '--thresholds', '0,50')).code).toBe(2);
    expect((await admin('set-usage-alert', accountId, '--thresholds', '50')).code).toBe(2);
    expect((await admin('set-usage-alert', 'acct_none', '--url', receiver.url)).code).toBe(3);
    const set = await admin('set-usage-alert', accountId, '--url', receiver.url, '--thresholds', '100,50%,75');
    expect(set.code).toBe(0);
    expect(set.text).toContain('50%, 75%, 100% of allotment (4 lookups)');
    expect((await svc.store.getAccount(accountId))?.usageAlert).toEqual({
      url: receiver.url,
      thresholds: [50, 75, 100],
    });
    expect((await admin('show', accountId)).text).toMatch(/Alerts\s+50%, 75%, 100%/);
    expect((await admin('clear-usage-alert', accountId)).code).toBe(0);
    expect((await svc.store.getAccount(accountId))?.usageAlert).toBeUndefined();
    expect((await admin('set-usage-alert', accountId, '--url', receiver.url, '--thresholds', '50,75,100')).code).toBe(
      0,
    );
  });

  it('each threshold reached sends one signed event, once, even when two charges cross it together', async () => {
    // Two live reads at once reach 50% (2 of 4): both charges see it, one event.
    const batch = await svc.post('/v1/portal/batch', { items: HOMES.slice(0, 2).map((zpid) => ({ zpid })) }, key);
    expect(batch.body.meta.credits).toBe(2);
    await receiver.waitFor((e) => e.length >= 1);
    // A hit charges nothing; then 75% and 100%.
    expect((await svc.get(`/v1/portal/property?zpid=${HOMES[0]}`, key)).body.meta.credits).toBe(0);
    expect((await svc.get(`/v1/portal/property?zpid=${HOMES[2]}`, key)).body.meta.credits).toBe(1);
    await receiver.waitFor((e) => e.length >= 2);
    expect((await svc.get(`/v1/portal/property?zpid=${HOMES[3]}`, key)).body.meta.credits).toBe(1);
    const events = await receiver.waitFor((e) => e.length >= 3);
    expect(events.map((e) => e.type)).toEqual([
      'account.usage_threshold',
      'account.usage_threshold',
      'account.usage_threshold',
    ]);
    expect(events.map((e) => (e.data as any).threshold_percent)).toEqual([50, 75, 100]);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(events[0]!.data).toMatchObject({
      account_id: accountId,
      period: 'lifetime',
      basis: 'allotment',
      limit: 4,
      overage_used: 0,
      period_end: null,
    });
    expect((events[0]!.data as any).used).toBeGreaterThanOrEqual(2);
    expect(events[2]!.data).toMatchObject({ used: 4 });
    // Every attempt verified with the account's secret; none of them twice.
    expect(receiver.attempts.every((a) => a.verified)).toBe(true);
    expect(receiver.attempts).toHaveLength(3);
    // Claimed for the period in the store: no other instance sends them again.
    for (const t of ['50', '75', '100']) expect(await svc.store.markUsageAlert(accountId, 'lifetime', t)).toBe(false);
  });
});

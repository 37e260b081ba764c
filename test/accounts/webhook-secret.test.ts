// The account's webhook signing secret: made at create and printed once beside the key, rotated with
// rotate-webhook-secret (printed once), never shown by list/show; accounts stored before webhooks
// existed still load and sign with a derived one, never written; ACCOUNTS_FILE may set it (validated).
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createAccount, EXIT, revokeAccount, rotateWebhookSecret, runAdmin } from '../../src/accounts/admin.js';
import { hashApiKey } from '../../src/accounts/keys.js';
import { accountFromSeed, parseSeeds, seedAccounts } from '../../src/accounts/seed.js';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Account, AccountStore, Store } from '../../src/store/types.js';
import { isWebhookSecret, newWebhookSecret, signWebhook, verifyWebhook } from '../../src/contract/webhook-signature.js';
import { accountWebhookSecret, accountWebhookSecrets } from '../../src/webhooks/secret.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const SECRET = 'test-secret-for-webhook-secrets';
const WHSEC_RE = /whsec_[A-Za-z0-9+/=]+/g;

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(server);
});

async function run(store: Store, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, { store, secret: SECRET }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const idOf = (out: string): string => /acct_[0-9a-f]{16}/.exec(out)![0];
const secretsIn = (out: string): string[] => out.match(WHSEC_RE) ?? [];

const factories: [string, () => Promise<Store>][] = [
  ['memory', async () => new MemoryStore()],
  ['redis', () => RedisStore.connect(server.url, { prefix: `whs${randomUUID().slice(0, 8)}:` })],
];

for (const [label, factory] of factories) {
  describe(`webhook secrets on the ${label} store`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('create prints the secret once beside the key; list and show never print it', async () => {
      const created = await run(store, 'create');
      expect(created.code).toBe(EXIT.ok);
      const [secret, ...more] = secretsIn(created.out);
      expect(more).toEqual([]);
      expect(isWebhookSecret(secret)).toBe(true);
      expect(Buffer.from(secret!.slice('whsec_'.length), 'base64')).toHaveLength(24);
      const id = idOf(created.out);
      expect((await store.getAccount(id))?.webhookSecret).toBe(secret);
      for (const argv of [['list'], ['list', '--json'], ['show', id], ['show', id, '--json']]) {
        const r = await run(store, ...argv);
        expect(r.code).toBe(EXIT.ok);
        expect(r.out).not.toContain('whsec_');
      }
    });

    it('rotate-webhook-secret prints a new secret once and stores it', async () => {
      const id = idOf((await run(store, 'create')).out);
      const before = (await store.getAccount(id))!.webhookSecret;
      const r = await run(store, 'rotate-webhook-secret', id);
      expect(r.code).toBe(EXIT.ok);
      const [secret, ...more] = secretsIn(r.out);
      expect(more).toEqual([]);
      expect(secret).not.toBe(before);
      expect((await store.getAccount(id))!.webhookSecret).toBe(secret);
      expect(await accountWebhookSecret(store, id, SECRET)).toBe(secret);
      expect((await run(store, 'rotate-webhook-secret', 'acct_nope')).code).toBe(EXIT.notFound);
      expect((await run(store, 'rotate-webhook-secret')).code).toBe(EXIT.usage);
      expect((await run(store, 'rotate-webhook-secret', id, '--json')).code).toBe(EXIT.usage);
      await run(store, 'revoke', id);
      expect((await run(store, 'rotate-webhook-secret', id)).code).toBe(EXIT.usage);
    });

    it('after a rotation deliveries carry both signatures for 24 hours (a receiver on either secret verifies), then the new one only', async () => {
      const { account } = await createAccount(store, SECRET, {});
      const old = account.webhookSecret!;
      const at = new Date('2026-11-24T00:00:00.000Z');
      const { secret } = await rotateWebhookSecret(store, account.id, at);
      const body = JSON.stringify({ type: 'job.completed', timestamp: at.toISOString(), data: {} });
      const day = 24 * 3600_000;
      expect(await accountWebhookSecrets(store, account.id, SECRET, new Date(at.getTime() + day - 1000))).toEqual([
        secret,
        old,
      ]);
      expect(await accountWebhookSecrets(store, account.id, SECRET, new Date(at.getTime() + day + 1000))).toEqual([
        secret,
      ]);
      // The previous secret is never shown.
      for (const argv of [['list'], ['list', '--json'], ['show', account.id, '--json']])
        expect((await run(store, ...argv)).out).not.toContain(old);
      // What a receiver sees (standardwebhooks checks the timestamp with the real clock): two v1 signatures,
      // each verifying with its secret; a rotation again within the day drops the oldest.
      const now = new Date();
      const fresh = await rotateWebhookSecret(store, account.id, now);
      const t = Math.floor(now.getTime() / 1000);
      const live = {
        ...signWebhook((await accountWebhookSecrets(store, account.id, SECRET, now))!, 'msg_live', t, body),
      };
      expect(live['webhook-signature'].split(' ')).toHaveLength(2);
      expect(new Webhook(fresh.secret).verify(body, live)).toEqual(JSON.parse(body));
      expect(new Webhook(secret).verify(body, live)).toEqual(JSON.parse(body));
      expect(verifyWebhook(secret, live, body)).toEqual(JSON.parse(body));
      expect(() => new Webhook(old).verify(body, live)).toThrow();
    });

    it('an account stored without a secret loads, and signs with a derived one, stable and its own, never stored', async () => {
      const old = {
        id: 'acct_0123456789abcdef',
        keyHash: hashApiKey('pl_live_old', SECRET),
        keyPrefix: 'pl_live_old',
        plan: 'free',
        allotment: 50,
        included: 0,
        overage: false,
        overageRateUsd: 0,
        spendLimitUsd: null,
        paymentFailing: false,
        revoked: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        label: null,
      } satisfies Account;
      await store.putAccount(old);
      expect(await store.getAccountByKeyHash(old.keyHash)).toEqual(old);
      const secret = await accountWebhookSecret(store, old.id, SECRET);
      expect(isWebhookSecret(secret)).toBe(true);
      expect(await store.getAccount(old.id)).toEqual(old);
      // The same in every process (and every call); another account's or another server secret's differs.
      expect(await accountWebhookSecret(store, old.id, SECRET)).toBe(secret);
      expect(await accountWebhookSecret(store, old.id, `${SECRET}-other`)).not.toBe(secret);
      await store.putAccount({ ...old, id: 'acct_0123456789abcdee' });
      expect(await accountWebhookSecret(store, 'acct_0123456789abcdee', SECRET)).not.toBe(secret);
      expect(await accountWebhookSecret(store, 'acct_gone', SECRET)).toBeNull();
      // Rotating gives it a secret of its own, which signs from then on.
      const rotated = secretsIn((await run(store, 'rotate-webhook-secret', old.id)).out)[0];
      expect(await accountWebhookSecret(store, old.id, SECRET)).toBe(rotated);
    });

    it('an account without a secret is never written by signing: a revoke landing meanwhile stays', async () => {
      const old = {
        id: 'acct_00000000000000aa',
        keyHash: hashApiKey('pl_live_race', SECRET),
        keyPrefix: 'pl_live_rac',
        plan: 'free',
        allotment: 50,
        included: 0,
        overage: false,
        overageRateUsd: 0,
        spendLimitUsd: null,
        paymentFailing: false,
        revoked: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        label: null,
      } satisfies Account;
      await store.putAccount(old);
      // The admin's revoke lands between the signer's read of the account and anything it would write.
      let raced = false;
      const racing: AccountStore = {
        getAccountByKeyHash: (h) => store.getAccountByKeyHash(h),
        getAccount: async (id) => {
          const read = await store.getAccount(id);
          if (!raced) {
            raced = true;
            await revokeAccount(store, id);
          }
          return read;
        },
        putAccount: (a) => store.putAccount(a),
        listAccounts: () => store.listAccounts(),
        watchAccounts: (f) => store.watchAccounts(f),
      };
      const secret = await accountWebhookSecret(racing, old.id, SECRET);
      expect(isWebhookSecret(secret)).toBe(true);
      expect(await store.getAccount(old.id)).toEqual({ ...old, revoked: true });
    });

    it('ACCOUNTS_FILE may set webhook_secret; re-seeding without it keeps the stored one', async () => {
      const given = newWebhookSecret();
      const [seed] = parseSeeds([{ key: 'pl_seed_1234', plan: 'free', webhook_secret: given }]);
      await seedAccounts(store, [seed!], SECRET);
      const [account] = await store.listAccounts();
      expect(account!.webhookSecret).toBe(given);
      const [plain] = parseSeeds([{ key: 'pl_seed_1234', plan: 'free' }]);
      await seedAccounts(store, [plain!], SECRET);
      expect((await store.getAccount(account!.id))!.webhookSecret).toBe(given);
      // Rotated, then re-seeded (a restart): the new secret and the previous one's grace both stay.
      const { secret: rotated } = await rotateWebhookSecret(store, account!.id);
      await seedAccounts(store, [plain!], SECRET);
      expect(await accountWebhookSecrets(store, account!.id, SECRET, new Date())).toEqual([rotated, given]);
    });
  });
}

describe('ACCOUNTS_FILE webhook_secret', () => {
  it('is validated: whsec_ + base64 of 24 to 64 bytes', () => {
    const b64 = (n: number) => Buffer.alloc(n, 7).toString('base64');
    for (const ok of [`whsec_${b64(24)}`, `whsec_${b64(32)}`, `whsec_${b64(64)}`]) {
      expect(parseSeeds([{ key: 'pl_seed_1234', plan: 'free', webhook_secret: ok }])[0]!.webhookSecret).toBe(ok);
    }
    for (const bad of [`whsec_${b64(23)}`, `whsec_${b64(65)}`, b64(32), 'whsec_not base64!', 42, '']) {
      expect(() => parseSeeds([{ key: 'pl_seed_1234', plan: 'free', webhook_secret: bad }]), String(bad)).toThrow(
        /webhook_secret/,
      );
    }
  });

  it('a seed without one gets a new secret of its own', () => {
    const [seed] = parseSeeds([{ key: 'pl_seed_1234', plan: 'free' }]);
    const a = accountFromSeed(seed!, SECRET, null, new Date());
    const b = accountFromSeed(seed!, SECRET, null, new Date());
    expect(isWebhookSecret(a.webhookSecret)).toBe(true);
    expect(a.webhookSecret).not.toBe(b.webhookSecret);
  });
});

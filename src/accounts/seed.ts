// ACCOUNTS_FILE: accounts created or updated at start-up, idempotently, and again whenever the
// store is found to have lost its data.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Account, AccountStore, StoreConnection } from '../store/index.js';
import { isWebhookSecret, newWebhookSecret } from '../contract/webhook-signature.js';
import { hashApiKey, seededAccountId, visiblePrefix } from './keys.js';
import { FREE_ALLOTMENT } from './plans.js';

export interface AccountSeed {
  key: string;
  plan: 'free' | 'paid';
  allotment?: number;
  included?: number;
  overage?: boolean;
  overageRateUsd?: number;
  spendLimitUsd?: number;
  paymentFailing?: boolean;
  label?: string;
  /** The webhook signing secret (whsec_ + base64 of 24 to 64 bytes); else the stored one, else a new one. */
  webhookSecret?: string;
}

const nonNegative = (v: unknown, name: string, i: number): number | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new Error(`ACCOUNTS_FILE[${i}].${name} must be a number >= 0`);
  return v;
};

export function parseSeeds(json: unknown): AccountSeed[] {
  if (!Array.isArray(json)) throw new Error('ACCOUNTS_FILE must hold a JSON array of accounts');
  return json.map((s, i) => {
    if (!s || typeof s !== 'object') throw new Error(`ACCOUNTS_FILE[${i}] must be an object`);
    const o = s as Record<string, unknown>;
    if (typeof o.key !== 'string' || o.key.length < 8)
      throw new Error(`ACCOUNTS_FILE[${i}].key must be a string of 8+ characters`);
    if (o.plan !== 'free' && o.plan !== 'paid') throw new Error(`ACCOUNTS_FILE[${i}].plan must be "free" or "paid"`);
    const seed: AccountSeed = { key: o.key, plan: o.plan };
    const allotment = nonNegative(o.allotment, 'allotment', i);
    const included = nonNegative(o.included, 'included', i);
    const overageRateUsd = nonNegative(o.overageRateUsd, 'overageRateUsd', i);
    const spendLimitUsd = nonNegative(o.spendLimitUsd, 'spendLimitUsd', i);
    if (allotment !== undefined) seed.allotment = allotment;
    if (included !== undefined) seed.included = included;
    if (overageRateUsd !== undefined) seed.overageRateUsd = overageRateUsd;
    if (spendLimitUsd !== undefined) seed.spendLimitUsd = spendLimitUsd;
    if (typeof o.overage === 'boolean') seed.overage = o.overage;
    if (typeof o.paymentFailing === 'boolean') seed.paymentFailing = o.paymentFailing;
    if (typeof o.label === 'string') seed.label = o.label;
    if (o.webhook_secret !== undefined) {
      if (!isWebhookSecret(o.webhook_secret))
        throw new Error(`ACCOUNTS_FILE[${i}].webhook_secret must be whsec_ followed by the base64 of 24 to 64 bytes`);
      seed.webhookSecret = o.webhook_secret;
    }
    return seed;
  });
}

export function accountFromSeed(seed: AccountSeed, secret: string, existing: Account | null, now: Date): Account {
  const keyHash = hashApiKey(seed.key, secret);
  const webhookSecret =
    seed.webhookSecret ?? (isWebhookSecret(existing?.webhookSecret) ? existing.webhookSecret : newWebhookSecret());
  // A re-seed keeping the rotated secret keeps the rotation's grace too (a restart must not end it early).
  const previous =
    existing?.previousWebhookSecret && webhookSecret === existing.webhookSecret
      ? { previousWebhookSecret: existing.previousWebhookSecret }
      : {};
  return {
    id: existing?.id ?? seededAccountId(keyHash),
    keyHash,
    keyPrefix: visiblePrefix(seed.key),
    plan: seed.plan,
    allotment: seed.allotment ?? FREE_ALLOTMENT,
    included: seed.included ?? 0,
    overage: seed.overage ?? false,
    overageRateUsd: seed.overageRateUsd ?? 0,
    spendLimitUsd: seed.spendLimitUsd ?? null,
    paymentFailing: seed.paymentFailing ?? false,
    revoked: false,
    createdAt: existing?.createdAt ?? now.toISOString(),
    label: seed.label ?? existing?.label ?? null,
    webhookSecret,
    ...previous,
    // Set with the accounts command, not the file: a re-seed keeps it.
    ...(existing?.usageAlert ? { usageAlert: existing.usageAlert } : {}),
  };
}

/** Upserts every seed; returns how many. Usage already recorded is kept. */
export async function seedAccounts(
  store: AccountStore,
  seeds: AccountSeed[],
  secret: string,
  now = new Date(),
): Promise<number> {
  for (const seed of seeds) {
    const existing = await store.getAccount(seededAccountId(hashApiKey(seed.key, secret)));
    await store.putAccount(accountFromSeed(seed, secret, existing, now));
  }
  return seeds.length;
}

export async function seedAccountsFromFile(store: AccountStore, path: string, secret: string): Promise<number> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`ACCOUNTS_FILE ${path} is not valid JSON: ${(e as Error).message}`);
  }
  return seedAccounts(store, parseSeeds(json), secret);
}

/**
 * Seeds the accounts file again (read afresh) whenever the store is found to have lost its data
 * (Store.onReset: Redis restarted empty). Until that succeeds the store reports store_unavailable.
 */
export function reseedOnStoreReset(
  store: AccountStore & Pick<StoreConnection, 'onReset'>,
  file: string,
  secret: string,
  logger: Logger,
): void {
  store.onReset(async () => {
    try {
      const n = await seedAccountsFromFile(store, file, secret);
      logger.warn({ accounts: n, file }, 'the store had lost its data: accounts seeded again');
    } catch (err) {
      logger.error({ err, file }, 'the store lost its data and the accounts file could not be seeded again');
      throw err;
    }
  });
}

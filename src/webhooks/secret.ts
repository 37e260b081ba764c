// The account's webhook signing secret, read when an attempt is signed (so a rotation applies to the
// retries still to come). An account made before webhooks has none: one is made and stored the first
// time it is needed; its holder sees it only by rotating (`npm run accounts -- rotate-webhook-secret`).
import type { Account, AccountStore } from '../store/index.js';
import { isWebhookSecret, newWebhookSecret } from './sign.js';

/** The account's secret, made and stored if it has none; null when the account is gone. */
export async function accountWebhookSecret(store: AccountStore, accountId: string): Promise<string | null> {
  const account = await store.getAccount(accountId);
  if (!account) return null;
  if (isWebhookSecret(account.webhookSecret)) return account.webhookSecret;
  const updated: Account = { ...account, webhookSecret: newWebhookSecret() };
  await store.putAccount(updated);
  // Read back: if two processes made one at once, the stored one is the one that counts.
  const stored = await store.getAccount(accountId);
  return stored && isWebhookSecret(stored.webhookSecret) ? stored.webhookSecret : updated.webhookSecret!;
}

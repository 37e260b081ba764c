// The account's webhook signing secret, read when an attempt is signed (so a rotation applies to the
// retries still to come), with the one a rotation replaced while its grace lasts. An account made before
// webhooks has none: it is signed with one derived from the server secret and the account id, the same
// in every process, never written (a write here would replace the whole account and could undo a revoke
// or key rotation made meanwhile). Its holder gets a secret of their own by rotating
// (`npm run accounts -- rotate-webhook-secret`).
import { createHmac } from 'node:crypto';
import type { Account, AccountStore } from '../store/index.js';
import { isWebhookSecret } from '../contract/webhook-signature.js';

/** The stand-in secret of an account that has none: whsec_ + 32 bytes keyed by the server secret. */
export const derivedWebhookSecret = (serverSecret: string, accountId: string): string =>
  `whsec_${createHmac('sha256', serverSecret).update(`webhook-secret\0${accountId}`).digest('base64')}`;

const secretOf = (account: Account, serverSecret: string | undefined): string => {
  if (isWebhookSecret(account.webhookSecret)) return account.webhookSecret;
  if (serverSecret === undefined) throw new Error(`Account ${account.id} has no stored webhook secret`);
  return derivedWebhookSecret(serverSecret, account.id);
};

/**
 * The account's secret (its stored one, else the one derived with `serverSecret`, API_KEY_SECRET); null
 * when the account is gone. Without `serverSecret` (tests reading a created or seeded account's) an
 * account without a stored secret is an error.
 */
export async function accountWebhookSecret(
  store: AccountStore,
  accountId: string,
  serverSecret?: string,
): Promise<string | null> {
  const account = await store.getAccount(accountId);
  return account ? secretOf(account, serverSecret) : null;
}

/** What an attempt signs with at `now`: the account's secret, then the one a rotation replaced while its grace lasts. */
export async function accountWebhookSecrets(
  store: AccountStore,
  accountId: string,
  serverSecret: string,
  now: Date,
): Promise<string[] | null> {
  const account = await store.getAccount(accountId);
  if (!account) return null;
  const current = secretOf(account, serverSecret);
  const previous = account.previousWebhookSecret;
  const lasts =
    previous &&
    isWebhookSecret(previous.secret) &&
    previous.secret !== current &&
    Date.parse(previous.until) > now.getTime();
  return lasts ? [current, previous.secret] : [current];
}

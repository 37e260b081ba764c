// Accounts in the store: looked up by the keyed hash of their API key, written by seeding and the
// accounts command, watched so every instance forgets cached keys when one changes.

export type Plan = 'free' | 'paid';

export interface Account {
  id: string;
  /** HMAC-SHA256 (hex) of the API key under the server secret; the key itself is never stored. */
  keyHash: string;
  /** The key's first characters, shown to support and to the holder. */
  keyPrefix: string;
  plan: Plan;
  /** Free plan: one-time lookups. */
  allotment: number;
  /** Paid plan: lookups included per billing period. */
  included: number;
  overage: boolean;
  overageRateUsd: number;
  spendLimitUsd: number | null;
  paymentFailing: boolean;
  revoked: boolean;
  createdAt: string;
  label: string | null;
  /**
   * Signs this account's webhooks (Standard Webhooks: `whsec_` + base64 of the key). Absent on accounts
   * made before webhooks: they are signed with one derived from the server secret (src/webhooks/secret.ts).
   */
  webhookSecret?: string;
  /** The secret a rotation replaced: deliveries carry its signature too until `until`, so receivers can switch over. */
  previousWebhookSecret?: { secret: string; until: string };
  /**
   * Usage alerts (docs/accounts.md): a signed `account.usage_threshold` event to `url` once per period when
   * the lookups used reach each of `thresholds` (whole percents, ascending) of the plan's limit.
   */
  usageAlert?: { url: string; thresholds: number[] };
}

export interface AccountStore {
  getAccountByKeyHash(keyHash: string): Promise<Account | null>;
  getAccount(id: string): Promise<Account | null>;
  /** Creates or replaces an account (and its key index). */
  putAccount(account: Account): Promise<void>;
  listAccounts(): Promise<Account[]>;
  /**
   * Calls `onChange` after any account is written (by any instance or the accounts command), and
   * whenever such a notice may have been missed (the store was unreachable). Returns how to stop.
   */
  watchAccounts(onChange: () => void): () => void;
}

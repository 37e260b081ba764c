import { LookupError } from '../contract/index.js';
import type { Account, Store } from '../store/index.js';
import { hashApiKey, sameDigest } from './keys.js';

/**
 * Who is calling (spec 5). Runs before validation. A store that cannot be reached answers
 * store_unavailable (503), never a 401.
 */
export async function authenticate(store: Store, secret: string, header: string | string[] | undefined): Promise<Account> {
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || key.trim() === '') throw new LookupError('missing_api_key');
  const keyHash = hashApiKey(key.trim(), secret);
  const account = await store.getAccountByKeyHash(keyHash);
  if (!account || account.revoked || !sameDigest(account.keyHash, keyHash)) throw new LookupError('invalid_api_key');
  return account;
}

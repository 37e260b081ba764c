import { LookupError } from '../contract/index.js';
import type { Account, AccountStore } from '../store/index.js';
import type { AuthCache } from './auth-cache.js';
import { hashApiKey, sameDigest } from './keys.js';

/**
 * Who is calling (spec 5). Runs before validation. A store that cannot be reached answers
 * store_unavailable (503), never a 401. A key checked moments ago is answered from `cache`;
 * refused keys are never remembered.
 */
export async function authenticate(
  store: AccountStore,
  secret: string,
  header: string | string[] | undefined,
  cache?: AuthCache,
): Promise<Account> {
  const raw = Array.isArray(header) ? header[0] : header;
  const key = raw?.trim();
  if (!key) throw new LookupError('missing_api_key');
  // The cache is keyed by the keyed hash: no plaintext key is kept in memory past this request.
  const keyHash = hashApiKey(key, secret);
  const known = cache?.get(keyHash);
  if (known) return known;
  const changesBefore = cache?.changes ?? 0;
  const account = await store.getAccountByKeyHash(keyHash);
  if (!account || account.revoked || !sameDigest(account.keyHash, keyHash)) throw new LookupError('invalid_api_key');
  cache?.remember(keyHash, account, changesBefore);
  return account;
}

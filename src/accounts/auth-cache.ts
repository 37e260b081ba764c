// API keys already checked, remembered for a few seconds in this process by their keyed hash (never
// the plaintext key), so a request's authentication costs no store read. Bounded (least recently used keys go first).
// Any account change (revoke, key rotation, plan), written by any instance or the accounts command,
// empties it: the store tells every instance (Store.watchAccounts), and the short lifetime bounds a
// notice missed while the store was unreachable.
import type { Account } from '../store/index.js';
import { LRUCache } from 'lru-cache';

/** Keys remembered at most. */
const MAX_KEYS = 10_000;

export class AuthCache {
  readonly #keys = new LRUCache<string, { account: Account; until: number }>({ max: MAX_KEYS });
  /** Counts the changes seen, so an account read before one is not remembered after it. */
  #changes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The account of a key (by its hashApiKey) checked less than ttl ago, if no account changed since. */
  get(keyHash: string): Account | null {
    const hit = this.#keys.get(keyHash);
    if (!hit) return null;
    if (hit.until > this.now()) return hit.account;
    this.#keys.delete(keyHash);
    return null;
  }

  /** Taken before reading an account from the store; hand it to remember(). */
  get changes(): number {
    return this.#changes;
  }

  /** Remembers the account read for a key's hash, unless an account changed while it was being read. */
  remember(keyHash: string, account: Account, changesBefore: number): void {
    if (this.ttlMs <= 0 || changesBefore !== this.#changes) return;
    this.#keys.set(keyHash, { account, until: this.now() + this.ttlMs });
  }

  /** An account changed somewhere (or a notice may have been missed): forget every key. */
  forgetAll(): void {
    this.#changes += 1;
    this.#keys.clear();
  }
}

// The single-flight lock in the store: one instance reads a home while the others wait for its entry.

export interface LockRef {
  key: string;
  token: string;
}

export interface LockStore {
  /** Single flight across instances: an expiring lock that only the token's owner can release. */
  tryLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  unlock(key: string, token: string): Promise<void>;
  /** Extends locks this token holds to `ttlMs` from now; returns the keys no longer held under their token. */
  renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]>;
}

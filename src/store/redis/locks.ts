// The single-flight lock on Redis (LockStore): `Plock:<key>`, set NX PX under its holder's token and
// deleted only under that token. An unlock that could not reach Redis is kept and sent again once the
// connection is back, so no lock outlives its holder's intent.
import { lua } from '../lua.js';
import type { RedisClient } from '../redis-connection.js';
import type { LockRef, LockStore } from '../types.js';
import { ms, type RedisConnection, type RenewalPipeline } from './connection.js';
import type { RedisKeys } from './keys.js';

/** Failed unlocks kept for a retry on reconnect (a lock's ttl is shorter than this age). */
const MAX_PENDING_UNLOCKS = 10_000;
const PENDING_UNLOCK_MAX_AGE_MS = 10 * 60_000;
/** How often a cluster's pending unlocks are sent again. */
const UNLOCK_RETRY_MS = 1000;

const LUA_UNLOCK = lua(new URL('./lua/unlock.lua', import.meta.url));
const LUA_RENEW_LOCK = lua(new URL('./lua/renew-lock.lua', import.meta.url));

interface LockScripts {
  plUnlock(...args: string[]): Promise<number>;
}

interface LockPipeline extends RenewalPipeline {
  plRenewLock(...args: string[]): LockPipeline;
}

export class RedisLocks implements LockStore {
  private readonly redis: RedisClient;
  private readonly k: RedisKeys;
  private readonly scripts: LockScripts;
  /** Unlocks that failed (Redis unreachable): retried on reconnect, so no lock outlives its holder's intent. */
  private readonly pendingUnlocks = new Map<string, { key: string; token: string; since: number }>();
  /** On a cluster, the timer retrying pendingUnlocks while there are any. */
  private unlockRetry: NodeJS.Timeout | undefined;

  constructor(private readonly c: RedisConnection) {
    this.redis = c.redis;
    this.k = c.k;
    c.redis.defineCommand('plUnlock', { numberOfKeys: 1, lua: LUA_UNLOCK });
    c.redis.defineCommand('plRenewLock', { numberOfKeys: 1, lua: LUA_RENEW_LOCK });
    this.scripts = c.redis as unknown as LockScripts;
  }

  async tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    const lockKey = this.k.lock(key);
    try {
      return (await this.run(() => this.redis.set(lockKey, token, 'PX', ms(ttlMs), 'NX'))) === 'OK';
    } catch (e) {
      // The SET may have run although its answer was lost: the caller does not hold the lock, so
      // make sure nobody does under this token once Redis is back.
      this.rememberUnlock(lockKey, token);
      throw e;
    }
  }

  /**
   * Compare-and-delete. If Redis cannot be reached, the unlock is also remembered and retried as soon
   * as the connection is back (so is a tryLock whose answer was lost): otherwise a lock whose holder
   * lost Redis mid-lookup (and which an append-only Redis keeps across a restart) would block that
   * home for its whole ttl.
   */
  async unlock(key: string, token: string): Promise<void> {
    const lockKey = this.k.lock(key);
    try {
      await this.run(() => this.scripts.plUnlock(lockKey, token));
    } catch (e) {
      this.rememberUnlock(lockKey, token);
      throw e;
    }
  }

  async renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]> {
    if (locks.length === 0) return [];
    const replies = await this.c.runRenewal(() =>
      this.c.renewEach(locks, (p: LockPipeline, l) => p.plRenewLock(this.k.lock(l.key), l.token, ms(ttlMs))),
    );
    return locks.filter((_, i) => Number(replies?.[i]?.[1]) !== 1).map((l) => l.key);
  }

  private rememberUnlock(lockKey: string, token: string): void {
    if (this.pendingUnlocks.size < MAX_PENDING_UNLOCKS) {
      this.pendingUnlocks.set(`${lockKey}\u0000${token}`, { key: lockKey, token, since: Date.now() });
    }
    // A cluster is 'ready' only once: a master back from a crash says nothing, so retry until they are gone.
    if (this.redis.isCluster) this.unlockRetry ??= setInterval(() => this.retryUnlocks(), UNLOCK_RETRY_MS).unref();
  }

  /** Number of unlocks waiting for Redis to come back. */
  get pendingUnlockCount(): number {
    return this.pendingUnlocks.size;
  }

  /** Sends the pending unlocks again (the connection is back, or the cluster's timer beat). */
  retryUnlocks(): void {
    if (this.pendingUnlocks.size === 0) {
      clearInterval(this.unlockRetry);
      this.unlockRetry = undefined;
      return;
    }
    const cutoff = Date.now() - PENDING_UNLOCK_MAX_AGE_MS;
    for (const [id, u] of this.pendingUnlocks) {
      if (u.since < cutoff) {
        this.pendingUnlocks.delete(id);
        continue;
      }
      this.scripts.plUnlock(u.key, u.token).then(
        () => this.pendingUnlocks.delete(id),
        () => undefined, // still unreachable: the next 'ready' retries
      );
    }
  }

  /** Stops the cluster's retry timer (the store is closing). */
  stop(): void {
    clearInterval(this.unlockRetry);
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.c.run(call);
  }
}

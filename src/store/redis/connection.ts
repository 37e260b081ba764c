// What every concern of the Redis store shares (accounts.ts, cache.ts, billing.ts, locks.ts, idempotency.ts):
// opening the client, the key names, the bounded call (`run`, the rule of fail-fast.ts), lease renewals,
// and the epoch that tells this instance Redis lost its data (restarted empty, or flushed).
//
// Lua: all integers cross as strings; replies are arrays of strings/integers. Each script's KEYS, ARGV
// and reply are stated in its file's header (src/store/redis/lua/), loaded by the module that runs it.
import { randomUUID } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { LookupError } from '../../contract/errors.js';
import type { HistoryLimits } from '../history-store.js';
import { boundStoreCall, failFastOptions, storeUnavailable as unavailable } from '../fail-fast.js';
import { createRedisClient, type RedisClient, type RedisTarget } from '../redis-connection.js';
import { redisKeys, type RedisKeys } from './keys.js';

export interface RedisStoreOptions {
  /** Prefix of every key (default `pl:`). Must not contain `{` or `}` (they would change the hash slot). */
  prefix?: string;
  /**
   * A command that has not answered within this time, while the event loop was mostly idle, fails
   * with store_unavailable (default 1000 ms). Windows the loop spent busy do not count (fail-fast.ts).
   */
  commandTimeoutMs?: number;
  /** How long a charge stays in the ledger stream (LEDGER_RETENTION_DAYS). */
  ledgerRetentionMs?: number;
  /** How long and how many events of each home's history are kept (HISTORY_RETENTION_DAYS, HISTORY_MAX_EVENTS_PER_HOME). */
  history?: HistoryLimits;
  /** TCP connect timeout (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts (default 1000 ms). */
  maxReconnectDelayMs?: number;
  /** How long `connect` waits for the first connection before returning anyway (default 1500 ms). */
  startupWaitMs?: number;
  /** Connection errors (the client keeps reconnecting by itself); default: ignored. */
  onError?: (error: Error) => void;
}

/** Reads of a record's keys before a script that checks them; only a record replaced meanwhile needs another. */
export const KEY_READ_ATTEMPTS = 3;

/** A pipeline's (or transaction's) replies: [error, reply] pairs in order. */
export type Replies = [Error | null, unknown][];

/** A pipeline of lease renewals: each concern adds its own renewal script to it. */
export interface RenewalPipeline {
  exec(): Promise<Replies | null>;
}

/**
 * The client of `target` with the fail-fast options, not yet connected (see `firstConnection`); throws
 * when the prefix would change the hash slot.
 */
export function openRedis(
  target: string | RedisTarget,
  opts: RedisStoreOptions,
): { redis: RedisClient; prefix: string } {
  const prefix = opts.prefix ?? 'pl:';
  if (/[{}]/.test(prefix)) throw new Error(`REDIS_PREFIX must not contain { or } (got "${prefix}")`);
  const options: RedisOptions = failFastOptions({
    ...(opts.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: opts.connectTimeoutMs }),
    ...(opts.maxReconnectDelayMs === undefined ? {} : { maxReconnectDelayMs: opts.maxReconnectDelayMs }),
  });
  const redis = createRedisClient(
    typeof target === 'string' ? { redisUrl: target, redisClusterNodes: null } : target,
    options,
  );
  redis.on('error', (e: Error) => opts.onError?.(e));
  return { redis, prefix };
}

/** Connects `redis`, waiting at most `startupWaitMs` (default 1500 ms): the first attempt may fail (Redis down), the retry strategy keeps trying in the background. */
export async function firstConnection(redis: RedisClient, startupWaitMs = 1500): Promise<void> {
  const first = redis.connect().catch(() => undefined);
  await Promise.race([first, new Promise((resolve) => setTimeout(resolve, startupWaitMs).unref())]);
}

/** The client, its key names, the bounded call and the epoch: one per store, handed to each concern. */
export class RedisConnection {
  readonly k: RedisKeys;
  /** The marker of the data this instance has been using (null until first contact); see checkEpoch. */
  private epoch: string | null = null;
  private readonly resetHandlers: Array<() => Promise<void>> = [];
  private recovering: Promise<void> | null = null;

  constructor(
    readonly redis: RedisClient,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.k = redisKeys(prefix, redis.isCluster);
  }

  /** True when commands can be sent now (for a readiness probe). */
  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  async ping(): Promise<void> {
    if (this.redis.status !== 'ready') throw unavailable(new Error(`redis status ${this.redis.status}`));
    await this.run(() => this.redis.ping());
    await this.checkEpoch();
  }

  onReset(handler: () => Promise<void>): void {
    this.resetHandlers.push(handler);
  }

  /**
   * Checks that Redis still holds the data this instance has been using: the epoch marker is the one
   * it saw before. If not (Redis restarted empty, or was flushed), the reset handlers re-seed the
   * accounts and a new epoch is adopted; until that succeeds this throws store_unavailable with
   * `details.reason: store_reset`. Returns true when it found (and recovered from) a reset now.
   */
  async checkEpoch(): Promise<boolean> {
    const current = await this.run(() => this.redis.get(this.k.epoch));
    if (this.epoch === null) {
      // First contact: whatever Redis holds is what this instance starts from.
      this.epoch = current ?? (await this.adoptEpoch());
      return false;
    }
    if (current === this.epoch) return false;
    this.recovering ??= this.recoverFromReset().finally(() => {
      this.recovering = null;
    });
    await this.recovering;
    return true;
  }

  private async recoverFromReset(): Promise<void> {
    try {
      for (const handler of this.resetHandlers) await handler();
      this.epoch = await this.adoptEpoch();
    } catch (cause) {
      throw new LookupError('store_unavailable', {
        message:
          'The store lost its data (restarted empty) and the accounts could not be seeded again yet. Retry in 30 seconds.',
        details: { reason: 'store_reset' },
        cause,
      });
    }
  }

  /** The epoch every instance agrees on: the first one set wins. */
  private async adoptEpoch(): Promise<string> {
    await this.run(() => this.redis.set(this.k.epoch, randomUUID(), 'NX'));
    return (await this.run(() => this.redis.get(this.k.epoch))) ?? '';
  }

  /** Quits (or, when that cannot be sent, drops) the connection; the concerns stop their own parts first. */
  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // fall through: drop the connection
      }
    }
    this.redis.disconnect(false);
  }

  /**
   * Runs one Redis call; any failure (down, no answer, reply error) becomes store_unavailable, and
   * a process too busy to read the answer sheds the call as upstream_busy, reason overloaded (the rule of fail-fast.ts).
   */
  run<T>(call: () => Promise<T>): Promise<T> {
    return boundStoreCall(call, this.timeoutMs);
  }

  /** Runs a lease renewal, bounded as `renewalBound` says. */
  runRenewal<T>(call: () => Promise<T>): Promise<T> {
    try {
      return renewalBound(call(), this.timeoutMs);
    } catch (e) {
      return Promise.reject(unavailable(e));
    }
  }

  /**
   * One renewal script per item, as [error, reply] pairs in order: one pipeline on a single server; on a
   * cluster each its own call, all sent at once (a cluster pipeline must not span nodes).
   */
  renewEach<T, P extends RenewalPipeline>(items: readonly T[], add: (p: P, item: T) => void): Promise<Replies | null> {
    if (!this.redis.isCluster) {
      const p = this.redis.pipeline() as unknown as P;
      for (const item of items) add(p, item);
      return p.exec();
    }
    return Promise.all(
      items.map((item) => {
        const single = this.redis.pipeline() as unknown as P;
        add(single, item);
        return single.exec().then(
          (r) => r?.[0] ?? ([new Error('no reply'), null] as [Error | null, unknown]),
          (e: Error) => [e, null] as [Error | null, unknown],
        );
      }),
    );
  }
}

/**
 * Runs a lease renewal, bounded by the command timeout alone: never held for busy windows the way
 * `run` holds other calls, since a renewal waiting there outlives the lease it renews. One that times
 * out fails (store_unavailable) and the next beat sends another (config.ts: a lease outlasts both).
 */
function renewalBound<T>(pending: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(new Error(`renewal not answered within ${timeoutMs} ms`))), timeoutMs);
  });
  return Promise.race([pending.catch((e: unknown) => Promise.reject(unavailable(e))), late]).finally(() =>
    clearTimeout(timer),
  );
}

/** A positive whole number of milliseconds, as Redis wants it. */
export function ms(n: number): string {
  return String(Math.max(1, Math.ceil(n)));
}

/** A value that does not parse is treated as absent (a cache miss), never as a failure. */
export function parseJson<T>(v: string | null): T | null {
  if (v === null) return null;
  try {
    return JSON.parse(v) as T;
  } catch {
    return null;
  }
}

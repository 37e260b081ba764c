// The cache on Redis (CacheStore): each home's entry and raw record, aliases and error memos. A read over
// many homes or aliases is one MGET on a single server (the hot path); on a cluster, one MGET per hash
// slot, sent at once. An entry and its raw record are written in one MULTI and read in one MGET (on a
// cluster they share the tag `{<cacheKey>}`, keys.ts).
import type { ErrorBody } from '../../contract/index.js';
import { decodeEntry, encodeEntry, readWithRaw } from '../entry-format.js';
import { keySlot, type RedisClient } from '../redis-connection.js';
import type { CacheEntry, CacheStore, EntryWithRaw } from '../types.js';
import { ms, parseJson, type RedisConnection, type Replies } from './connection.js';
import type { RedisKeys } from './keys.js';

export class RedisCache implements CacheStore {
  private readonly redis: RedisClient;
  private readonly k: RedisKeys;

  constructor(private readonly c: RedisConnection) {
    this.redis = c.redis;
    this.k = c.k;
  }

  async getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]> {
    if (keys.length === 0) return [];
    const values = await this.mget(keys.map((key) => this.k.entry(key)));
    return values.map(decodeEntry);
  }

  /** The entry and its raw record in one transaction; the entry kept `keepMs`, its raw record `ttlMs`. */
  async putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number, keepMs = ttlMs): Promise<void> {
    const { text, raw } = await encodeEntry(entry, rawJson);
    const ttl = ms(ttlMs);
    await this.run(() => {
      const tx = this.redis.multi().set(this.k.entry(key), text, 'PX', ms(Math.max(ttlMs, keepMs)));
      return (raw === null ? tx.del(this.k.raw(key)) : tx.set(this.k.raw(key), raw, 'PX', ttl)).exec().then(failedStep);
    });
  }

  /** Each entry and its raw record in one MGET, so both are of one moment. */
  async getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]> {
    if (keys.length === 0) return [];
    const values = await this.mget(
      keys.flatMap((key) => [this.k.entry(key), this.k.raw(key)]),
      true,
    );
    return Promise.all(
      keys.map((_, i) => readWithRaw(values[2 * i]?.toString('utf8') ?? null, values[2 * i + 1] ?? null)),
    );
  }

  async getAliases(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    return this.mget(keys.map((key) => this.k.alias(key)));
  }

  /**
   * The values of `keys`, in order: one MGET on a single server; on a cluster one MGET per hash slot,
   * all sent at once (a cluster refuses an MGET across slots). Buffers when `buffers`.
   */
  private mget(keys: string[]): Promise<(string | null)[]>;
  private mget(keys: string[], buffers: true): Promise<(Buffer | null)[]>;
  private mget(keys: string[], buffers = false): Promise<(string | Buffer | null)[]> {
    const one = (ks: string[]) =>
      this.run<(string | Buffer | null)[]>(() => (buffers ? this.redis.mgetBuffer(ks) : this.redis.mget(ks)));
    return this.redis.isCluster ? this.mgetBySlot(keys, one) : one(keys);
  }

  private async mgetBySlot(
    keys: string[],
    one: (keys: string[]) => Promise<(string | Buffer | null)[]>,
  ): Promise<(string | Buffer | null)[]> {
    const bySlot = new Map<number, number[]>();
    keys.forEach((key, i) => {
      const slot = keySlot(key);
      const at = bySlot.get(slot);
      if (at) at.push(i);
      else bySlot.set(slot, [i]);
    });
    const out = new Array<string | Buffer | null>(keys.length);
    await Promise.all(
      [...bySlot.values()].map(async (at) => {
        const values = await one(at.map((i) => keys[i]!));
        at.forEach((i, j) => (out[i] = values[j] ?? null));
      }),
    );
    return out;
  }

  async putAlias(key: string, target: string, ttlMs: number): Promise<void> {
    await this.run(() => this.redis.set(this.k.alias(key), target, 'PX', ms(ttlMs)));
  }

  async getMemo(key: string): Promise<ErrorBody | null> {
    return parseJson<ErrorBody>(await this.run(() => this.redis.get(this.k.memo(key))));
  }

  async putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void> {
    await this.run(() => this.redis.set(this.k.memo(key), JSON.stringify(body), 'PX', ms(ttlMs)));
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.c.run(call);
  }
}

/** A transaction's replies; throws the first command's error (exec resolves with them, it does not reject). */
function failedStep(replies: Replies | null): void {
  if (replies === null) throw new Error('transaction aborted');
  for (const [error] of replies) if (error) throw error;
}

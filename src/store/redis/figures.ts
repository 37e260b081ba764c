// The public figures on Redis (FiguresStore): each bucket a hash `P{status}:<bucket>` whose fields are
// counts (HINCRBY, so every instance adds to the same bucket), each instance's latest state a key
// `P{status}:inst:<id>` (PX ttl) listed in the set `P{status}:insts`. All under the `{status}` tag: one
// hash slot, so each call is one pipeline on a cluster too.
import { storeUnavailable } from '../fail-fast.js';
import type { FigureAdd, FigureCounts, FiguresStore } from '../types.js';
import { ms, type RedisConnection, type Replies } from './connection.js';

/** The replies of a pipeline, or the first error among them (a store_unavailable). */
function repliesOf(replies: Replies | null): unknown[] {
  if (!replies) throw storeUnavailable(new Error('pipeline not run'));
  return replies.map(([e, reply]) => {
    if (e) throw storeUnavailable(e);
    return reply;
  });
}

export class RedisFigures implements FiguresStore {
  constructor(private readonly c: RedisConnection) {}

  async addFigures(adds: readonly FigureAdd[]): Promise<void> {
    if (adds.length === 0) return;
    const p = this.c.redis.pipeline();
    for (const { bucket, counts, ttlMs } of adds) {
      const key = this.c.k.figures(bucket);
      for (const [field, n] of Object.entries(counts)) if (n !== 0) p.hincrby(key, field, n);
      p.pexpire(key, ms(ttlMs));
    }
    repliesOf(await this.c.run(() => p.exec()));
  }

  async readFigures(buckets: readonly string[]): Promise<FigureCounts[]> {
    if (buckets.length === 0) return [];
    const p = this.c.redis.pipeline();
    for (const name of buckets) p.hgetall(this.c.k.figures(name));
    return repliesOf(await this.c.run(() => p.exec())).map((hash) => {
      const counts: FigureCounts = {};
      for (const [field, v] of Object.entries((hash ?? {}) as Record<string, string>)) {
        const n = Number(v);
        if (Number.isFinite(n)) counts[field] = n;
      }
      return counts;
    });
  }

  async putInstanceState(instance: string, state: string, ttlMs: number): Promise<void> {
    const p = this.c.redis.pipeline();
    p.set(this.c.k.instanceState(instance), state, 'PX', ms(ttlMs));
    p.sadd(this.c.k.instances, instance);
    repliesOf(await this.c.run(() => p.exec()));
  }

  async instanceStates(): Promise<string[]> {
    const ids = await this.c.run(() => this.c.redis.smembers(this.c.k.instances));
    if (ids.length === 0) return [];
    const states = await this.c.run(() => this.c.redis.mget(...ids.map((id) => this.c.k.instanceState(id))));
    // An instance whose state expired has stopped (or lost its store): it leaves the list.
    const gone = ids.filter((_, i) => states[i] === null);
    if (gone.length > 0) await this.c.run(() => this.c.redis.srem(this.c.k.instances, ...gone));
    return states.filter((s): s is string => s !== null);
  }
}

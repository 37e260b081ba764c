// Homes' history on Redis (HistoryStore): one STREAM per home, `Phist:{<homeKey>}` (the home's hash tag,
// so it is one slot on a cluster, beside the home's entry there). An append is one MULTI: XADD trimmed to
// the per-home bound (MAXLEN ~), XTRIM of the events past the retention (MINID ~, by the stream ids' time),
// and the key's expiry renewed to the retention (a home not read for that long leaves nothing behind).
// Both trims are about (whole stream nodes); a read leaves out what is past the retention exactly.
import type { RedisClient } from '../redis-connection.js';
import type { HistoryLimits, HistoryStore, StoredHistoryEvent } from '../types.js';
import { ms, type RedisConnection, type Replies } from './connection.js';
import type { RedisKeys } from './keys.js';

/** The one field of a stream entry: the event's JSON text. */
const FIELD = 'e';

export class RedisHistory implements HistoryStore {
  private readonly redis: RedisClient;
  private readonly k: RedisKeys;

  constructor(
    private readonly c: RedisConnection,
    private readonly limits: HistoryLimits,
  ) {
    this.redis = c.redis;
    this.k = c.k;
  }

  async appendHistory(homeKey: string, event: string): Promise<string> {
    const key = this.k.history(homeKey);
    const cutoff = Math.max(0, Date.now() - this.limits.retentionMs);
    const replies = await this.c.run(() =>
      this.redis
        .multi()
        .xadd(key, 'MAXLEN', '~', String(this.limits.maxEventsPerHome), '*', FIELD, event)
        .xtrim(key, 'MINID', '~', String(cutoff))
        .pexpire(key, ms(this.limits.retentionMs))
        .exec(),
    );
    return String(firstReply(replies));
  }

  async readHistory(homeKey: string, limit: number, before: string | null): Promise<StoredHistoryEvent[]> {
    const cutoff = Math.max(0, Date.now() - this.limits.retentionMs);
    const entries = await this.c.run(() =>
      this.redis.xrevrange(
        this.k.history(homeKey),
        before === null ? '+' : `(${before}`,
        String(cutoff),
        'COUNT',
        limit,
      ),
    );
    return entries.map(([id, fields]) => ({ id, event: fields[fields.indexOf(FIELD) + 1] ?? 'null' }));
  }
}

/** The transaction's first reply (XADD's id); throws the first command's error. */
function firstReply(replies: Replies | null): unknown {
  if (replies === null) throw new Error('transaction aborted');
  for (const [error] of replies) if (error) throw error;
  return replies[0]?.[1];
}

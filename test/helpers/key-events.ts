// Keyspace notifications of a test's own redis-server, as events a test waits on instead of a duration it
// expects them within: a lease renewed is its key's `expire` (the renewal's PEXPIRE), a lock taken its
// `set`, a slot added back to a sorted set a `zadd`, a slot given back a `zrem`, a lease that lapsed
// `expired`. Redis names an event by the command's family: SET → set (then expire, with PX), EXPIRE and
// PEXPIRE → expire, ZADD → zadd, ZREM → zrem (then del, once the set is empty), DEL → del.
import { Redis } from 'ioredis';

export interface KeyEvents {
  /** The events seen so far on `key`, in the order Redis sent them. */
  of(key: string): readonly string[];
  /** The keys that have seen `event`, in the order they first did. */
  keysWith(event: string): string[];
  /** Resolves once `done()` holds: checked now and after each event seen (never on a clock). */
  until(done: () => boolean): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = '__keyspace@0__:';

/**
 * Turns keyspace notifications on (server-wide: every event class; the server is the test's own) and
 * watches the keys matching `pattern` (a glob, e.g. the test's key prefix and `*`). Events that happened
 * before this resolved are not seen.
 */
export async function watchKeys(url: string, pattern: string): Promise<KeyEvents> {
  const admin = new Redis(url);
  try {
    await admin.config('SET', 'notify-keyspace-events', 'KA');
  } finally {
    admin.disconnect();
  }
  const subscriber = new Redis(url);
  const seen = new Map<string, string[]>();
  let waiters: Array<{ done: () => boolean; wake: () => void }> = [];
  subscriber.on('pmessage', (_pattern: string, channel: string, event: string) => {
    const key = channel.slice(CHANNEL.length);
    let events = seen.get(key);
    if (!events) seen.set(key, (events = []));
    events.push(event);
    const due = waiters.filter((w) => w.done());
    waiters = waiters.filter((w) => !due.includes(w));
    for (const w of due) w.wake();
  });
  await subscriber.psubscribe(CHANNEL + pattern);
  return {
    of: (key) => seen.get(key) ?? [],
    keysWith: (event) => [...seen].filter(([, events]) => events.includes(event)).map(([key]) => key),
    until: (done) => (done() ? Promise.resolve() : new Promise((wake) => waiters.push({ done, wake }))),
    async close() {
      subscriber.disconnect();
    },
  };
}

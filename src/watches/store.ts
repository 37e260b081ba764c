// Where watches are kept: in this process (memory) or in Redis. On Redis every key of an account's
// watches carries one hash tag, `<REDIS_PREFIX>{watch:<account>}`, so the per-account cap (count, then
// add) and each compare-and-store are one script on one slot, also on a cluster:
//   <prefix>{watch:<account>}:ids       SET of the account's watch ids
//   <prefix>{watch:<account>}:w:<id>    HASH { json: the StoredWatch, v: its version }
// A watch is kept until deleted (or its account is gone). Every write of a check is a compare-and-store
// on the version, so two checks racing cannot both record (and both announce) one change.
import type { Locator } from '../contract/index.js';
import { classifiedCall, type StoreCall } from '../store/fail-fast.js';
import { lua } from '../store/lua.js';
import type { RedisClient } from '../store/redis-connection.js';

/** A watch as kept: the view's fields and what the checks need (the parsed locator, the values last seen). */
export interface StoredWatch {
  id: string;
  account: string;
  locator: Locator;
  webhook_url: string;
  interval_hours: number;
  created_at: string;
  home_zpid: string | null;
  /** The WATCHED_FIELDS as last read (one a read could not read keeps its earlier value, or is absent); null before. */
  last_values: Record<string, unknown> | null;
  last_checked_at: string | null;
  last_error: string | null;
  /** Its schedule was removed (the account was revoked): no more checks. */
  stopped: boolean;
  /**
   * The last change a check recorded, and its iteration: a re-run of that iteration (its worker died
   * between recording and queuing the event) queues it again under the same event id. Absent before.
   */
  last_change?: { iteration: string; changes: WatchChange[] } | null;
}

/** One watched field that differs from the last check's (property.changed's `changes`). */
export interface WatchChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface Versioned {
  watch: StoredWatch;
  version: number;
}

export interface WatchStore {
  /** Adds the watch unless its account already has `cap`; false: at the cap. */
  add(watch: StoredWatch, cap: number): Promise<boolean>;
  get(account: string, id: string): Promise<Versioned | null>;
  list(account: string): Promise<StoredWatch[]>;
  /** false: no such watch of the account. */
  remove(account: string, id: string): Promise<boolean>;
  /** Stores `watch` if the kept one is still at `version`; false when another write came first or it is gone. */
  update(watch: StoredWatch, version: number): Promise<boolean>;
  close(): Promise<void>;
}

export class MemoryWatchStore implements WatchStore {
  readonly #accounts = new Map<string, Map<string, Versioned>>();

  async add(watch: StoredWatch, cap: number): Promise<boolean> {
    let own = this.#accounts.get(watch.account);
    if (!own) this.#accounts.set(watch.account, (own = new Map()));
    if (own.size >= cap) return false;
    own.set(watch.id, { watch: structuredClone(watch), version: 0 });
    return true;
  }

  async get(account: string, id: string): Promise<Versioned | null> {
    const found = this.#accounts.get(account)?.get(id);
    return found ? structuredClone(found) : null;
  }

  async list(account: string): Promise<StoredWatch[]> {
    return [...(this.#accounts.get(account)?.values() ?? [])].map((v) => structuredClone(v.watch));
  }

  async remove(account: string, id: string): Promise<boolean> {
    return this.#accounts.get(account)?.delete(id) ?? false;
  }

  async update(watch: StoredWatch, version: number): Promise<boolean> {
    const own = this.#accounts.get(watch.account);
    const kept = own?.get(watch.id);
    if (!own || !kept || kept.version !== version) return false;
    own.set(watch.id, { watch: structuredClone(watch), version: version + 1 });
    return true;
  }

  async close(): Promise<void> {}
}

// The scripts: their KEYS, ARGV and reply in each file's header (src/watches/lua/).
const ADD = lua(new URL('./lua/add.lua', import.meta.url));
const UPDATE = lua(new URL('./lua/update.lua', import.meta.url));
const REMOVE = lua(new URL('./lua/remove.lua', import.meta.url));

export class RedisWatchStore implements WatchStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** Every Redis call goes through it: bounded and classified (store/fail-fast.ts), as the service's store's. */
    private readonly run: StoreCall = classifiedCall,
  ) {}

  #tag = (account: string): string => `${this.prefix}{watch:${account}}`;
  #ids = (account: string): string => `${this.#tag(account)}:ids`;
  #key = (account: string, id: string): string => `${this.#tag(account)}:w:${id}`;

  async add(watch: StoredWatch, cap: number): Promise<boolean> {
    const added = await this.run(() =>
      this.redis.eval(
        ADD,
        2,
        this.#ids(watch.account),
        this.#key(watch.account, watch.id),
        cap,
        watch.id,
        JSON.stringify(watch),
      ),
    );
    return added === 1;
  }

  async get(account: string, id: string): Promise<Versioned | null> {
    const [json, v] = await this.run(() => this.redis.hmget(this.#key(account, id), 'json', 'v'));
    return json && v !== null ? { watch: JSON.parse(json) as StoredWatch, version: Number(v) } : null;
  }

  async list(account: string): Promise<StoredWatch[]> {
    const ids = await this.run(() => this.redis.smembers(this.#ids(account)));
    if (ids.length === 0) return [];
    // One slot (the account's tag): one pipeline, also on a cluster.
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.#key(account, id), 'json');
    const rows = (await this.run(() => pipeline.exec())) ?? [];
    return rows.flatMap(([err, json]) => (err || typeof json !== 'string' ? [] : [JSON.parse(json) as StoredWatch]));
  }

  async remove(account: string, id: string): Promise<boolean> {
    return (await this.run(() => this.redis.eval(REMOVE, 2, this.#ids(account), this.#key(account, id), id))) === 1;
  }

  async update(watch: StoredWatch, version: number): Promise<boolean> {
    return (
      (await this.run(() =>
        this.redis.eval(UPDATE, 1, this.#key(watch.account, watch.id), String(version), JSON.stringify(watch)),
      )) === 1
    );
  }

  async close(): Promise<void> {
    // Bounded as any call (a frozen Redis never answers a QUIT): then the connection is dropped.
    await this.run(() => this.redis.quit()).catch(() => this.redis.disconnect());
  }
}

// Accounts on Redis (AccountStore), all under `{acct}`: the account records, the key index, the set of
// ids, and the change channel every instance watches to forget cached keys.
import { Cluster } from 'ioredis';
import { storeUnavailable as unavailable } from '../fail-fast.js';
import { lua } from '../lua.js';
import type { RedisClient } from '../redis-connection.js';
import type { Account, AccountStore } from '../types.js';
import { KEY_READ_ATTEMPTS, parseJson, type RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';

const LUA_PUT_ACCOUNT = lua(new URL('./lua/put-account.lua', import.meta.url));

interface AccountScripts {
  plPutAccount(...args: string[]): Promise<number>;
}

export class RedisAccounts implements AccountStore {
  private readonly redis: RedisClient;
  private readonly k: RedisKeys;
  private readonly scripts: AccountScripts;
  /** The connections of watchAccounts (a subscribed connection can send nothing else). */
  private readonly watchers = new Set<RedisClient>();

  constructor(private readonly c: RedisConnection) {
    this.redis = c.redis;
    this.k = c.k;
    c.redis.defineCommand('plPutAccount', { numberOfKeys: 4, lua: LUA_PUT_ACCOUNT });
    this.scripts = c.redis as unknown as AccountScripts;
  }

  /** Two reads (index, then account); an account whose key changed in between is not the caller's. */
  async getAccountByKeyHash(keyHash: string): Promise<Account | null> {
    let id = await this.run(() => this.redis.get(this.k.keyIndex(keyHash)));
    // An unknown key may be one that a store reset lost: then it is looked up again once re-seeded.
    if (id === null && (await this.c.checkEpoch())) id = await this.run(() => this.redis.get(this.k.keyIndex(keyHash)));
    if (id === null) return null;
    const account = await this.getAccount(id);
    return account && account.keyHash === keyHash ? account : null;
  }

  async getAccount(id: string): Promise<Account | null> {
    const json = await this.run(() => this.redis.get(this.k.account(id)));
    return json ? parseAccount(json) : null;
  }

  async putAccount(account: Account): Promise<void> {
    const key = this.k.account(account.id);
    const index = this.k.keyIndex(account.keyHash);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const prev = await this.run(() => this.redis.get(key));
      const prevHash = prev === null ? null : parseJson<Partial<Account>>(prev)?.keyHash;
      const prevIndex = typeof prevHash === 'string' ? this.k.keyIndex(prevHash) : index;
      const n = await this.run(() =>
        this.scripts.plPutAccount(
          key,
          index,
          this.k.accountIds,
          prevIndex,
          JSON.stringify(account),
          account.id,
          prev ?? '',
          this.k.accountChanges,
        ),
      );
      if (Number(n) === 1) return;
    }
    throw unavailable(new Error(`account ${account.id} kept changing while being written`));
  }

  /**
   * A connection of its own, subscribed to the account-change channel. Each time it is (re)connected
   * it calls onChange too: notices sent while it was away are lost.
   */
  watchAccounts(onChange: () => void): () => void {
    // ioredis 6 types Redis#duplicate and Cluster#duplicate apart: the union has no one signature.
    const sub: RedisClient = this.redis instanceof Cluster ? this.redis.duplicate() : this.redis.duplicate();
    this.watchers.add(sub);
    sub.on('error', () => undefined); // it reconnects by itself; onChange on 'ready' covers the gap
    sub.on('message', () => onChange());
    sub.on('ready', () => {
      sub.subscribe(this.k.accountChanges).then(
        () => onChange(),
        () => undefined,
      );
    });
    sub.connect().catch(() => undefined);
    return () => {
      this.watchers.delete(sub);
      sub.disconnect(false);
    };
  }

  /** Drops every watchAccounts connection (the store is closing). */
  stopWatching(): void {
    for (const w of this.watchers) w.disconnect(false);
    this.watchers.clear();
  }

  async listAccounts(): Promise<Account[]> {
    const ids = await this.run(() => this.redis.smembers(this.k.accountIds));
    if (ids.length === 0) return [];
    ids.sort();
    const jsons = await this.run(() => this.redis.mget(ids.map((id) => this.k.account(id))));
    return jsons.filter((j): j is string => j !== null).map(parseAccount);
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.c.run(call);
  }
}

function parseAccount(json: string): Account {
  return JSON.parse(json) as Account;
}

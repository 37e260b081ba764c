// The Redis store's key layout: every key it reads or writes, named in one place (redisKeys below).
//
// Key layout (P = the configured prefix, default `pl:`):
//   P{acct}:account:<id>        JSON of the Account
//   P{acct}:key:<keyHash>       → account id (the key index)
//   P{acct}:ids                 SET of account ids
//   P{acct}:epoch               a random id set once: when it is gone or changed, Redis lost its data (checkEpoch)
//   P{acct}:changes             pub/sub channel: an account id each time that account is written
//   P{bill}:usage:<acct>:<per>  HASH used, reserved, overage_used, overage_reserved (held as overage)
//   P{bill}:budget:<scope>:<d>  counter of live lookups held + committed that UTC day (expires 48 h)
//   P{bill}:res:<reservation>   HASH account, period, kind (as held), included, day, scope, bucket, budget, expires_at
//   P{bill}:res-by-expiry       ZSET reservation id → expires_at (ms, server time)
//   P{bill}:ledger              STREAM of charges: reservation, account, cache_key, request, kind, at; trimmed
//                               to LEDGER_RETENTION_DAYS (MINID, about) by each charge
//   P{bill}:charges:<request>   HASH reservation → the stream id of its charge, the request's charges (PX 48 h):
//                               a void or a job chunk's re-run finds them at once, with no scan of the ledger
//   P{bill}:acct-charges:<acct> STREAM of the account's charges, the same fields under the same stream ids as
//                               the ledger's, written by the same commit, trimmed the same (its own record)
//   P{bill}:day:<acct>:<d>      HASH lookups, live, hits, stale, failed (added as lookups settle) and credits
//                               (by the commit, less voids) of the account's UTC day d; PX 400 days
//   P{bill}:usage:…             also holds alert:<threshold> once that usage alert was sent for the period
//   Pentry4:<cacheKey>          the CacheEntry as entry-format.ts keeps it (version 4), PX keep (its lifetime + STALE_TTL_MS)
//   Praw4:<cacheKey>            its raw record's JSON, brotli-compressed behind the write's id, PX ttl (written with it);
//                               on a cluster `Pentry4:{<cacheKey>}`, `Praw4:{<cacheKey>}`: the tag puts both in one slot
//                               (older code's `Pcache:<cacheKey>` is another name: never read)
//   Palias:<aliasKey>           target cache key, PX ttl
//   Pmemo:<key>                 JSON ErrorBody, PX ttl
//   Plock:<key>                 single-flight token, SET NX PX
//   Phist:{<homeKey>}          STREAM of the home's history events (field e: the event's JSON), trimmed to
//                               HISTORY_MAX_EVENTS_PER_HOME (MAXLEN ~) and HISTORY_RETENTION_DAYS (MINID ~) by
//                               each append, PX the retention; tagged on a server too (a new key: no old names)
//   Pidem:<slot>                HASH body_hash, and token (claimed, PX lease) or answer (packed, PX 24 h);
//                               slot = sha256(account, idempotency key): per account, any characters
//   P{status}:m:<minute>        HASH of the public figures' counts of that minute (since the epoch), added to by
//   P{status}:h:<hour>          every instance (HINCRBY); an hour's the same sums (PX 25 h / 26 h)
//   P{status}:inst:<id>         an instance's latest state (its breaker), PX 30 s
//   P{status}:insts             SET of the instance ids that wrote one (an expired one is removed when read)
//
// All the keys of one script share one hash slot: `{bill}` for billing, `{acct}` for accounts, `{status}` for the
// public figures (each of their calls is one pipeline); a home's
// entry and raw record share `{<cacheKey>}` on a cluster only (see redis.ts).
import { ENTRY_FORMAT } from '../entry-format.js';
import { idempotencySlot } from '../idempotency-store.js';

/** The store's key names under prefix `p` (see the layout above); exported for tests that reach behind the store. */
export function redisKeys(p: string, cluster = false) {
  // Tagged on a cluster only: renaming a single server's entries would make every cached home a billed miss once.
  const home = cluster ? (key: string) => `{${key}}` : (key: string) => key;
  return {
    account: (id: string) => `${p}{acct}:account:${id}`,
    keyIndex: (keyHash: string) => `${p}{acct}:key:${keyHash}`,
    accountIds: `${p}{acct}:ids`,
    accountChanges: `${p}{acct}:changes`,
    epoch: `${p}{acct}:epoch`,
    usage: (accountId: string, period: string) => `${p}{bill}:usage:${accountId}:${period}`,
    budget: (scope: string, day: string) => `${p}{bill}:budget:${scope}:${day}`,
    reservation: (id: string) => `${p}{bill}:res:${id}`,
    reservationsByExpiry: `${p}{bill}:res-by-expiry`,
    ledger: `${p}{bill}:ledger`,
    charges: (requestId: string) => `${p}{bill}:charges:${requestId}`,
    accountCharges: (accountId: string) => `${p}{bill}:acct-charges:${accountId}`,
    usageDay: (accountId: string, day: string) => `${p}{bill}:day:${accountId}:${day}`,
    entry: (key: string) => `${p}entry${ENTRY_FORMAT}:${home(key)}`,
    raw: (key: string) => `${p}raw${ENTRY_FORMAT}:${home(key)}`,
    alias: (key: string) => `${p}alias:${key}`,
    memo: (key: string) => `${p}memo:${key}`,
    lock: (key: string) => `${p}lock:${key}`,
    history: (homeKey: string) => `${p}hist:{${homeKey}}`,
    idempotency: (accountId: string, key: string) => `${p}idem:${idempotencySlot(accountId, key)}`,
    figures: (bucket: string) => `${p}{status}:${bucket}`,
    instanceState: (id: string) => `${p}{status}:inst:${id}`,
    instances: `${p}{status}:insts`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

// The embedded store: everything in this process's memory. Each method runs to completion
// without awaiting, so each is atomic in the same way a Redis script is. It behaves like the Redis
// store in every respect the shared suite (test/store/store-contract.ts) checks, including key
// expiry: expired keys read as absent at once, and sweep() (run once a minute by the server) drops
// them, so a long-running process holds only live keys. Usage buckets are kept forever, the ledger
// for LEDGER_RETENTION_DAYS and homes' history for HISTORY_RETENTION_DAYS, as in Redis. About 700 lines, one
// class: sweep() walks every concern's maps and each method's atomicity is the class's single thread; the
// public figures' part is apart already (memory-figures.ts), the others could follow it.
import type { ErrorBody } from '../contract/index.js';
import { decodeEntry, encodeEntry, readWithRaw } from './entry-format.js';
import { DEFAULT_HISTORY_LIMITS, type HistoryLimits } from './history-store.js';
import { idempotencySlot, packAnswer, unpackAnswer } from './idempotency-store.js';
import { MemoryFigures } from './memory-figures.js';
import { LRUCache } from 'lru-cache';
import type {
  Account,
  AccountCharge,
  AccountChargesPage,
  CacheEntry,
  DayCounts,
  ClaimRef,
  ClaimResult,
  EntryWithRaw,
  FigureAdd,
  FigureCounts,
  LedgerEntry,
  LockRef,
  ReserveRequest,
  ReserveResult,
  StoredAnswer,
  StoredHistoryEvent,
  Store,
  UsageCounters,
  UsageDay,
  VoidRef,
} from './types.js';
import { DEFAULT_LEDGER_RETENTION_MS, USAGE_DAY_TTL_MS } from './types.js';

interface Expiring<T> {
  value: T;
  expiresAt: number;
}
/** What expiry needs of a Map or an LRUCache. */
interface Keyed<V> extends Iterable<[string, V]> {
  get(key: string): V | undefined;
  delete(key: string): boolean;
}

/**
 * A cache entry as kept (entry-format.ts), with its compressed raw record: one key, so they are
 * evicted together. `entry` is the text decoded on its first read, then shared (frozen) by every hit.
 */
interface Kept {
  text: string;
  raw: Buffer | null;
  entry?: CacheEntry | null;
  rawExpiresAt: number;
}

/** Default bound of the cache entries' size (MEMORY_CACHE_MB). */
const DEFAULT_MEMORY_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * Address aliases and remembered ambiguous answers are each bounded to this share of the homes' bound:
 * every spelling of an address asked adds an alias kept for a day, so without a bound a stream of
 * distinct spellings would grow memory without limit. An eighth of 128 MiB holds some 60,000 aliases,
 * many spellings for each of the few thousand homes the bound keeps; the least recently read go first
 * (asked again, an alias is resolved again).
 */
const KEY_SHARE_OF_CACHE = 1 / 8;
/** What an alias or memo is counted as: its key and value at two bytes a character, and the cache's own per-item cost. */
const keyBytes = (key: string, value: string) => 2 * (key.length + value.length) + 64;

/**
 * Homes' history is bounded to this share of the homes' bound (MEMORY_CACHE_MB), and to MAX_HISTORY_HOMES
 * homes: the least recently read or written timelines go first (a home's own is bounded by maxEventsPerHome).
 */
const HISTORY_SHARE_OF_CACHE = 1 / 4;
const MAX_HISTORY_HOMES = 100_000;

/** A home's history: its events, oldest first, with what they weigh and the last id given (ids only increase). */
interface Timeline {
  events: Array<StoredHistoryEvent & { at: number }>;
  bytes: number;
  lastMs: number;
  lastSeq: number;
}

/** Mirrors the Redis daily budget key: a counter that expires this long after it was last drawn on. */
const BUDGET_KEY_TTL_MS = 48 * 3600_000;

/**
 * An idempotency key: claimed (a token, until its lease ends), answered (the packed answer, for a day) or
 * released (neither: the start of the run it had, `since`, for its retry).
 */
interface IdempotencyRecord {
  bodyHash: string;
  token: string | null;
  answer: Buffer | null;
  since?: number;
}

interface Reservation {
  accountId: string;
  period: string;
  /** What it was held as; the kind charged is decided at commit. */
  kind: 'included' | 'overage';
  /** The bucket's included lookups when it was reserved. */
  included: number;
  day: string;
  scope: 'service' | 'paid';
  expiresAt: number;
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly accounts = new Map<string, Account>();
  private readonly keyIndex = new Map<string, string>();
  /**
   * Bounded: past `maxCacheBytes` the least recently read homes are forgotten (read again on their next
   * lookup); a home larger than the whole bound is not kept.
   */
  private readonly entries: LRUCache<string, Expiring<Kept>>;
  /** Bounded (KEY_SHARE_OF_CACHE of the homes' bound); the least recently read go first. */
  private readonly aliases: LRUCache<string, Expiring<string>>;
  private readonly memos: LRUCache<string, Expiring<ErrorBody>>;
  private readonly locks = new Map<string, Expiring<string>>();
  /**
   * Answered keys are bounded with the aliases' share (each is its answer's compressed size), the least
   * recently read first: one forgotten runs again on its retry, free for the homes still cached.
   * Claims are few (one per request running) and never evicted.
   */
  private readonly answers: LRUCache<string, Expiring<IdempotencyRecord>>;
  private readonly claims = new Map<string, Expiring<IdempotencyRecord>>();
  private readonly usageBuckets = new Map<string, UsageCounters>();
  private readonly budgets = new Map<string, Expiring<number>>();
  private readonly reservations = new Map<string, Reservation>();
  /** The ledger, oldest first; each charge also in its account's own list (the same object). */
  private readonly ledgerEntries: AccountCharge[] = [];
  private readonly chargesByAccount = new Map<string, AccountCharge[]>();
  /** The last charge id given (`<ms>-<seq>`, as a Redis stream's). */
  private lastCharge = { ms: 0, seq: 0 };
  /** Day counters by `<account>\u0000<day>`, with the credits the commits wrote. */
  private readonly days = new Map<string, UsageDay>();
  private readonly alertsSent = new Set<string>();
  private readonly accountWatchers = new Set<() => void>();
  /** Bounded (HISTORY_SHARE_OF_CACHE of the homes' bound, MAX_HISTORY_HOMES homes); the least recently used go first. */
  private readonly histories: LRUCache<string, Timeline>;
  private readonly figures: MemoryFigures;

  constructor(
    private readonly clock: () => number = Date.now,
    maxCacheBytes = DEFAULT_MEMORY_CACHE_BYTES,
    private readonly ledgerRetentionMs = DEFAULT_LEDGER_RETENTION_MS,
    private readonly historyLimits: HistoryLimits = DEFAULT_HISTORY_LIMITS,
  ) {
    this.figures = new MemoryFigures(clock);
    // A string's size as V8 may hold it (two bytes a character), plus the compressed raw record's.
    this.entries = new LRUCache({
      maxSize: maxCacheBytes,
      sizeCalculation: (e) => 2 * e.value.text.length + (e.value.raw?.length ?? 0),
    });
    const maxKeyBytes = Math.max(1, Math.floor(maxCacheBytes * KEY_SHARE_OF_CACHE));
    this.aliases = new LRUCache({ maxSize: maxKeyBytes, sizeCalculation: (e, key) => keyBytes(key, e.value) });
    this.memos = new LRUCache({
      maxSize: maxKeyBytes,
      sizeCalculation: (e, key) => keyBytes(key, JSON.stringify(e.value)),
    });
    this.answers = new LRUCache({
      maxSize: maxKeyBytes,
      sizeCalculation: (e, key) => keyBytes(key, e.value.bodyHash) + (e.value.answer?.length ?? 0),
    });
    this.histories = new LRUCache({
      max: MAX_HISTORY_HOMES,
      maxSize: Math.max(1, Math.floor(maxCacheBytes * HISTORY_SHARE_OF_CACHE)),
      sizeCalculation: (t, key) => keyBytes(key, '') + t.bytes,
    });
  }

  async ping(): Promise<void> {}
  onReset(): void {}
  async close(): Promise<void> {}

  async getAccountByKeyHash(keyHash: string): Promise<Account | null> {
    const id = this.keyIndex.get(keyHash);
    return id ? this.copy(this.accounts.get(id)) : null;
  }

  async getAccount(id: string): Promise<Account | null> {
    return this.copy(this.accounts.get(id));
  }

  async putAccount(account: Account): Promise<void> {
    const previous = this.accounts.get(account.id);
    if (previous && previous.keyHash !== account.keyHash) this.keyIndex.delete(previous.keyHash);
    this.accounts.set(account.id, { ...account });
    this.keyIndex.set(account.keyHash, account.id);
    for (const onChange of this.accountWatchers) onChange();
  }

  watchAccounts(onChange: () => void): () => void {
    const watcher = () => onChange();
    this.accountWatchers.add(watcher);
    return () => this.accountWatchers.delete(watcher);
  }

  async listAccounts(): Promise<Account[]> {
    return [...this.accounts.values()].map((a) => ({ ...a }));
  }

  async getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]> {
    return keys.map((k) => {
      const kept = this.live(this.entries, k);
      if (!kept) return null;
      if (kept.entry === undefined) kept.entry = frozen(decodeEntry(kept.text));
      return kept.entry;
    });
  }

  async putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number, keepMs = ttlMs): Promise<void> {
    const { text, raw } = await encodeEntry(entry, rawJson);
    const now = this.clock();
    this.entries.set(key, {
      value: { text, raw, rawExpiresAt: now + ttlMs },
      expiresAt: now + Math.max(ttlMs, keepMs),
    });
  }

  async getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]> {
    return Promise.all(
      keys.map((k) => {
        const kept = this.live(this.entries, k);
        return kept ? readWithRaw(kept.text, kept.rawExpiresAt > this.clock() ? kept.raw : null) : null;
      }),
    );
  }

  async getAliases(keys: readonly string[]): Promise<(string | null)[]> {
    return keys.map((k) => this.live(this.aliases, k));
  }

  async putAlias(key: string, target: string, ttlMs: number): Promise<void> {
    this.aliases.set(key, { value: target, expiresAt: this.clock() + ttlMs });
  }

  async getMemo(key: string): Promise<ErrorBody | null> {
    return this.live(this.memos, key);
  }

  async putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void> {
    this.memos.set(key, { value: body, expiresAt: this.clock() + ttlMs });
  }

  async appendHistory(homeKey: string, event: string): Promise<string> {
    const now = this.clock();
    const t = this.histories.get(homeKey) ?? { events: [], bytes: 0, lastMs: -1, lastSeq: 0 };
    // As a Redis stream's ids: the time, then a sequence within one millisecond (never going back).
    const at = Math.max(now, t.lastMs);
    t.lastSeq = at === t.lastMs ? t.lastSeq + 1 : 0;
    t.lastMs = at;
    const id = `${at}-${t.lastSeq}`;
    t.events.push({ id, event, at });
    t.bytes += eventBytes(id, event);
    const cutoff = now - this.historyLimits.retentionMs;
    let drop = Math.max(0, t.events.length - this.historyLimits.maxEventsPerHome);
    while (drop < t.events.length && t.events[drop]!.at < cutoff) drop += 1;
    for (const gone of t.events.splice(0, drop)) t.bytes -= eventBytes(gone.id, gone.event);
    // Set again: its size counted anew.
    this.histories.set(homeKey, t);
    return id;
  }

  async readHistory(homeKey: string, limit: number, before: string | null): Promise<StoredHistoryEvent[]> {
    const t = this.histories.get(homeKey);
    if (!t) return [];
    const cutoff = this.clock() - this.historyLimits.retentionMs;
    const out: StoredHistoryEvent[] = [];
    for (let i = t.events.length - 1; i >= 0 && out.length < limit; i -= 1) {
      const e = t.events[i]!;
      if (e.at < cutoff) break;
      if (before === null || compareIds(e.id, before) < 0) out.push({ id: e.id, event: e.event });
    }
    return out;
  }

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const held = this.reservations.get(req.reservationId);
    if (held) {
      // Held again (a job chunk's re-run adopting its dead run's): a whole lease from now, as a new one gets,
      // or a lapsed one not yet swept would be swept under its new holder before its commit.
      held.expiresAt = this.clock() + req.ttlMs;
      return { ok: true, kind: held.kind };
    }
    const u = this.bucket(req.accountId, req.period);
    const decision = decideReserve(u, req);
    if (decision !== 'included' && decision !== 'overage') return decision;
    const budgetKey = `${req.budget.scope}:${req.budget.day}`;
    const spent = this.live(this.budgets, budgetKey) ?? 0;
    if (req.budget.cap !== null && spent >= req.budget.cap) return { ok: false, reason: 'live_lookups_capped' };
    const now = this.clock();
    this.budgets.set(budgetKey, { value: spent + 1, expiresAt: now + BUDGET_KEY_TTL_MS });
    u.reserved += 1;
    this.reservations.set(req.reservationId, {
      accountId: req.accountId,
      period: req.period,
      kind: decision,
      included: req.included,
      day: req.budget.day,
      scope: req.budget.scope,
      expiresAt: now + req.ttlMs,
    });
    return { ok: true, kind: decision };
  }

  async commit(entry: LedgerEntry): Promise<boolean> {
    const r = this.reservations.get(entry.reservationId);
    if (!r) return false;
    this.reservations.delete(entry.reservationId);
    const u = this.bucket(r.accountId, r.period);
    // The kind charged is decided now, from what is committed: an included lookup that failed and
    // was released meanwhile leaves its credit to this one.
    const kind = u.used - u.overageUsed < r.included ? 'included' : 'overage';
    u.reserved -= 1;
    u.used += 1;
    if (kind === 'overage') u.overageUsed += 1;
    const charge: AccountCharge = { ...entry, accountId: r.accountId, kind, id: this.nextChargeId() };
    if (entry.source === undefined) delete charge.source;
    this.ledgerEntries.push(charge);
    let mine = this.chargesByAccount.get(r.accountId);
    if (!mine) this.chargesByAccount.set(r.accountId, (mine = []));
    mine.push(charge);
    this.day(r.accountId, entry.at.slice(0, 10)).credits += 1;
    // Charges older than the retention go, oldest first (pushed in about time order: trimmed about, as on Redis).
    const cutoff = this.clock() - this.ledgerRetentionMs;
    let old = 0;
    while (old < this.ledgerEntries.length && Date.parse(this.ledgerEntries[old]!.at) < cutoff) old += 1;
    for (const gone of this.ledgerEntries.splice(0, old)) {
      const list = this.chargesByAccount.get(gone.accountId);
      if (list?.[0] === gone) list.shift();
    }
    return true;
  }

  async release(reservationId: string): Promise<boolean> {
    const r = this.reservations.get(reservationId);
    if (!r) return false;
    this.reservations.delete(reservationId);
    this.bucket(r.accountId, r.period).reserved -= 1;
    // As in Redis: only a live counter above 0 is given back (it may have expired with its day).
    const budget = this.liveEntry(this.budgets, `${r.scope}:${r.day}`);
    if (budget && budget.value > 0) budget.value -= 1;
    return true;
  }

  async voidReservation(ref: VoidRef): Promise<'released' | 'voided' | 'none'> {
    if (await this.release(ref.reservationId)) return 'released';
    const i = this.ledgerEntries.findIndex(
      (e) => e.reservationId === ref.reservationId && e.requestId === ref.requestId,
    );
    if (i < 0) return 'none';
    const [charge] = this.ledgerEntries.splice(i, 1);
    const mine = this.chargesByAccount.get(charge!.accountId) ?? [];
    const j = mine.indexOf(charge!);
    if (j >= 0) mine.splice(j, 1);
    const day = this.days.get(`${charge!.accountId}\u0000${charge!.at.slice(0, 10)}`);
    if (day && day.credits > 0) day.credits -= 1;
    const u = this.bucket(charge!.accountId, ref.period);
    u.used -= 1;
    if (charge!.kind === 'overage') u.overageUsed -= 1;
    const budget = this.liveEntry(this.budgets, `${ref.scope}:${ref.day}`);
    if (budget && budget.value > 0) budget.value -= 1;
    return 'voided';
  }

  async renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]> {
    const lost: string[] = [];
    for (const id of ids) {
      const r = this.reservations.get(id);
      if (r) r.expiresAt = this.clock() + ttlMs;
      else lost.push(id);
    }
    return lost;
  }

  /** Releases expired reservations, and drops every expired key (cache, aliases, memos, locks, budgets). */
  async sweep(): Promise<number> {
    const now = this.clock();
    const expired = [...this.reservations.entries()].filter(([, r]) => r.expiresAt <= now).map(([id]) => id);
    let released = 0;
    // Checked again at each release: its holder may have renewed it since the list was taken.
    for (const id of expired)
      if ((this.reservations.get(id)?.expiresAt ?? Infinity) <= now && (await this.release(id))) released++;
    // Keys listed first, then deleted: reading through the cache's get() would refresh their recency.
    for (const map of [
      this.entries,
      this.aliases,
      this.memos,
      this.locks,
      this.budgets,
      this.answers,
      this.claims,
    ] as Keyed<Expiring<unknown>>[]) {
      for (const key of [...map].filter(([, e]) => e.expiresAt <= now).map(([k]) => k)) map.delete(key);
    }
    // A home whose newest event is past the history's retention has nothing left to show.
    const historyCutoff = now - this.historyLimits.retentionMs;
    for (const key of [...this.histories]
      .filter(([, t]) => (t.events.at(-1)?.at ?? -1) < historyCutoff)
      .map(([k]) => k))
      this.histories.delete(key);
    const oldestDay = new Date(now - USAGE_DAY_TTL_MS).toISOString().slice(0, 10);
    for (const [key, d] of [...this.days]) if (d.day < oldestDay) this.days.delete(key);
    this.figures.sweep(now);
    // An entry kept past its raw record's lifetime holds only its text (set again: its size counted anew).
    for (const [key, e] of [...this.entries].filter(([, e]) => e.value.raw !== null && e.value.rawExpiresAt <= now)) {
      this.entries.set(key, { ...e, value: { ...e.value, raw: null } }, { noUpdateTTL: true });
    }
    return released;
  }

  /** How many keys of each kind are held (for diagnostics and tests). */
  stats(): {
    entries: number;
    aliases: number;
    memos: number;
    locks: number;
    budgets: number;
    reservations: number;
    ledger: number;
    histories: number;
  } {
    return {
      entries: this.entries.size,
      aliases: this.aliases.size,
      memos: this.memos.size,
      locks: this.locks.size,
      budgets: this.budgets.size,
      reservations: this.reservations.size,
      ledger: this.ledgerEntries.length,
      histories: this.histories.size,
    };
  }

  async usage(accountId: string, period: string): Promise<UsageCounters> {
    return { ...this.bucket(accountId, period) };
  }

  async budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number> {
    return this.live(this.budgets, `${scope}:${day}`) ?? 0;
  }

  async chargesOf(requestId: string): Promise<LedgerEntry[]> {
    return this.ledgerEntries.filter((e) => e.requestId === requestId).map(entryOf);
  }

  async ledger(accountId?: string): Promise<LedgerEntry[]> {
    return this.ledgerEntries.filter((e) => accountId === undefined || e.accountId === accountId).map(entryOf);
  }

  async accountCharges(accountId: string, opts: { limit: number; before?: string }): Promise<AccountChargesPage> {
    const mine = this.chargesByAccount.get(accountId) ?? [];
    // From the newest, down to the one before `before` (ids increase along the list).
    let end = mine.length;
    if (opts.before !== undefined) {
      const before = opts.before;
      while (end > 0 && compareIds(mine[end - 1]!.id, before) >= 0) end -= 1;
    }
    const charges = mine
      .slice(Math.max(0, end - opts.limit), end)
      .reverse()
      .map((c) => ({ ...c }));
    return { charges, next: end > opts.limit ? charges[charges.length - 1]!.id : null };
  }

  async addDayCounts(counts: readonly DayCounts[]): Promise<void> {
    for (const c of counts) {
      const d = this.day(c.accountId, c.day);
      d.lookups += c.lookups;
      d.live += c.live;
      d.hits += c.hits;
      d.stale += c.stale;
      d.failed += c.failed;
    }
  }

  async usageDays(accountId: string, days: readonly string[]): Promise<UsageDay[]> {
    return days
      .map(
        (day) =>
          this.days.get(`${accountId}\u0000${day}`) ?? {
            day,
            lookups: 0,
            live: 0,
            hits: 0,
            stale: 0,
            failed: 0,
            credits: 0,
          },
      )
      .map((d) => ({ ...d }));
  }

  async markUsageAlert(accountId: string, period: string, alert: string): Promise<boolean> {
    const key = `${accountId}\u0000${period}\u0000${alert}`;
    if (this.alertsSent.has(key)) return false;
    this.alertsSent.add(key);
    return true;
  }

  /** An account's day, made on first use; days past USAGE_DAY_TTL_MS are dropped by sweep(). */
  private day(accountId: string, day: string): UsageDay {
    const key = `${accountId}\u0000${day}`;
    let d = this.days.get(key);
    if (!d) this.days.set(key, (d = { day, lookups: 0, live: 0, hits: 0, stale: 0, failed: 0, credits: 0 }));
    return d;
  }

  /** A charge id as a Redis stream gives one: this ms, or the last one's ms with the next sequence. */
  private nextChargeId(): string {
    const ms = this.clock();
    this.lastCharge =
      ms > this.lastCharge.ms ? { ms, seq: 0 } : { ms: this.lastCharge.ms, seq: this.lastCharge.seq + 1 };
    return `${this.lastCharge.ms}-${this.lastCharge.seq}`;
  }

  async tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    if (this.live(this.locks, key) !== null) return false;
    this.locks.set(key, { value: token, expiresAt: this.clock() + ttlMs });
    return true;
  }

  async unlock(key: string, token: string): Promise<void> {
    if (this.live(this.locks, key) === token) this.locks.delete(key);
  }

  async renewLocks(locks: readonly LockRef[], ttlMs: number): Promise<string[]> {
    const lost: string[] = [];
    for (const { key, token } of locks) {
      const lock = this.liveEntry(this.locks, key);
      if (lock && lock.value === token) lock.expiresAt = this.clock() + ttlMs;
      else lost.push(key);
    }
    return lost;
  }

  async claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    const slot = idempotencySlot(ref.accountId, ref.key);
    const done = this.liveEntry(this.answers, slot);
    if (done?.value.answer) {
      const answer = await unpackAnswer(done.value.answer);
      // Unpacking awaited: the claim below must not follow a write made meanwhile.
      if (answer) return { state: 'done', bodyHash: done.value.bodyHash, answer };
      if (this.answers.get(slot) === done) this.answers.delete(slot);
      return this.claimIdempotency(ref, bodyHash, leaseMs);
    }
    const running = this.liveEntry(this.claims, slot);
    if (running) return { state: 'running', bodyHash: running.value.bodyHash };
    // A released run of the same request: this is its retry, begun when that run began.
    const earlier = done && done.value.bodyHash === bodyHash ? done.value.since : undefined;
    if (done) this.answers.delete(slot);
    this.claims.set(slot, {
      value: { bodyHash, token: ref.token, answer: null, since: earlier ?? ref.startedAt },
      expiresAt: this.clock() + leaseMs,
    });
    return earlier === undefined ? { state: 'claimed' } : { state: 'claimed', since: earlier };
  }

  async completeIdempotency(ref: ClaimRef, answer: StoredAnswer, ttlMs: number): Promise<boolean> {
    const packed = await packAnswer(answer);
    const slot = idempotencySlot(ref.accountId, ref.key);
    const claim = this.liveEntry(this.claims, slot);
    if (!claim || claim.value.token !== ref.token) return false;
    this.claims.delete(slot);
    this.answers.set(slot, {
      value: { bodyHash: claim.value.bodyHash, token: null, answer: packed },
      expiresAt: this.clock() + ttlMs,
    });
    return true;
  }

  async releaseIdempotency(ref: ClaimRef, keepMs?: number): Promise<void> {
    const slot = idempotencySlot(ref.accountId, ref.key);
    const claim = this.liveEntry(this.claims, slot);
    if (claim?.value.token !== ref.token) return;
    this.claims.delete(slot);
    const { bodyHash, since } = claim.value;
    if (keepMs && since !== undefined)
      this.answers.set(slot, {
        value: { bodyHash, token: null, answer: null, since },
        expiresAt: this.clock() + keepMs,
      });
  }

  async renewIdempotency(refs: readonly ClaimRef[], leaseMs: number): Promise<string[]> {
    const lost: string[] = [];
    for (const ref of refs) {
      const claim = this.liveEntry(this.claims, idempotencySlot(ref.accountId, ref.key));
      if (claim && claim.value.token === ref.token) claim.expiresAt = this.clock() + leaseMs;
      else lost.push(ref.token);
    }
    return lost;
  }

  // --- the public figures (memory-figures.ts) ---

  addFigures(adds: readonly FigureAdd[]): Promise<void> {
    return this.figures.addFigures(adds);
  }

  readFigures(buckets: readonly string[]): Promise<FigureCounts[]> {
    return this.figures.readFigures(buckets);
  }

  putInstanceState(instance: string, state: string, ttlMs: number): Promise<void> {
    return this.figures.putInstanceState(instance, state, ttlMs);
  }

  instanceStates(): Promise<string[]> {
    return this.figures.instanceStates();
  }

  private bucket(accountId: string, period: string): UsageCounters {
    const k = `${accountId}:${period}`;
    let u = this.usageBuckets.get(k);
    if (!u) {
      u = { used: 0, reserved: 0, overageUsed: 0 };
      this.usageBuckets.set(k, u);
    }
    return u;
  }

  private live<T>(map: Keyed<Expiring<T>>, key: string): T | null {
    return this.liveEntry(map, key)?.value ?? null;
  }

  private liveEntry<T>(map: Keyed<Expiring<T>>, key: string): Expiring<T> | null {
    const e = map.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.clock()) {
      map.delete(key);
      return null;
    }
    return e;
  }

  private copy(a: Account | undefined): Account | null {
    return a ? { ...a } : null;
  }
}

/** What a history event is counted as: its id and text at two bytes a character, and its object's own cost. */
const eventBytes = (id: string, event: string): number => 2 * (id.length + event.length) + 48;

/** Event and charge ids (`<ms>-<seq>`, digits) in order, as Redis orders stream ids: by time, then sequence. */
function compareIds(a: string, b: string): number {
  const [am = '', as = ''] = a.split('-');
  const [bm = '', bs = ''] = b.split('-');
  const byDigits = (x: string, y: string) => {
    const [u, v] = [x.replace(/^0+(?=\d)/, ''), y.replace(/^0+(?=\d)/, '')];
    return u.length - v.length || (u < v ? -1 : u > v ? 1 : 0);
  };
  return byDigits(am, bm) || byDigits(as, bs);
}

/** A charge as the ledger lists it: its entry, without its id. */
function entryOf(c: AccountCharge): LedgerEntry {
  const { id: _, ...entry } = c;
  return entry;
}

function frozen(entry: CacheEntry | null): CacheEntry | null {
  if (entry) Object.freeze(Object.freeze(entry).source);
  return entry;
}

/**
 * The reserve decision, the same as the Redis script's. The kind is only what the lookup is held as
 * (the kind charged is decided at commit); the spend limit is checked against the worst case: every
 * lookup in flight plus this one is charged, and all past the remaining included ones are overage.
 * So while included lookups are in flight, a lookup may be refused with spend_limit_reached (or
 * credits_exhausted) that would have fitted had one of them failed: a transient refusal, never an
 * overcharge.
 */
function decideReserve(
  u: UsageCounters,
  req: ReserveRequest,
): 'included' | 'overage' | Exclude<ReserveResult, { ok: true }> {
  const remaining = Math.max(0, req.included - (u.used - u.overageUsed));
  if (u.reserved < remaining) return 'included';
  if (!req.overage) return { ok: false, reason: 'credits_exhausted', inFlight: u.reserved };
  const limit = req.overage.spendLimitMicroUsd;
  const overageInFlight = u.reserved - remaining;
  if (limit !== null && (u.overageUsed + overageInFlight + 1) * req.overage.rateMicroUsd > limit) {
    return {
      ok: false,
      reason: 'spend_limit_reached',
      overageUsed: u.overageUsed,
      overageInFlight,
      inFlight: u.reserved,
    };
  }
  return 'overage';
}

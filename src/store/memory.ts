// The embedded store: everything in this process's memory. Each method runs to completion
// without awaiting, so each is atomic in the same way a Redis script is.
import type { ErrorBody } from '../contract/index.js';
import type {
  Account, CacheEntry, LedgerEntry, ReserveRequest, ReserveResult, Store, UsageCounters,
} from './types.js';

interface Expiring<T> { value: T; expiresAt: number }

interface Reservation {
  accountId: string;
  period: string;
  kind: 'included' | 'overage';
  day: string;
  scope: 'service' | 'paid';
  expiresAt: number;
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly accounts = new Map<string, Account>();
  private readonly keyIndex = new Map<string, string>();
  private readonly entries = new Map<string, Expiring<CacheEntry>>();
  private readonly aliases = new Map<string, Expiring<string>>();
  private readonly memos = new Map<string, Expiring<ErrorBody>>();
  private readonly locks = new Map<string, Expiring<string>>();
  private readonly usageBuckets = new Map<string, UsageCounters>();
  private readonly budgets = new Map<string, number>();
  private readonly reservations = new Map<string, Reservation>();
  private readonly ledgerEntries: LedgerEntry[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  async ping(): Promise<void> {}
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
  }

  async listAccounts(): Promise<Account[]> {
    return [...this.accounts.values()].map((a) => ({ ...a }));
  }

  async getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]> {
    return keys.map((k) => this.live(this.entries, k));
  }

  async putEntry(key: string, entry: CacheEntry, ttlMs: number): Promise<void> {
    this.entries.set(key, { value: entry, expiresAt: this.clock() + ttlMs });
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

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    if (this.reservations.has(req.reservationId)) {
      return { ok: true, kind: this.reservations.get(req.reservationId)!.kind };
    }
    const u = this.bucket(req.accountId, req.period);
    let kind: 'included' | 'overage';
    if (u.used + u.reserved < req.included) {
      kind = 'included';
    } else if (req.overage) {
      const overageHeld = [...this.reservations.values()].filter(
        (r) => r.accountId === req.accountId && r.period === req.period && r.kind === 'overage',
      ).length;
      const limit = req.overage.spendLimitMicroUsd;
      if (limit !== null && (u.overageUsed + overageHeld + 1) * req.overage.rateMicroUsd > limit) {
        return { ok: false, reason: 'spend_limit_reached', overageUsed: u.overageUsed };
      }
      kind = 'overage';
    } else {
      return { ok: false, reason: 'credits_exhausted' };
    }
    const budgetKey = `${req.budget.scope}:${req.budget.day}`;
    const spent = this.budgets.get(budgetKey) ?? 0;
    if (req.budget.cap !== null && spent >= req.budget.cap) return { ok: false, reason: 'live_lookups_capped' };
    this.budgets.set(budgetKey, spent + 1);
    u.reserved += 1;
    this.reservations.set(req.reservationId, {
      accountId: req.accountId, period: req.period, kind, day: req.budget.day, scope: req.budget.scope,
      expiresAt: this.clock() + req.ttlMs,
    });
    return { ok: true, kind };
  }

  async commit(entry: LedgerEntry): Promise<boolean> {
    const r = this.reservations.get(entry.reservationId);
    if (!r) return false;
    this.reservations.delete(entry.reservationId);
    const u = this.bucket(r.accountId, r.period);
    u.reserved -= 1;
    u.used += 1;
    if (r.kind === 'overage') u.overageUsed += 1;
    this.ledgerEntries.push({ ...entry, accountId: r.accountId, kind: r.kind });
    return true;
  }

  async release(reservationId: string): Promise<boolean> {
    const r = this.reservations.get(reservationId);
    if (!r) return false;
    this.reservations.delete(reservationId);
    this.bucket(r.accountId, r.period).reserved -= 1;
    const budgetKey = `${r.scope}:${r.day}`;
    this.budgets.set(budgetKey, (this.budgets.get(budgetKey) ?? 1) - 1);
    return true;
  }

  async sweep(): Promise<number> {
    const now = this.clock();
    const expired = [...this.reservations.entries()].filter(([, r]) => r.expiresAt <= now).map(([id]) => id);
    for (const id of expired) await this.release(id);
    return expired.length;
  }

  async usage(accountId: string, period: string): Promise<UsageCounters> {
    return { ...this.bucket(accountId, period) };
  }

  async budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number> {
    return this.budgets.get(`${scope}:${day}`) ?? 0;
  }

  async ledger(accountId?: string): Promise<LedgerEntry[]> {
    return this.ledgerEntries.filter((e) => accountId === undefined || e.accountId === accountId).map((e) => ({ ...e }));
  }

  async tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    if (this.live(this.locks, key) !== null) return false;
    this.locks.set(key, { value: token, expiresAt: this.clock() + ttlMs });
    return true;
  }

  async unlock(key: string, token: string): Promise<void> {
    if (this.live(this.locks, key) === token) this.locks.delete(key);
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

  private live<T>(map: Map<string, Expiring<T>>, key: string): T | null {
    const e = map.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.clock()) {
      map.delete(key);
      return null;
    }
    return e.value;
  }

  private copy(a: Account | undefined): Account | null {
    return a ? { ...a } : null;
  }
}

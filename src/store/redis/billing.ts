// Billing on Redis (BillingStore), all under `{bill}`: reservations, usage buckets, daily budgets, the
// ledger stream, each request's charges, and each account's own record (its charges, its days).
//
// Exactness: every check-and-charge is ONE Lua script (reserve, commit, release), so it runs atomically
// on the server whatever the number of callers. Reservation expiry uses the server's clock (`TIME` inside
// the scripts), so instances with skewed clocks agree on what is expired. Where a script needs a key the
// caller does not know (the usage bucket and budget counter of a reservation), the caller reads it first
// and the script checks it is still the right one (-1: read again).
import { storeUnavailable as unavailable } from '../fail-fast.js';
import { lua } from '../lua.js';
import type { RedisClient } from '../redis-connection.js';
import type {
  AccountChargesPage,
  BillingStore,
  DayCounts,
  LedgerEntry,
  ReserveRequest,
  ReserveResult,
  UsageCounters,
  UsageDay,
  VoidRef,
} from '../types.js';
import { USAGE_DAY_TTL_MS } from '../types.js';
import { KEY_READ_ATTEMPTS, ms, type RedisConnection, type RenewalPipeline } from './connection.js';
import type { RedisKeys } from './keys.js';

/** A daily budget counter outlives its day by a day, then expires. */
const BUDGET_KEY_TTL_MS = 48 * 3600_000;
/**
 * How long a request's charges are found by its id (chargesOf, voidReservation): a lost answer is taken back
 * within the request's life, a job chunk's re-run comes within its lock's time and its next round within a day
 * (each charge renews it).
 */
const CHARGES_TTL_MS = 48 * 3600_000;
const SWEEP_BATCH = 500;
const LEDGER_PAGE = 1000;

const LUA_RESERVE = lua(new URL('./lua/reserve.lua', import.meta.url));
const LUA_COMMIT = lua(new URL('./lua/commit.lua', import.meta.url));
const LUA_RELEASE = lua(new URL('./lua/release.lua', import.meta.url));
const LUA_RELEASE_EXPIRED = lua(new URL('./lua/release-expired.lua', import.meta.url));
const LUA_EXPIRED = lua(new URL('./lua/expired.lua', import.meta.url));
const LUA_RENEW_RESERVATION = lua(new URL('./lua/renew-reservation.lua', import.meta.url));
const LUA_VOID_CHARGE = lua(new URL('./lua/void-charge.lua', import.meta.url));

type Reply = string | number | null;

interface BillingScripts {
  plReserve(...args: string[]): Promise<Reply[]>;
  plCommit(...args: string[]): Promise<number>;
  plRelease(...args: string[]): Promise<number>;
  plReleaseExpired(...args: string[]): Promise<number>;
  plExpired(...args: string[]): Promise<string[]>;
  plVoidCharge(...args: string[]): Promise<number>;
}

interface BillingPipeline extends RenewalPipeline {
  plRenewReservation(...args: string[]): BillingPipeline;
}

export class RedisBilling implements BillingStore {
  private readonly redis: RedisClient;
  private readonly k: RedisKeys;
  private readonly scripts: BillingScripts;

  constructor(
    private readonly c: RedisConnection,
    private readonly ledgerRetentionMs: number,
  ) {
    this.redis = c.redis;
    this.k = c.k;
    c.redis.defineCommand('plReserve', { numberOfKeys: 4, lua: LUA_RESERVE });
    c.redis.defineCommand('plCommit', { numberOfKeys: 7, lua: LUA_COMMIT });
    c.redis.defineCommand('plRelease', { numberOfKeys: 4, lua: LUA_RELEASE });
    c.redis.defineCommand('plReleaseExpired', { numberOfKeys: 4, lua: LUA_RELEASE_EXPIRED });
    c.redis.defineCommand('plExpired', { numberOfKeys: 1, lua: LUA_EXPIRED });
    c.redis.defineCommand('plRenewReservation', { numberOfKeys: 2, lua: LUA_RENEW_RESERVATION });
    c.redis.defineCommand('plVoidCharge', { numberOfKeys: 6, lua: LUA_VOID_CHARGE });
    this.scripts = c.redis as unknown as BillingScripts;
  }

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const reply = await this.run(() =>
      this.scripts.plReserve(
        this.k.reservation(req.reservationId),
        this.k.usage(req.accountId, req.period),
        this.k.budget(req.budget.scope, req.budget.day),
        this.k.reservationsByExpiry,
        req.reservationId,
        req.accountId,
        req.period,
        int(req.included),
        req.overage ? '1' : '0',
        req.overage ? int(req.overage.rateMicroUsd) : '0',
        req.overage && req.overage.spendLimitMicroUsd !== null ? int(req.overage.spendLimitMicroUsd) : '-1',
        req.budget.day,
        req.budget.scope,
        req.budget.cap === null ? '-1' : int(req.budget.cap),
        ms(req.ttlMs),
        String(BUDGET_KEY_TTL_MS),
      ),
    );
    const [ok, what, ...figures] = reply;
    if (Number(ok) === 1) return { ok: true, kind: what === 'overage' ? 'overage' : 'included' };
    const [a, b, c] = figures.map((n) => Number(n ?? 0));
    switch (what) {
      case 'credits_exhausted':
        return { ok: false, reason: 'credits_exhausted', inFlight: a ?? 0 };
      case 'spend_limit_reached':
        return {
          ok: false,
          reason: 'spend_limit_reached',
          overageUsed: a ?? 0,
          overageInFlight: b ?? 0,
          inFlight: c ?? 0,
        };
      case 'live_lookups_capped':
        return { ok: false, reason: 'live_lookups_capped' };
      default:
        throw unavailable(new Error(`unexpected reserve reply ${JSON.stringify(reply)}`));
    }
  }

  async commit(entry: LedgerEntry): Promise<boolean> {
    const rec = this.k.reservation(entry.reservationId);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const [bucket, account] = await this.run(() => this.redis.hmget(rec, 'bucket', 'account'));
      if (!bucket || !account) return false;
      const n = Number(
        await this.run(() =>
          this.scripts.plCommit(
            rec,
            this.k.reservationsByExpiry,
            this.k.ledger,
            bucket,
            this.k.charges(entry.requestId),
            this.k.accountCharges(account),
            this.k.usageDay(account, dayOf(entry.at)),
            entry.reservationId,
            entry.cacheKey,
            entry.requestId,
            entry.at,
            String(CHARGES_TTL_MS),
            String(this.ledgerRetentionMs),
            entry.source ?? '',
            String(USAGE_DAY_TTL_MS),
            account,
          ),
        ),
      );
      if (n !== -1) return n === 1;
    }
    throw unavailable(new Error(`reservation ${entry.reservationId} kept changing while being committed`));
  }

  release(reservationId: string): Promise<boolean> {
    return this.releaseBy(this.scripts.plRelease.bind(this.scripts), reservationId);
  }

  private async releaseBy(script: (...args: string[]) => Promise<number>, reservationId: string): Promise<boolean> {
    const rec = this.k.reservation(reservationId);
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const [bucket, budget] = await this.run(() => this.redis.hmget(rec, 'bucket', 'budget'));
      const n = Number(
        await this.run(() => script(rec, this.k.reservationsByExpiry, bucket ?? rec, budget ?? rec, reservationId)),
      );
      if (n !== -1) return n === 1;
    }
    throw unavailable(new Error(`reservation ${reservationId} kept changing while being released`));
  }

  /** Releases the reservations past their expiry (server clock), in batches; one renewed meanwhile stays held. */
  async sweep(): Promise<number> {
    const releaseExpired = this.scripts.plReleaseExpired.bind(this.scripts);
    let total = 0;
    for (;;) {
      const ids = await this.run(() => this.scripts.plExpired(this.k.reservationsByExpiry, String(SWEEP_BATCH)));
      for (const id of ids) if (await this.releaseBy(releaseExpired, id)) total++;
      if (ids.length < SWEEP_BATCH) return total;
    }
  }

  async voidReservation(ref: VoidRef): Promise<'released' | 'voided' | 'none'> {
    if (await this.release(ref.reservationId)) return 'released';
    const n = await this.run(() =>
      this.scripts.plVoidCharge(
        this.k.ledger,
        this.k.usage(ref.accountId, ref.period),
        this.k.budget(ref.scope, ref.day),
        this.k.charges(ref.requestId),
        this.k.accountCharges(ref.accountId),
        this.k.usageDay(ref.accountId, ref.chargedAt ? dayOf(ref.chargedAt) : ref.day),
        ref.reservationId,
      ),
    );
    return Number(n) === 1 ? 'voided' : 'none';
  }

  async renewReservations(ids: readonly string[], ttlMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const replies = await this.c.runRenewal(() =>
      this.c.renewEach(ids, (p: BillingPipeline, id) =>
        p.plRenewReservation(this.k.reservation(id), this.k.reservationsByExpiry, id, ms(ttlMs)),
      ),
    );
    return ids.filter((_, i) => Number(replies?.[i]?.[1]) !== 1);
  }

  async usage(accountId: string, period: string): Promise<UsageCounters> {
    const [used, reserved, overageUsed] = await this.run(() =>
      this.redis.hmget(this.k.usage(accountId, period), 'used', 'reserved', 'overage_used'),
    );
    return { used: Number(used ?? 0), reserved: Number(reserved ?? 0), overageUsed: Number(overageUsed ?? 0) };
  }

  async budgetUsage(day: string, scope: 'service' | 'paid'): Promise<number> {
    return Number((await this.run(() => this.redis.get(this.k.budget(scope, day)))) ?? 0);
  }

  async chargesOf(requestId: string): Promise<LedgerEntry[]> {
    const ids = Object.values(await this.run(() => this.redis.hgetall(this.k.charges(requestId))));
    if (ids.length === 0) return [];
    // One slot ({bill}): one pipeline, also on a cluster.
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.xrange(this.k.ledger, id, id);
    const replies = (await this.run(() => pipeline.exec())) ?? [];
    return replies.flatMap(([err, page]) => {
      if (err) throw unavailable(err);
      return (page as [string, string[]][]).map(([, fields]) => ledgerEntry(fields));
    });
  }

  async ledger(accountId?: string): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let start = '-';
    for (;;) {
      const page = await this.run(() => this.redis.xrange(this.k.ledger, start, '+', 'COUNT', LEDGER_PAGE));
      for (const [, fields] of page) {
        const e = ledgerEntry(fields);
        if (accountId === undefined || e.accountId === accountId) out.push(e);
      }
      if (page.length < LEDGER_PAGE) return out;
      start = `(${page[page.length - 1]![0]}`;
    }
  }

  async accountCharges(accountId: string, opts: { limit: number; before?: string }): Promise<AccountChargesPage> {
    const page = await this.run(() =>
      this.redis.xrevrange(
        this.k.accountCharges(accountId),
        opts.before === undefined ? '+' : `(${opts.before}`,
        '-',
        'COUNT',
        opts.limit + 1,
      ),
    );
    const charges = page.slice(0, opts.limit).map(([id, fields]) => ({ id, ...ledgerEntry(fields) }));
    return { charges, next: page.length > opts.limit ? charges[charges.length - 1]!.id : null };
  }

  async addDayCounts(counts: readonly DayCounts[]): Promise<void> {
    if (counts.length === 0) return;
    // One slot ({bill}): one pipeline, also on a cluster.
    const pipeline = this.redis.pipeline();
    for (const c of counts) {
      const key = this.k.usageDay(c.accountId, c.day);
      for (const field of DAY_FIELDS) if (c[field] !== 0) pipeline.hincrby(key, field, c[field]);
      pipeline.pexpire(key, USAGE_DAY_TTL_MS);
    }
    const replies = (await this.run(() => pipeline.exec())) ?? [];
    for (const [err] of replies) if (err) throw unavailable(err);
  }

  async usageDays(accountId: string, days: readonly string[]): Promise<UsageDay[]> {
    if (days.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.k.usageDay(accountId, day));
    const replies = (await this.run(() => pipeline.exec())) ?? [];
    return days.map((day, i) => {
      const [err, h] = replies[i] ?? [new Error('no reply'), null];
      if (err) throw unavailable(err);
      const f = (h ?? {}) as Record<string, string>;
      const n = (name: string) => Math.max(0, Number(f[name] ?? 0));
      return {
        day,
        lookups: n('lookups'),
        live: n('live'),
        hits: n('hits'),
        stale: n('stale'),
        failed: n('failed'),
        credits: n('credits'),
      };
    });
  }

  async markUsageAlert(accountId: string, period: string, alert: string): Promise<boolean> {
    const set = await this.run(() => this.redis.hsetnx(this.k.usage(accountId, period), `alert:${alert}`, '1'));
    return Number(set) === 1;
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.c.run(call);
  }
}

const DAY_FIELDS = ['lookups', 'live', 'hits', 'stale', 'failed'] as const;

/** The UTC day (YYYY-MM-DD) of an ISO time. */
const dayOf = (at: string): string => at.slice(0, 10);

function int(n: number): string {
  return String(Math.trunc(n));
}

function ledgerEntry(fields: string[]): LedgerEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  return {
    reservationId: f.reservation ?? '',
    accountId: f.account ?? '',
    cacheKey: f.cache_key ?? '',
    requestId: f.request ?? '',
    kind: f.kind === 'overage' ? 'overage' : 'included',
    at: f.at ?? '',
    ...(f.source === 'self_hosted' || f.source === 'fallback' ? { source: f.source } : {}),
  };
}

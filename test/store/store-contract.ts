// One behavioural suite for every Store: the memory store and the Redis store must agree.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENTRY_FORMAT } from '../../src/store/entry-format.js';
import type { Account, CacheEntry, LedgerEntry, ReserveRequest, Store } from '../../src/store/types.js';
import { everySection } from '../helpers/sections.js';

export type StoreFactory = () => Promise<Store>;

/** Test access to where a store keeps things, to plant what other code could have left there. */
export interface StoreBackdoor {
  /** Writes `text` where the store keeps the entry of `key` (for a Redis store: its current-version key). */
  writeEntryText(key: string, text: string): Promise<void>;
  /** The stored raw value of `key` (null: none). */
  readRawValue(key: string): Promise<Buffer | null>;
  /** Puts `value` (null: removes it) where the store keeps the raw record of `key`, as an eviction or a rewrite could. */
  writeRawValue(key: string, value: Buffer | null): Promise<void>;
  /**
   * Lets the entry of `key` reach the end of a lifetime of `ttlMs`, without waiting: the memory store's
   * clock moves on; on Redis the keys' remaining ttl is checked to be at most ttlMs, then they expire now.
   */
  expireEntry(key: string, ttlMs: number): Promise<void>;
  /**
   * `ms` pass for every lifetime the store keeps, without waiting: the memory store's clock moves on; on
   * Redis every ttl and lease expiry is moved `ms` closer. The lifetimes below are long (seconds), so a
   * stalled machine cannot end one before the test moves time on: no wait decides an outcome.
   */
  elapse(ms: number): Promise<void>;
}

export function account(over: Partial<Account> = {}): Account {
  const id = over.id ?? `acct_${randomUUID().slice(0, 8)}`;
  return {
    id,
    keyHash: over.keyHash ?? randomUUID().replace(/-/g, '').repeat(2),
    keyPrefix: 'pl_live_abcd',
    plan: 'free',
    allotment: 50,
    included: 0,
    overage: false,
    overageRateUsd: 0,
    spendLimitUsd: null,
    paymentFailing: false,
    revoked: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    label: null,
    ...over,
  };
}

export function entry(zpid: string): CacheEntry {
  return {
    record: JSON.stringify({
      zpid,
      address: `${zpid} Main St, Springfield, IL 62701`,
      price: 250_000,
      photos: [],
      priceHistory: [],
    }),
    fetchedAt: '2026-03-01T12:00:00.000Z',
    source: { provider: 'self_hosted', note: 'read the page' },
    zpid,
    sections: everySection('present'),
    storedAt: Date.parse('2026-03-01T12:00:00.000Z'),
  };
}

/** The raw record stored with entry(zpid): big and repetitive, like a real page's. */
export const rawJsonOf = (zpid: string): string =>
  JSON.stringify({
    nested: { zpid, list: Array.from({ length: 2000 }, (_, i) => ({ i, text: `photo ${i} of ${zpid}` })) },
  });

/** A reserve request with sensible defaults: free bucket of 3, unlimited service budget. */
export function req(accountId: string, over: Partial<ReserveRequest> = {}): ReserveRequest {
  return {
    reservationId: `res_${randomUUID()}`,
    accountId,
    period: 'lifetime',
    included: 3,
    overage: null,
    budget: { day: '2026-03-01', scope: 'service', cap: null },
    ttlMs: 60_000,
    ...over,
  };
}

export function ledgerEntry(reservationId: string, accountId: string, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    reservationId,
    accountId,
    cacheKey: 'zpid:123',
    requestId: `req_${reservationId.slice(-6)}`,
    kind: 'included',
    at: '2026-03-01T12:00:00.000Z',
    ...over,
  };
}

/**
 * A daily budget whose counter expired while two long reservations were held (`expire` does what
 * the store's 48 h expiry does): releases never take it below 0, and a new reservation counts from 0.
 * Memory and Redis expire the counter differently; the numbers after it must be the same.
 */
export async function budgetExpiryScenario(store: Store, expire: () => Promise<void>): Promise<void> {
  const day = '2026-03-01';
  const r = (ttlMs: number) => req('acct_budget', { included: 10, ttlMs, budget: { day, scope: 'service', cap: 5 } });
  const long1 = r(100 * 3600_000);
  const long2 = r(100 * 3600_000);
  expect((await store.reserve(long1)).ok).toBe(true);
  expect((await store.reserve(long2)).ok).toBe(true);
  expect(await store.budgetUsage(day, 'service')).toBe(2);
  await expire();
  expect(await store.budgetUsage(day, 'service')).toBe(0);
  expect(await store.release(long1.reservationId)).toBe(true);
  expect(await store.budgetUsage(day, 'service')).toBe(0);
  const late = r(60_000);
  expect((await store.reserve(late)).ok).toBe(true);
  expect(await store.budgetUsage(day, 'service')).toBe(1);
  expect(await store.release(long2.reservationId)).toBe(true);
  expect(await store.budgetUsage(day, 'service')).toBe(0);
  expect(await store.release(late.reservationId)).toBe(true);
  expect(await store.budgetUsage(day, 'service')).toBe(0);
  expect(await store.usage('acct_budget', 'lifetime')).toEqual({ used: 0, reserved: 0, overageUsed: 0 });
}

export function storeContract(label: string, factory: StoreFactory, backdoor: StoreBackdoor): void {
  describe(`Store contract: ${label}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('accounts', () => {
      it('stores an account and finds it by id and by key hash', async () => {
        const a = account({
          label: 'Acme',
          plan: 'paid',
          included: 100,
          overage: true,
          overageRateUsd: 0.05,
          spendLimitUsd: 20,
        });
        await store.putAccount(a);
        expect(await store.getAccount(a.id)).toEqual(a);
        expect(await store.getAccountByKeyHash(a.keyHash)).toEqual(a);
        expect(await store.getAccount('acct_missing')).toBeNull();
        expect(await store.getAccountByKeyHash('ff'.repeat(32))).toBeNull();
      });

      it('moves the key index when the key changes, and keeps flags', async () => {
        const a = account();
        await store.putAccount(a);
        const rotated = { ...a, keyHash: 'ab'.repeat(32), keyPrefix: 'pl_live_zzzz' };
        await store.putAccount(rotated);
        expect(await store.getAccountByKeyHash(a.keyHash)).toBeNull();
        expect(await store.getAccountByKeyHash(rotated.keyHash)).toEqual(rotated);
        await store.putAccount({ ...rotated, revoked: true, paymentFailing: true });
        expect((await store.getAccount(a.id))?.revoked).toBe(true);
        expect((await store.getAccountByKeyHash(rotated.keyHash))?.paymentFailing).toBe(true);
      });

      it('lists every account once', async () => {
        const as = [account(), account(), account({ plan: 'paid' })];
        for (const a of as) await store.putAccount(a);
        await store.putAccount({ ...as[0]!, label: 'renamed' });
        const listed = await store.listAccounts();
        expect(listed.map((a) => a.id).sort()).toEqual(as.map((a) => a.id).sort());
        expect(listed.find((a) => a.id === as[0]!.id)?.label).toBe('renamed');
      });
    });

    describe('cache, aliases, memo', () => {
      it('puts and gets entries in key order, misses as null', async () => {
        await store.putEntry('zpid:1', entry('1'), rawJsonOf('1'), 60_000);
        await store.putEntry('zpid:3', entry('3'), null, 60_000);
        const got = await store.getEntries(['zpid:1', 'zpid:2', 'zpid:3']);
        expect(got).toEqual([entry('1'), null, entry('3')]);
        expect(await store.getEntries([])).toEqual([]);
      });

      it('replaces an entry and lets it expire after its ttl', async () => {
        await store.putEntry('zpid:9', entry('9'), rawJsonOf('9'), 60_000);
        const newer = { ...entry('9'), fetchedAt: '2026-03-02T00:00:00.000Z' };
        await store.putEntry('zpid:9', newer, rawJsonOf('9b'), 30_000);
        expect(await store.getEntries(['zpid:9'])).toEqual([newer]);
        expect(await store.getEntriesWithRaw(['zpid:9'])).toEqual([{ entry: newer, rawJson: rawJsonOf('9b') }]);
        await backdoor.expireEntry('zpid:9', 30_000);
        expect(await store.getEntries(['zpid:9'])).toEqual([null]);
        expect(await store.getEntriesWithRaw(['zpid:9'])).toEqual([null]);
      });

      it('keeps the raw record apart: the entry does not carry it, read with it, it is given back as it was put', async () => {
        await store.putEntry('zpid:4', entry('4'), rawJsonOf('4'), 60_000);
        const [got] = await store.getEntries(['zpid:4']);
        expect(got).toEqual(entry('4'));
        expect(JSON.stringify(got)).not.toContain('photo 1 of 4');
        expect(await store.getEntriesWithRaw(['zpid:4', 'zpid:5'])).toEqual([
          { entry: entry('4'), rawJson: rawJsonOf('4') },
          null,
        ]);
        // Replaced without a raw record: the old one goes with the old entry.
        await store.putEntry('zpid:4', entry('4'), null, 60_000);
        expect(await store.getEntriesWithRaw(['zpid:4'])).toEqual([{ entry: entry('4'), rawJson: null }]);
      });

      it('an entry whose raw record is gone, of another write or damaged reads with raw as a miss, never with another raw', async () => {
        await store.putEntry('zpid:11', entry('11'), rawJsonOf('11'), 60_000);
        await store.putEntry('zpid:12', entry('12'), rawJsonOf('12'), 60_000);
        // Evicted (or expired first): the entry alone is still a hit without raw, but not with raw.
        await backdoor.writeRawValue('zpid:11', null);
        expect(await store.getEntries(['zpid:11'])).toEqual([entry('11')]);
        expect(await store.getEntriesWithRaw(['zpid:11', 'zpid:12'])).toEqual([
          null,
          { entry: entry('12'), rawJson: rawJsonOf('12') },
        ]);
        // Another write's raw record (a rewrite between two reads would leave the same pairing).
        const other = await backdoor.readRawValue('zpid:12');
        await backdoor.writeRawValue('zpid:11', other);
        expect(await store.getEntriesWithRaw(['zpid:11'])).toEqual([null]);
        // The same home written again: the older write's raw record does not pair with the new entry.
        const older = await backdoor.readRawValue('zpid:12');
        await store.putEntry('zpid:12', entry('12'), rawJsonOf('12'), 60_000);
        await backdoor.writeRawValue('zpid:12', older);
        expect(await store.getEntriesWithRaw(['zpid:12'])).toEqual([null]);
        // Damaged bytes behind the right id.
        await store.putEntry('zpid:12', entry('12'), rawJsonOf('12'), 60_000);
        const good = (await backdoor.readRawValue('zpid:12'))!;
        await backdoor.writeRawValue(
          'zpid:12',
          Buffer.concat([good.subarray(0, good.indexOf(10) + 1), Buffer.from('not brotli')]),
        );
        expect(await store.getEntriesWithRaw(['zpid:12'])).toEqual([null]);
      });

      it('an entry kept in another format (older code, another version, damaged) reads as a miss, never as an entry', async () => {
        await store.putEntry('zpid:6', entry('6'), null, 60_000);
        const oldCode = JSON.stringify({
          record: JSON.parse(entry('6').record),
          raw: {},
          fetchedAt: '2026-03-01T12:00:00.000Z',
          source: { provider: 'self_hosted' },
          zpid: '6',
        });
        const details = JSON.stringify({
          fetchedAt: '2026-03-01T12:00:00.000Z',
          source: { provider: 'self_hosted' },
          zpid: '6',
        });
        const record = entry('6').record;
        const { storedAt, sections } = entry('6');
        const full = JSON.stringify({
          fetchedAt: '2026-03-01T12:00:00.000Z',
          source: { provider: 'self_hosted' },
          zpid: '6',
          sections,
          storedAt,
          len: record.length,
          raw: null,
        });
        const undated = JSON.stringify({
          fetchedAt: '2026-03-01T12:00:00.000Z',
          source: { provider: 'self_hosted' },
          zpid: '6',
          sections,
          len: record.length,
          raw: null,
        });
        const unsectioned = JSON.stringify({
          fetchedAt: '2026-03-01T12:00:00.000Z',
          source: { provider: 'self_hosted' },
          zpid: '6',
          storedAt,
          len: record.length,
          raw: null,
        });
        const tag = `pe${ENTRY_FORMAT}\n`;
        const damaged = [
          `${tag}${full}\n${record.slice(0, -1)}`, // cut short
          `${tag}${full}\n${record.slice(0, -2)}}`, // ends with } but shorter than recorded
          `${tag}${details}\n${record}`, // no recorded length
          `${tag}${undated}\n${record}`, // no time it was read
          `${tag}${unsectioned}\n${record}`, // no sections
          `${tag}{not json\n{}`,
          tag,
        ];
        const older = Array.from({ length: ENTRY_FORMAT - 1 }, (_, i) => `pe${i + 1}\n${details}\n${record}`);
        for (const text of [oldCode, ...older, `pe${ENTRY_FORMAT + 1}\n${full}\n${record}`, ...damaged]) {
          await backdoor.writeEntryText('zpid:6', text);
          expect(await store.getEntries(['zpid:6']), text.slice(0, 40)).toEqual([null]);
        }
        // The same details in this version's form read as the entry.
        await backdoor.writeEntryText('zpid:6', `${tag}${full}\n${record}`);
        expect(await store.getEntries(['zpid:6'])).toEqual([{ ...entry('6'), source: { provider: 'self_hosted' } }]);
      });

      it('keeps an entry past its raw record (keepMs): then read alone, with raw a miss; its changes kept as put', async () => {
        const changed = {
          ...entry('13'),
          changes: [{ field: 'price' as const, from: 240_000, to: 250_000 }],
          previousFetchedAt: '2026-02-01T12:00:00.000Z',
        };
        await store.putEntry('zpid:13', changed, rawJsonOf('13'), 30_000, 90_000);
        expect(await store.getEntriesWithRaw(['zpid:13'])).toEqual([{ entry: changed, rawJson: rawJsonOf('13') }]);
        await backdoor.elapse(30_001);
        expect(await store.getEntries(['zpid:13'])).toEqual([changed]);
        expect(await store.getEntriesWithRaw(['zpid:13'])).toEqual([null]);
        await backdoor.elapse(60_000);
        expect(await store.getEntries(['zpid:13'])).toEqual([null]);
      });

      it('keeps aliases and lets them expire', async () => {
        await store.putAlias('addr:1 main st springfield il 62701', 'zpid:1', 60_000);
        await store.putAlias('bldg:abc', 'zpid:2', 30_000);
        expect(await store.getAliases(['addr:1 main st springfield il 62701', 'addr:none', 'bldg:abc'])).toEqual([
          'zpid:1',
          null,
          'zpid:2',
        ]);
        await backdoor.elapse(30_001);
        expect(await store.getAliases(['bldg:abc', 'addr:1 main st springfield il 62701'])).toEqual([null, 'zpid:1']);
        expect(await store.getAliases([])).toEqual([]);
      });

      it('keeps an ambiguity memo for its ttl', async () => {
        const body = {
          code: 'address_ambiguous',
          message: 'x',
          details: { candidate: { detailUrl: 'https://example.com/h/1_zpid/' } },
        };
        await store.putMemo('addr:2 main st', body, 30_000);
        expect(await store.getMemo('addr:2 main st')).toEqual(body);
        expect(await store.getMemo('addr:3 main st')).toBeNull();
        await backdoor.elapse(30_001);
        expect(await store.getMemo('addr:2 main st')).toBeNull();
      });
    });

    describe('reserve / commit / release', () => {
      it('free allotment: included until used up, then credits_exhausted; holds count', async () => {
        const id = account().id;
        const r = [req(id), req(id), req(id)];
        for (const x of r) expect(await store.reserve(x)).toEqual({ ok: true, kind: 'included' });
        // The refusal says how many lookups are in flight: it may not be final while there are some.
        expect(await store.reserve(req(id))).toEqual({ ok: false, reason: 'credits_exhausted', inFlight: 3 });
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 0, reserved: 3, overageUsed: 0 });
        expect(await store.release(r[0]!.reservationId)).toBe(true);
        expect(await store.commit(ledgerEntry(r[1]!.reservationId, id))).toBe(true);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 1, reserved: 1, overageUsed: 0 });
        expect(await store.reserve(req(id))).toEqual({ ok: true, kind: 'included' });
        expect(await store.reserve(req(id))).toEqual({ ok: false, reason: 'credits_exhausted', inFlight: 2 });
      });

      it('buckets are per account and per period', async () => {
        const a = account().id;
        const b = account().id;
        const one = { included: 1 };
        expect((await store.reserve(req(a, { ...one, period: '2026-03' }))).ok).toBe(true);
        expect((await store.reserve(req(a, { ...one, period: '2026-03' }))).ok).toBe(false);
        expect((await store.reserve(req(a, { ...one, period: '2026-04' }))).ok).toBe(true);
        expect((await store.reserve(req(b, { ...one, period: '2026-03' }))).ok).toBe(true);
        expect(await store.usage(a, '2026-03')).toEqual({ used: 0, reserved: 1, overageUsed: 0 });
        expect(await store.usage(a, '2026-05')).toEqual({ used: 0, reserved: 0, overageUsed: 0 });
      });

      it('paid plan: included, then overage up to the spend limit (held overage counts)', async () => {
        const id = account({ plan: 'paid' }).id;
        // 2 included, $0.05 per lookup past them, $0.10 limit → 2 overage lookups.
        const paid = (over: Partial<ReserveRequest> = {}) =>
          req(id, {
            period: '2026-03',
            included: 2,
            overage: { rateMicroUsd: 50_000, spendLimitMicroUsd: 100_000 },
            budget: { day: '2026-03-01', scope: 'paid', cap: null },
            ...over,
          });
        const inc = [paid(), paid()];
        for (const x of inc) expect(await store.reserve(x)).toEqual({ ok: true, kind: 'included' });
        const over1 = paid();
        const over2 = paid();
        expect(await store.reserve(over1)).toEqual({ ok: true, kind: 'overage' });
        expect(await store.reserve(over2)).toEqual({ ok: true, kind: 'overage' });
        // Two overage lookups are held (not committed): the limit already counts them, and says so.
        expect(await store.reserve(paid())).toEqual({
          ok: false,
          reason: 'spend_limit_reached',
          overageUsed: 0,
          overageInFlight: 2,
          inFlight: 4,
        });
        for (const x of [...inc, over1]) expect(await store.commit(ledgerEntry(x.reservationId, id))).toBe(true);
        expect(await store.release(over2.reservationId)).toBe(true);
        expect(await store.usage(id, '2026-03')).toEqual({ used: 3, reserved: 0, overageUsed: 1 });
        const over3 = paid();
        expect(await store.reserve(over3)).toEqual({ ok: true, kind: 'overage' });
        expect(await store.commit(ledgerEntry(over3.reservationId, id))).toBe(true);
        expect(await store.reserve(paid())).toEqual({
          ok: false,
          reason: 'spend_limit_reached',
          overageUsed: 2,
          overageInFlight: 0,
          inFlight: 0,
        });
        expect(await store.usage(id, '2026-03')).toEqual({ used: 4, reserved: 0, overageUsed: 2 });
        const kinds = (await store.ledger(id)).map((e) => e.kind).sort();
        expect(kinds).toEqual(['included', 'included', 'overage', 'overage']);
      });

      describe('the charged kind is decided at commit, not at reserve', () => {
        // 1 included lookup, then $0.05 each up to the limit given.
        const paidOne = (id: string, spendLimitMicroUsd: number | null) =>
          req(id, {
            period: '2026-03',
            included: 1,
            overage: { rateMicroUsd: 50_000, spendLimitMicroUsd },
            budget: { day: '2026-03-01', scope: 'paid', cap: null },
          });
        const kindOf = async (id: string, reservationId: string) =>
          (await store.ledger(id)).find((e) => e.reservationId === reservationId)?.kind;

        it('an included lookup that fails leaves its credit: the one held as overage meanwhile is charged as included', async () => {
          const id = account({ plan: 'paid' }).id;
          const first = paidOne(id, null);
          const second = paidOne(id, null);
          expect(await store.reserve(first)).toEqual({ ok: true, kind: 'included' });
          // Held as overage only because `first` is in flight.
          expect(await store.reserve(second)).toEqual({ ok: true, kind: 'overage' });
          expect(await store.release(first.reservationId)).toBe(true);
          expect(await store.commit(ledgerEntry(second.reservationId, id, { kind: 'overage' }))).toBe(true);
          expect(await store.usage(id, '2026-03')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
          expect(await kindOf(id, second.reservationId)).toBe('included');
        });

        it('whichever commits first takes the last included lookup; the other is the overage one', async () => {
          const id = account({ plan: 'paid' }).id;
          const heldIncluded = paidOne(id, null);
          const heldOverage = paidOne(id, null);
          expect(await store.reserve(heldIncluded)).toEqual({ ok: true, kind: 'included' });
          expect(await store.reserve(heldOverage)).toEqual({ ok: true, kind: 'overage' });
          expect(await store.commit(ledgerEntry(heldOverage.reservationId, id))).toBe(true);
          expect(await store.commit(ledgerEntry(heldIncluded.reservationId, id))).toBe(true);
          expect(await kindOf(id, heldOverage.reservationId)).toBe('included');
          expect(await kindOf(id, heldIncluded.reservationId)).toBe('overage');
          expect(await store.usage(id, '2026-03')).toEqual({ used: 2, reserved: 0, overageUsed: 1 });
        });

        it('the spend limit still holds when the kinds swap at commit', async () => {
          const id = account({ plan: 'paid' }).id;
          // $0.05 limit: exactly one overage lookup.
          const a = paidOne(id, 50_000);
          const b = paidOne(id, 50_000);
          expect(await store.reserve(a)).toEqual({ ok: true, kind: 'included' });
          expect(await store.reserve(b)).toEqual({ ok: true, kind: 'overage' });
          expect(await store.commit(ledgerEntry(b.reservationId, id))).toBe(true); // charged as included
          // `a` is still in flight and can only be charged as overage now: that uses up the limit.
          expect(await store.reserve(paidOne(id, 50_000))).toEqual({
            ok: false,
            reason: 'spend_limit_reached',
            overageUsed: 0,
            overageInFlight: 1,
            inFlight: 1,
          });
          expect(await store.commit(ledgerEntry(a.reservationId, id))).toBe(true);
          expect(await store.usage(id, '2026-03')).toEqual({ used: 2, reserved: 0, overageUsed: 1 });
          expect(await store.reserve(paidOne(id, 50_000))).toEqual({
            ok: false,
            reason: 'spend_limit_reached',
            overageUsed: 1,
            overageInFlight: 0,
            inFlight: 0,
          });
        });

        it('a spend-limit refusal while included lookups are in flight is transient', async () => {
          const id = account({ plan: 'paid' }).id;
          const a = paidOne(id, 0); // no overage money at all
          expect(await store.reserve(a)).toEqual({ ok: true, kind: 'included' });
          expect(await store.reserve(paidOne(id, 0))).toEqual({
            ok: false,
            reason: 'spend_limit_reached',
            overageUsed: 0,
            overageInFlight: 0,
            inFlight: 1,
          });
          expect(await store.release(a.reservationId)).toBe(true);
          const c = paidOne(id, 0);
          expect(await store.reserve(c)).toEqual({ ok: true, kind: 'included' });
          expect(await store.commit(ledgerEntry(c.reservationId, id))).toBe(true);
          expect(await store.usage(id, '2026-03')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
        });
      });

      it('paid plan without a spend limit: overage is not capped', async () => {
        const id = account({ plan: 'paid' }).id;
        const r = () =>
          req(id, { period: '2026-03', included: 1, overage: { rateMicroUsd: 50_000, spendLimitMicroUsd: null } });
        expect(await store.reserve(r())).toEqual({ ok: true, kind: 'included' });
        for (let i = 0; i < 20; i++) expect(await store.reserve(r())).toEqual({ ok: true, kind: 'overage' });
        expect(await store.usage(id, '2026-03')).toEqual({ used: 0, reserved: 21, overageUsed: 0 });
      });

      it('payment failing (overage null): credits_exhausted past the included lookups', async () => {
        const id = account({ plan: 'paid' }).id;
        expect(await store.reserve(req(id, { period: '2026-03', included: 1 }))).toEqual({
          ok: true,
          kind: 'included',
        });
        expect(await store.reserve(req(id, { period: '2026-03', included: 1, overage: null }))).toEqual({
          ok: false,
          reason: 'credits_exhausted',
          inFlight: 1,
        });
      });

      it('daily budget: capped per day and scope; refusal holds nothing; release gives back', async () => {
        const day = '2026-03-05';
        const cap = (scope: 'service' | 'paid', d = day) => ({ budget: { day: d, scope, cap: 2 } });
        const [a, b, c] = [account().id, account().id, account().id];
        const r1 = req(a, cap('service'));
        const r2 = req(b, cap('service'));
        expect((await store.reserve(r1)).ok).toBe(true);
        expect((await store.reserve(r2)).ok).toBe(true);
        expect(await store.reserve(req(c, cap('service')))).toEqual({ ok: false, reason: 'live_lookups_capped' });
        expect(await store.usage(c, 'lifetime')).toEqual({ used: 0, reserved: 0, overageUsed: 0 });
        expect((await store.reserve(req(c, cap('paid')))).ok).toBe(true);
        expect((await store.reserve(req(c, cap('service', '2026-03-06')))).ok).toBe(true);
        expect(await store.budgetUsage(day, 'service')).toBe(2);
        expect(await store.budgetUsage(day, 'paid')).toBe(1);
        // Committed lookups stay counted; released ones are given back.
        expect(await store.commit(ledgerEntry(r1.reservationId, a))).toBe(true);
        expect(await store.budgetUsage(day, 'service')).toBe(2);
        expect(await store.release(r2.reservationId)).toBe(true);
        expect(await store.budgetUsage(day, 'service')).toBe(1);
        expect((await store.reserve(req(c, cap('service')))).ok).toBe(true);
        expect(await store.reserve(req(b, cap('service')))).toEqual({ ok: false, reason: 'live_lookups_capped' });
        expect(await store.budgetUsage('2026-01-01', 'service')).toBe(0);
      });

      it('an exhausted account is refused before the budget is looked at', async () => {
        const id = account().id;
        const full = { included: 0, budget: { day: '2026-03-07', scope: 'service' as const, cap: 0 } };
        expect(await store.reserve(req(id, full))).toEqual({ ok: false, reason: 'credits_exhausted', inFlight: 0 });
        expect(await store.budgetUsage('2026-03-07', 'service')).toBe(0);
      });

      it('reserve is idempotent per reservation id', async () => {
        const id = account().id;
        const r = req(id, { included: 1, budget: { day: '2026-03-08', scope: 'service', cap: 5 } });
        expect(await store.reserve(r)).toEqual({ ok: true, kind: 'included' });
        expect(await store.reserve(r)).toEqual({ ok: true, kind: 'included' });
        expect(await store.reserve({ ...r })).toEqual({ ok: true, kind: 'included' });
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 0, reserved: 1, overageUsed: 0 });
        expect(await store.budgetUsage('2026-03-08', 'service')).toBe(1);
        expect(await store.commit(ledgerEntry(r.reservationId, id))).toBe(true);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
      });

      it('commit and release only act on held reservations', async () => {
        const id = account().id;
        expect(await store.commit(ledgerEntry('res_unknown', id))).toBe(false);
        expect(await store.release('res_unknown')).toBe(false);
        const a = req(id);
        const b = req(id);
        await store.reserve(a);
        await store.reserve(b);
        expect(await store.commit(ledgerEntry(a.reservationId, id))).toBe(true);
        expect(await store.commit(ledgerEntry(a.reservationId, id))).toBe(false);
        expect(await store.release(a.reservationId)).toBe(false);
        expect(await store.release(b.reservationId)).toBe(true);
        expect(await store.release(b.reservationId)).toBe(false);
        expect(await store.commit(ledgerEntry(b.reservationId, id))).toBe(false);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
        expect(await store.ledger(id)).toHaveLength(1);
        expect(await store.budgetUsage('2026-03-01', 'service')).toBe(1);
      });

      it('the ledger records the reservation’s account and kind with the request’s details', async () => {
        const id = account().id;
        const r = req(id);
        await store.reserve(r);
        const e = ledgerEntry(r.reservationId, 'acct_somebody_else', {
          kind: 'overage',
          cacheKey: 'addr:1 main st springfield il 62701',
          requestId: 'req-42',
          at: '2026-03-01T12:34:56.789Z',
        });
        expect(await store.commit(e)).toBe(true);
        expect(await store.ledger(id)).toEqual([{ ...e, accountId: id, kind: 'included' }]);
        expect(await store.ledger('acct_somebody_else')).toEqual([]);
      });

      it("a reservation held again under its id once its lease lapsed (a job re-run adopting a dead run's) gets a whole lease: the sweep leaves it, its commit charges", async () => {
        const id = account().id;
        const held = req(id, { ttlMs: 30_000 });
        expect(await store.reserve(held)).toEqual({ ok: true, kind: 'included' });
        await backdoor.elapse(30_001);
        // Lapsed, not yet swept: the re-run reserves under the same id and holds it.
        expect(await store.reserve(held)).toEqual({ ok: true, kind: 'included' });
        expect(await store.sweep()).toBe(0);
        await backdoor.elapse(29_000);
        expect(await store.sweep()).toBe(0);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 0, reserved: 1, overageUsed: 0 });
        expect(await store.commit(ledgerEntry(held.reservationId, id))).toBe(true);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
      });

      it('sweep releases only reservations past their ttl', async () => {
        const id = account().id;
        const day = { budget: { day: '2026-03-09', scope: 'service' as const, cap: 10 } };
        const short = req(id, { ttlMs: 30_000, ...day });
        const long = req(id, { ttlMs: 60_000, ...day });
        await store.reserve(short);
        await store.reserve(long);
        expect(await store.sweep()).toBe(0);
        await backdoor.elapse(30_001);
        expect(await store.sweep()).toBe(1);
        expect(await store.sweep()).toBe(0);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 0, reserved: 1, overageUsed: 0 });
        expect(await store.budgetUsage('2026-03-09', 'service')).toBe(1);
        expect(await store.commit(ledgerEntry(short.reservationId, id))).toBe(false);
        expect(await store.commit(ledgerEntry(long.reservationId, id))).toBe(true);
      });

      it('leases: a renewed reservation outlives its first ttl; one not renewed is swept; renewing a gone one reports it', async () => {
        const id = account().id;
        const day = { budget: { day: '2026-03-10', scope: 'service' as const, cap: 10 } };
        const kept = req(id, { ttlMs: 30_000, ...day });
        const lapsed = req(id, { ttlMs: 30_000, ...day });
        await store.reserve(kept);
        await store.reserve(lapsed);
        expect(await store.renewReservations([kept.reservationId], 60_000)).toEqual([]);
        await backdoor.elapse(30_001);
        expect(await store.sweep()).toBe(1);
        expect(await store.renewReservations([kept.reservationId, lapsed.reservationId], 60_000)).toEqual([
          lapsed.reservationId,
        ]);
        expect(await store.commit(ledgerEntry(kept.reservationId, id))).toBe(true);
        expect(await store.usage(id, 'lifetime')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
      });

      it('void: a held reservation is released; a recorded charge is taken back (ledger, counters, budget); then nothing', async () => {
        const id = account({ plan: 'paid' }).id;
        const day = '2026-03-11';
        const paid = () =>
          req(id, {
            period: '2026-03',
            included: 1,
            overage: { rateMicroUsd: 50_000, spendLimitMicroUsd: null },
            budget: { day, scope: 'paid', cap: 10 },
          });
        const ref = (reservationId: string) => ({
          reservationId,
          accountId: id,
          period: '2026-03',
          day,
          scope: 'paid' as const,
          requestId: ledgerEntry(reservationId, id).requestId,
        });
        const [kept, held, charged] = [paid(), paid(), paid()];
        for (const r of [kept, held, charged]) expect((await store.reserve(r)).ok).toBe(true);
        expect(await store.commit(ledgerEntry(kept.reservationId, id))).toBe(true);
        expect(await store.commit(ledgerEntry(charged.reservationId, id))).toBe(true); // charged as overage
        expect(await store.voidReservation(ref(held.reservationId))).toBe('released');
        expect(await store.voidReservation(ref(charged.reservationId))).toBe('voided');
        expect(await store.voidReservation(ref(charged.reservationId))).toBe('none');
        expect((await store.ledger(id)).map((e) => e.reservationId)).toEqual([kept.reservationId]);
        expect(await store.usage(id, '2026-03')).toEqual({ used: 1, reserved: 0, overageUsed: 0 });
        expect(await store.budgetUsage(day, 'paid')).toBe(1);
      });

      it("chargesOf: a request's charges, found by its id (no ledger scan), oldest first; a void takes one out", async () => {
        const id = account().id;
        const [a1, a2, b1] = [req(id), req(id), req(id)];
        for (const r of [a1, a2, b1]) expect((await store.reserve(r)).ok).toBe(true);
        expect(
          await store.commit(ledgerEntry(a1.reservationId, id, { requestId: 'job:j1:0', cacheKey: 'zpid:1' })),
        ).toBe(true);
        expect(
          await store.commit(ledgerEntry(b1.reservationId, id, { requestId: 'job:j1:1', cacheKey: 'zpid:9' })),
        ).toBe(true);
        expect(
          await store.commit(ledgerEntry(a2.reservationId, id, { requestId: 'job:j1:0', cacheKey: 'zpid:2' })),
        ).toBe(true);
        expect((await store.chargesOf('job:j1:0')).map((e) => [e.reservationId, e.cacheKey])).toEqual([
          [a1.reservationId, 'zpid:1'],
          [a2.reservationId, 'zpid:2'],
        ]);
        expect((await store.chargesOf('job:j1:1')).map((e) => e.cacheKey)).toEqual(['zpid:9']);
        expect(await store.chargesOf('job:none:0')).toEqual([]);
        const ref = {
          reservationId: a1.reservationId,
          accountId: id,
          period: 'lifetime',
          day: '2026-03-01',
          scope: 'service' as const,
          requestId: 'job:j1:0',
        };
        expect(await store.voidReservation(ref)).toBe('voided');
        expect((await store.chargesOf('job:j1:0')).map((e) => e.cacheKey)).toEqual(['zpid:2']);
        // Under another request's id it is not found: a void names the request whose charge it takes back.
        expect(await store.voidReservation({ ...ref, reservationId: b1.reservationId })).toBe('none');
        expect((await store.usage(id, 'lifetime')).used).toBe(2);
      });

      it("an account's own record: its charges by the commit (newest first, paged, with their source), its day's credits; a void takes both back", async () => {
        const id = account().id;
        const other = account().id;
        const rs = [req(id), req(id), req(id), req(other)];
        for (const r of rs) expect((await store.reserve(r)).ok).toBe(true);
        const at = ['2026-03-01T23:59:59.000Z', '2026-03-02T00:00:01.000Z', '2026-03-02T10:00:00.000Z'];
        for (const [i, r] of rs.slice(0, 3).entries())
          expect(
            await store.commit(
              ledgerEntry(r.reservationId, id, {
                requestId: `req-${i}`,
                cacheKey: `zpid:${i}`,
                at: at[i]!,
                ...(i === 1 ? { source: 'fallback' as const } : {}),
              }),
            ),
          ).toBe(true);
        expect(await store.commit(ledgerEntry(rs[3]!.reservationId, other, { at: at[2]! }))).toBe(true);
        const first = await store.accountCharges(id, { limit: 2 });
        expect(first.charges.map((c) => [c.cacheKey, c.source])).toEqual([
          ['zpid:2', undefined],
          ['zpid:1', 'fallback'],
        ]);
        expect(first.next).toBe(first.charges[1]!.id);
        const rest = await store.accountCharges(id, { limit: 2, before: first.next! });
        expect(rest).toMatchObject({ next: null, charges: [{ cacheKey: 'zpid:0', requestId: 'req-0' }] });
        expect((await store.accountCharges(other, { limit: 10 })).charges).toHaveLength(1);
        expect((await store.accountCharges('acct_none', { limit: 10 })).charges).toEqual([]);
        // The ledger holds the same entries (the source too).
        expect((await store.ledger(id)).find((e) => e.cacheKey === 'zpid:1')?.source).toBe('fallback');
        const days = async () => (await store.usageDays(id, ['2026-03-01', '2026-03-02'])).map((d) => d.credits);
        expect(await days()).toEqual([1, 2]);
        // A void of an applied commit: the charge leaves the account's record and its day.
        const ref = {
          reservationId: rs[1]!.reservationId,
          accountId: id,
          period: 'lifetime',
          day: '2026-03-01',
          scope: 'service' as const,
          requestId: 'req-1',
          chargedAt: at[1]!,
        };
        expect(await store.voidReservation(ref)).toBe('voided');
        expect(await days()).toEqual([1, 1]);
        expect((await store.accountCharges(id, { limit: 10 })).charges.map((c) => c.cacheKey)).toEqual([
          'zpid:2',
          'zpid:0',
        ]);
        expect((await store.usage(id, 'lifetime')).used).toBe(2);
      });

      it("day counters: outcomes added to their account's day; a day without any reads as zeros", async () => {
        const id = account().id;
        const day = { accountId: id, day: '2026-03-05', lookups: 3, live: 1, hits: 1, stale: 0, failed: 1 };
        await store.addDayCounts([day, { ...day, lookups: 1, live: 0, hits: 0, failed: 0, stale: 1 }]);
        await store.addDayCounts([]);
        expect(await store.usageDays(id, ['2026-03-05', '2026-03-06'])).toEqual([
          { day: '2026-03-05', lookups: 4, live: 1, hits: 1, stale: 1, failed: 1, credits: 0 },
          { day: '2026-03-06', lookups: 0, live: 0, hits: 0, stale: 0, failed: 0, credits: 0 },
        ]);
        expect(await store.markUsageAlert(id, '2026-03', '80')).toBe(true);
        expect(await store.markUsageAlert(id, '2026-03', '80')).toBe(false);
        expect(await store.markUsageAlert(id, '2026-04', '80')).toBe(true);
      });

      it('ledger always equals the counters', async () => {
        const ids = [account().id, account().id, account().id];
        let seed = 7;
        const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        const held: { r: ReserveRequest }[] = [];
        for (let i = 0; i < 120; i++) {
          const acct = ids[Math.floor(rand() * ids.length)]!;
          const r = req(acct, {
            period: '2026-03',
            included: 5,
            overage: rand() < 0.5 ? { rateMicroUsd: 10_000, spendLimitMicroUsd: 150_000 } : null,
          });
          if ((await store.reserve(r)).ok) held.push({ r });
          if (held.length > 0 && rand() < 0.6) {
            const [{ r: x }] = held.splice(Math.floor(rand() * held.length), 1) as [{ r: ReserveRequest }];
            if (rand() < 0.7) expect(await store.commit(ledgerEntry(x.reservationId, x.accountId))).toBe(true);
            else expect(await store.release(x.reservationId)).toBe(true);
          }
        }
        let total = 0;
        for (const acct of ids) {
          const u = await store.usage(acct, '2026-03');
          const l = await store.ledger(acct);
          expect(l.length).toBe(u.used);
          expect(l.filter((e) => e.kind === 'overage').length).toBe(u.overageUsed);
          expect(u.reserved).toBe(held.filter((h) => h.r.accountId === acct).length);
          expect(u.used - u.overageUsed).toBeLessThanOrEqual(5);
          // Overage is charged only once the included lookups are all charged.
          if (u.overageUsed > 0) expect(u.used - u.overageUsed).toBe(5);
          expect(u.overageUsed).toBeLessThanOrEqual(15);
          total += u.used;
        }
        expect(total).toBeGreaterThan(0);
        expect((await store.ledger()).filter((e) => ids.includes(e.accountId))).toHaveLength(total);
        expect(new Set((await store.ledger()).map((e) => e.reservationId)).size).toBe((await store.ledger()).length);
      });
    });

    describe('single-flight lock', () => {
      it('only one holder; only the owner unlocks; expires after its ttl', async () => {
        expect(await store.tryLock('zpid:1', 'tok-a', 60_000)).toBe(true);
        expect(await store.tryLock('zpid:1', 'tok-b', 60_000)).toBe(false);
        expect(await store.tryLock('zpid:2', 'tok-b', 60_000)).toBe(true);
        await store.unlock('zpid:1', 'tok-b');
        expect(await store.tryLock('zpid:1', 'tok-c', 60_000)).toBe(false);
        await store.unlock('zpid:1', 'tok-a');
        expect(await store.tryLock('zpid:1', 'tok-c', 30_000)).toBe(true);
        await backdoor.elapse(30_001);
        expect(await store.tryLock('zpid:1', 'tok-d', 60_000)).toBe(true);
        // The expired holder cannot release the new holder's lock.
        await store.unlock('zpid:1', 'tok-c');
        expect(await store.tryLock('zpid:1', 'tok-e', 60_000)).toBe(false);
      });

      it('a lease: renewed by its holder it outlives its first ttl; another token cannot renew it; once lapsed it is taken over', async () => {
        expect(await store.tryLock('zpid:7', 'tok-a', 30_000)).toBe(true);
        expect(await store.renewLocks([{ key: 'zpid:7', token: 'tok-a' }], 60_000)).toEqual([]);
        expect(
          await store.renewLocks(
            [
              { key: 'zpid:7', token: 'tok-x' },
              { key: 'zpid:8', token: 'tok-a' },
            ],
            60_000,
          ),
        ).toEqual(['zpid:7', 'zpid:8']);
        await backdoor.elapse(30_001);
        expect(await store.tryLock('zpid:7', 'tok-b', 30_000)).toBe(false);
        expect(await store.renewLocks([{ key: 'zpid:7', token: 'tok-a' }], 10_000)).toEqual([]);
        await backdoor.elapse(10_001);
        expect(await store.tryLock('zpid:7', 'tok-b', 60_000)).toBe(true);
        expect(await store.renewLocks([{ key: 'zpid:7', token: 'tok-a' }], 60_000)).toEqual(['zpid:7']);
      });
    });

    describe("homes' history", () => {
      const event = (n: number) => JSON.stringify({ n, changes: [{ field: 'price', from: n, to: n + 1 }] });

      it('events come back newest first, paged before an id, each home its own; an unknown home has none', async () => {
        expect(await store.readHistory('zpid:h1', 10, null)).toEqual([]);
        const ids: string[] = [];
        for (const n of [1, 2, 3]) ids.push(await store.appendHistory('zpid:h1', event(n)));
        await store.appendHistory('zpid:h2', event(9));
        expect(new Set(ids).size).toBe(3);
        for (const id of ids) expect(id).toMatch(/^\d+-\d+$/);
        expect(await store.readHistory('zpid:h1', 10, null)).toEqual([
          { id: ids[2], event: event(3) },
          { id: ids[1], event: event(2) },
          { id: ids[0], event: event(1) },
        ]);
        expect((await store.readHistory('zpid:h1', 2, null)).map((e) => e.id)).toEqual([ids[2], ids[1]]);
        expect((await store.readHistory('zpid:h1', 2, ids[1]!)).map((e) => e.id)).toEqual([ids[0]]);
        expect(await store.readHistory('zpid:h1', 2, ids[0]!)).toEqual([]);
        expect(await store.readHistory('zpid:h2', 10, null)).toEqual([{ id: expect.any(String), event: event(9) }]);
      });
    });

    describe('public figures', () => {
      it('adds counts into buckets (read back in the order asked, {} for none), each kept its ttl', async () => {
        await store.addFigures([
          { bucket: 'm:100', counts: { ok: 2, 'e:not_found': 1 }, ttlMs: 30_000 },
          { bucket: 'h:1', counts: { ok: 2 }, ttlMs: 60_000 },
        ]);
        await store.addFigures([{ bucket: 'm:100', counts: { ok: 3, hit: 1 }, ttlMs: 30_000 }]);
        expect(await store.readFigures(['h:1', 'm:99', 'm:100'])).toEqual([
          { ok: 2 },
          {},
          { ok: 5, 'e:not_found': 1, hit: 1 },
        ]);
        expect(await store.readFigures([])).toEqual([]);
        await backdoor.elapse(30_001);
        expect(await store.readFigures(['m:100', 'h:1'])).toEqual([{}, { ok: 2 }]);
      });

      it("keeps each instance's latest state for its ttl", async () => {
        await store.putInstanceState('i-1', 'closed', 10_000);
        await store.putInstanceState('i-2', 'open', 30_000);
        await store.putInstanceState('i-1', 'none', 10_000);
        expect((await store.instanceStates()).sort()).toEqual(['none', 'open']);
        await backdoor.elapse(10_001);
        expect(await store.instanceStates()).toEqual(['open']);
      });
    });

    describe('idempotency keys', () => {
      const answer = {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({
          data: Array.from({ length: 50 }, (_, i) => ({ index: i, ok: true, text: `home ${i}` })),
        }),
      };
      const ref = (token: string, key = 'key-1', accountId = 'acct_a') => ({ accountId, key, token });

      it('the first claim runs; others see it running with its body hash; its answer is then given back as it was put, per account', async () => {
        expect(await store.claimIdempotency(ref('tok-a'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        expect(await store.claimIdempotency(ref('tok-b'), 'hash-2', 30_000)).toEqual({
          state: 'running',
          bodyHash: 'hash-1',
        });
        // The same key of another account is another key.
        expect(await store.claimIdempotency(ref('tok-c', 'key-1', 'acct_b'), 'hash-1', 30_000)).toEqual({
          state: 'claimed',
        });
        expect(await store.completeIdempotency(ref('tok-b'), { ...answer, status: 500 }, 60_000)).toBe(false);
        expect(await store.completeIdempotency(ref('tok-a'), answer, 86_400_000)).toBe(true);
        expect(await store.claimIdempotency(ref('tok-d'), 'hash-2', 30_000)).toEqual({
          state: 'done',
          bodyHash: 'hash-1',
          answer,
        });
        // Completed: the claim's token holds nothing any more.
        expect(await store.renewIdempotency([ref('tok-a')], 30_000)).toEqual(['tok-a']);
        await store.releaseIdempotency(ref('tok-a'));
        expect(await store.claimIdempotency(ref('tok-e'), 'hash-1', 30_000)).toEqual({
          state: 'done',
          bodyHash: 'hash-1',
          answer,
        });
        expect(await store.claimIdempotency(ref('tok-f', 'key-1', 'acct_b'), 'hash-1', 30_000)).toEqual({
          state: 'running',
          bodyHash: 'hash-1',
        });
      });

      it('an answer lives its ttl, then the key is free again', async () => {
        expect(await store.claimIdempotency(ref('tok-a'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        expect(await store.completeIdempotency(ref('tok-a'), answer, 60_000)).toBe(true);
        await backdoor.elapse(59_000);
        expect((await store.claimIdempotency(ref('tok-b'), 'hash-1', 30_000)).state).toBe('done');
        await backdoor.elapse(1_001);
        expect(await store.claimIdempotency(ref('tok-b'), 'hash-2', 30_000)).toEqual({ state: 'claimed' });
      });

      it('a released claim frees the key; only its own token releases it', async () => {
        expect(await store.claimIdempotency(ref('tok-a'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        await store.releaseIdempotency(ref('tok-x'));
        expect((await store.claimIdempotency(ref('tok-b'), 'hash-1', 30_000)).state).toBe('running');
        await store.releaseIdempotency(ref('tok-a'));
        expect(await store.claimIdempotency(ref('tok-b'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        expect(await store.completeIdempotency(ref('tok-a'), answer, 60_000)).toBe(false);
      });

      it('released with keepMs, a run leaves its start: the same request claiming the key again is told it (its retry), another is not; it lives keepMs', async () => {
        const started = (token: string, startedAt: number, key = 'key-3') => ({ ...ref(token, key), startedAt });
        expect(await store.claimIdempotency(started('tok-a', 1_000), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        await store.releaseIdempotency(started('tok-a', 1_000), 60_000);
        // The retry's own start is later: the first run's is what it is told, and keeps through its own release.
        expect(await store.claimIdempotency(started('tok-b', 5_000), 'hash-1', 30_000)).toEqual({
          state: 'claimed',
          since: 1_000,
        });
        expect((await store.claimIdempotency(started('tok-c', 6_000), 'hash-1', 30_000)).state).toBe('running');
        await store.releaseIdempotency(started('tok-b', 5_000), 60_000);
        expect(await store.claimIdempotency(started('tok-c', 7_000), 'hash-1', 30_000)).toEqual({
          state: 'claimed',
          since: 1_000,
        });
        expect(await store.completeIdempotency(started('tok-c', 7_000), answer, 60_000)).toBe(true);
        expect((await store.claimIdempotency(started('tok-d', 8_000), 'hash-1', 30_000)).state).toBe('done');
        // Another request under a released key runs as new; a release without keepMs leaves nothing.
        expect(await store.claimIdempotency(started('tok-e', 1_000, 'key-4'), 'hash-1', 30_000)).toEqual({
          state: 'claimed',
        });
        await store.releaseIdempotency(started('tok-e', 1_000, 'key-4'), 60_000);
        expect(await store.claimIdempotency(started('tok-f', 2_000, 'key-4'), 'hash-2', 30_000)).toEqual({
          state: 'claimed',
        });
        await store.releaseIdempotency(started('tok-f', 2_000, 'key-4'));
        expect(await store.claimIdempotency(started('tok-g', 3_000, 'key-4'), 'hash-2', 30_000)).toEqual({
          state: 'claimed',
        });
        // The mark lives keepMs.
        await store.releaseIdempotency(started('tok-g', 3_000, 'key-4'), 60_000);
        await backdoor.elapse(60_001);
        expect(await store.claimIdempotency(started('tok-h', 4_000, 'key-4'), 'hash-2', 30_000)).toEqual({
          state: 'claimed',
        });
      });

      it('a lease: renewed by its holder the claim outlives its first lease; a crashed holder’s (not renewed) lapses and the key is claimed again, and the late holder cannot complete it', async () => {
        expect(await store.claimIdempotency(ref('tok-a'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        expect(await store.renewIdempotency([ref('tok-a'), ref('tok-x', 'key-2')], 30_000)).toEqual(['tok-x']);
        await backdoor.elapse(20_000);
        expect(await store.renewIdempotency([ref('tok-a')], 30_000)).toEqual([]);
        await backdoor.elapse(20_000);
        expect((await store.claimIdempotency(ref('tok-b'), 'hash-1', 30_000)).state).toBe('running');
        // The holder stops renewing (it crashed): its lease lapses.
        await backdoor.elapse(10_001);
        expect(await store.claimIdempotency(ref('tok-b'), 'hash-1', 30_000)).toEqual({ state: 'claimed' });
        expect(await store.renewIdempotency([ref('tok-a')], 30_000)).toEqual(['tok-a']);
        expect(await store.completeIdempotency(ref('tok-a'), answer, 60_000)).toBe(false);
        expect(await store.completeIdempotency(ref('tok-b'), answer, 60_000)).toBe(true);
        expect(await store.claimIdempotency(ref('tok-c'), 'hash-1', 30_000)).toEqual({
          state: 'done',
          bodyHash: 'hash-1',
          answer,
        });
      });
    });
  });
}

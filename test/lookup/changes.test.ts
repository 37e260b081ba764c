// Change hints (lookup/changes.ts) and the freshness rule (lookup/cache-policy.ts), as pure functions.
import { describe, expect, it } from 'vitest';
import { changesBetween, unreadFields, type Snapshot } from '../../src/lookup/changes.js';
import { SECTION_NAMES, type Sections } from '../../src/contract/sections.js';
import { ageSeconds, freshnessFor, isFresh, isKept } from '../../src/lookup/cache-policy.js';
import type { CacheEntry } from '../../src/store/index.js';
import { everySection } from '../helpers/sections.js';

const listed = {
  date: '2026-01-10',
  event: 'Listed for sale',
  price: 500_000,
  pricePerSquareFoot: 400,
  priceChangeRate: null,
  source: 'MLS',
};
const cut = {
  date: '2026-02-01',
  event: 'Price change',
  price: 480_000,
  pricePerSquareFoot: 384,
  priceChangeRate: -0.04,
  source: 'MLS',
};
const before: Snapshot = {
  price: 500_000,
  homeStatus: 'FOR_SALE',
  estimate: 510_000,
  rentEstimate: 2_900,
  monthlyHoaFee: 250,
  photoCount: 30,
  daysOnPortal: 20,
  priceHistory: [listed],
};

describe('changesBetween', () => {
  it('the same snapshot read again: no changes (an empty list)', () => {
    expect(changesBetween(before, { ...before, priceHistory: [{ ...listed }] })).toEqual([]);
  });

  it('each value field that differs, in the contract order, from → to', () => {
    const after = {
      ...before,
      price: 480_000,
      homeStatus: 'PENDING' as const,
      estimate: null,
      rentEstimate: 3_000,
      monthlyHoaFee: 260,
      photoCount: 31,
    };
    expect(changesBetween(before, after)).toEqual([
      { field: 'price', from: 500_000, to: 480_000 },
      { field: 'homeStatus', from: 'FOR_SALE', to: 'PENDING' },
      { field: 'estimate', from: 510_000, to: null },
      { field: 'rentEstimate', from: 2_900, to: 3_000 },
      { field: 'monthlyHoaFee', from: 250, to: 260 },
      { field: 'photoCount', from: 30, to: 31 },
    ]);
  });

  it('a field missing on one side reads as null: a value appearing is a change, null to missing is not', () => {
    expect(changesBetween({ price: null }, { price: 1 })).toEqual([{ field: 'price', from: null, to: 1 }]);
    expect(changesBetween({ price: null }, {})).toEqual([]);
  });

  it('daysOnPortal: a count that went down (relisted) is a change; growth, or turning null, is not', () => {
    expect(changesBetween(before, { ...before, daysOnPortal: 2 })).toEqual([
      { field: 'daysOnPortal', from: 20, to: 2 },
    ]);
    expect(changesBetween(before, { ...before, daysOnPortal: 45 })).toEqual([]);
    expect(changesBetween(before, { ...before, daysOnPortal: null })).toEqual([]);
    expect(changesBetween({ ...before, daysOnPortal: null }, { ...before, daysOnPortal: 1 })).toEqual([]);
  });

  it('priceHistory: each new event (by date, event and price), newest first as listed; re-read details of a known one are not new', () => {
    const sold = {
      date: '2026-03-01',
      event: 'Sold',
      price: 470_000,
      pricePerSquareFoot: 376,
      priceChangeRate: null,
      source: 'Public record',
    };
    const after = {
      ...before,
      priceHistory: [sold, cut, { ...listed, pricePerSquareFoot: 401, source: 'Another MLS' }],
    };
    expect(changesBetween(before, after)).toEqual([
      { field: 'priceHistory', from: null, to: sold },
      { field: 'priceHistory', from: null, to: cut },
    ]);
  });
});

describe('fields whose section was not read are not compared', () => {
  const all = (state: Sections[keyof Sections]): Sections =>
    Object.fromEntries(SECTION_NAMES.map((n) => [n, state])) as Sections;
  const read = all('present');

  it('both snapshots read every section (present or not_published): every field compared', () => {
    expect([...unreadFields(read, { ...read, estimate: 'not_published' })]).toEqual([]);
  });

  it('a section extraction_failed or not_found on either side leaves its fields out, the others stay', () => {
    const unread = unreadFields(
      { ...read, priceHistory: 'extraction_failed' },
      { ...read, estimate: 'not_found', photos: 'extraction_failed' },
    );
    expect([...unread].sort()).toEqual(['estimate', 'photoCount', 'priceHistory']);
    const after = { ...before, price: 1, estimate: null, photoCount: 0, priceHistory: [cut, listed] };
    expect(changesBetween(before, after, unread)).toEqual([{ field: 'price', from: 500_000, to: 1 }]);
  });
});

describe('freshness', () => {
  const config = {
    cacheTtlMs: 24 * 3600_000,
    staleTtlMs: 30 * 24 * 3600_000,
    incompleteTtlMs: 600_000,
    ambiguityMemoTtlMs: 1,
  };
  const now = Date.parse('2026-05-01T12:00:00.000Z');
  const readAgo = (ms: number): CacheEntry => ({
    record: '{}',
    fetchedAt: '2026-01-01T00:00:00.000Z',
    source: { provider: 'self_hosted', note: '' },
    zpid: '1',
    sections: everySection('present'),
    storedAt: now - ms,
  });

  it('without max_age: a hit within the cache lifetime, a miss past it', () => {
    const f = freshnessFor(config, now, undefined);
    expect(isFresh(readAgo(24 * 3600_000), f)).toBe(true);
    expect(isFresh(readAgo(24 * 3600_000 + 1), f)).toBe(false);
  });

  it('max_age tightens the rule, never loosens it; 0 takes only a read begun at or after the lookup', () => {
    expect(isFresh(readAgo(60_000), freshnessFor(config, now, 60))).toBe(true);
    expect(isFresh(readAgo(60_001), freshnessFor(config, now, 60))).toBe(false);
    expect(isFresh(readAgo(0), freshnessFor(config, now, 0))).toBe(true);
    expect(isFresh(readAgo(1), freshnessFor(config, now, 0))).toBe(false);
    expect(isFresh(readAgo(2 * 3600_000), freshnessFor({ ...config, cacheTtlMs: 3600_000 }, now, 86_400))).toBe(false);
  });

  it('a record with a section in extraction_failed is fresh within INCOMPLETE_TTL_MS only, whatever the store still holds', () => {
    const incomplete = (ms: number): CacheEntry => ({
      ...readAgo(ms),
      sections: { ...everySection('present'), schools: 'extraction_failed' },
    });
    expect(isFresh(incomplete(600_000), freshnessFor(config, now, undefined))).toBe(true);
    expect(isFresh(incomplete(600_001), freshnessFor(config, now, undefined))).toBe(false);
    expect(isFresh(incomplete(60_001), freshnessFor(config, now, 60))).toBe(false);
    expect(isFresh(incomplete(0), freshnessFor(config, now, 0))).toBe(true);
  });

  it('a record stands in for a failed read until STALE_TTL_MS past its cache lifetime', () => {
    expect(isKept(config, readAgo(31 * 24 * 3600_000 - 1), now)).toBe(true);
    expect(isKept(config, readAgo(31 * 24 * 3600_000), now)).toBe(false);
  });

  it('age_seconds: whole seconds since the read, never negative', () => {
    expect(ageSeconds(readAgo(90_999), now)).toBe(90);
    expect(ageSeconds(readAgo(-5_000), now)).toBe(0);
  });
});

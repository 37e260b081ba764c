// Golden records of the fallback provider: the recorded actor items, reduced to today's shape (the
// actor's mapped fields only; test/helpers/fallback-items.ts), mapped into PortalProperty and compared
// with the expected records in fixtures/fallback/expected/ (checked field by field against the items;
// see fixtures/fallback/README.md). The recorded items as they are (raw fields beside the mapped ones)
// must give the same records, so both shapes are read alike.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapItem, missingCoreFields } from '../../src/collector/fallback/index.js';
import { PortalProperty } from '../../src/contract/index.js';
import { forSaleItem } from '../fakes/fake-actor-platform.js';
import { TODAYS_KEYS, recordedBatch, recordedWrongUnit, todaysShape } from '../helpers/fallback-items.js';
import { expectSchema } from '../helpers/schema.js';

const OPTS = { now: new Date('2026-08-10T00:00:00.000Z'), scrapedAt: '2026-08-10T12:00:00.000Z' };
const expected = (zpid: unknown) =>
  JSON.parse(
    readFileSync(new URL(`../../fixtures/fallback/expected/${String(zpid)}.json`, import.meta.url), 'utf8'),
  ) as unknown;
const items = [...recordedBatch(), recordedWrongUnit()];

describe("today's shape, derived from the recorded items", () => {
  it('keeps only the published field list', () => {
    for (const item of items) {
      const reduced = todaysShape(item);
      expect(Object.keys(reduced).every((k) => TODAYS_KEYS.includes(k))).toBe(true);
      for (const gone of [
        'address',
        'streetAddress',
        'price',
        'homeStatus',
        'latitude',
        'priceHistory',
        'taxHistory',
        'attributionInfo',
        'hdpUrl',
        'originalPhotos',
        'schools',
      ]) {
        expect(reduced).not.toHaveProperty(gone);
      }
    }
  });

  it.each(items.map((i) => [String(i.zpid), i] as const))('zpid %s maps to its expected record', (zpid, item) => {
    const { property } = mapItem(todaysShape(item), OPTS);
    expectSchema(PortalProperty, property);
    expect(property).toEqual(expected(zpid));
    expect(missingCoreFields(property)).toEqual([]);
  });

  it.each(items.map((i) => [String(i.zpid), i] as const))(
    'zpid %s: the recorded item with its raw fields maps to the same record',
    (zpid, item) => {
      expect(mapItem(item, OPTS).property).toEqual(expected(zpid));
    },
  );
});

describe('every field the actor supplies is mapped', () => {
  it('address, price, status, coordinates, photos, history, schools, agent, broker and MLS of a sold home', () => {
    const { property } = mapItem(todaysShape(recordedBatch().find((i) => i.zpid === 7521381)!), OPTS);
    expect(property).toMatchObject({
      streetAddress: '938 W Portland Street',
      city: 'Phoenix',
      state: 'AZ',
      zipcode: '85007',
      county: 'Maricopa County',
      latitude: 33.459957,
      longitude: -112.0868,
      price: 755000,
      homeStatus: 'RECENTLY_SOLD',
      lotSize: 7484,
      agentName: 'Chrissie Cline',
      brokerName: 'Compass',
      mlsId: '7003424',
      mlsName: 'ARMLS',
      detailUrl: 'https://www.zillow.com/homedetails/938-W-Portland-St-Phoenix-AZ-85007/7521381_zpid/',
    });
    expect(property.photos).toHaveLength(60);
    expect(property.priceHistory[0]).toEqual({
      date: '2026-07-06',
      event: 'Sold',
      price: 755000,
      pricePerSquareFoot: 568,
      priceChangeRate: -0.025806451612903226,
      source: 'ARMLS',
    });
    expect(property.taxHistory[0]).toEqual({
      year: 2025,
      taxPaid: 1637.14,
      value: 22100,
      taxIncreaseRate: 0.06222264,
      valueIncreaseRate: -0.0820353,
    });
    expect(property.schools).toHaveLength(2);
  });

  it('a satellite map as the only listing image is no photo: photos [], photoCount 0 (the item counts 1), no imgSrc', () => {
    const item = recordedWrongUnit();
    expect(item.photoCount).toBe(1);
    expect(JSON.stringify(item.listingPhotos)).toContain('maps.googleapis.com/maps/api/staticmap');
    for (const shape of [todaysShape(item), item]) {
      const { property } = mapItem(shape, OPTS);
      expect(property).toMatchObject({ photos: [], photoCount: 0, imgSrc: null });
    }
  });

  it("a neighbourhood that is the ZIP code is none (the item's region falls back to its ZIP)", () => {
    const item = recordedBatch().find((i) => i.zpid === 2075961815)!;
    expect(item).toMatchObject({
      parentRegion: { name: '85390' },
      listingAddress: { neighborhood: '85390', zipCode: '85390' },
    });
    for (const shape of [todaysShape(item), item]) expect(mapItem(shape, OPTS).property.neighborhood).toBeNull();
  });

  it("scrapedAt is when the actor read the item; the service's clock only when the item does not say", () => {
    expect(mapItem(todaysShape(recordedWrongUnit()), OPTS).property.scrapedAt).toBe('2026-08-05T18:07:30.337Z');
    expect(mapItem(forSaleItem(), OPTS).property.scrapedAt).toBe(OPTS.scrapedAt);
  });

  it('the old raw shape without any mapped field still maps (the property object the actor passed through)', () => {
    const { property } = mapItem(forSaleItem(), OPTS);
    expect(property).toMatchObject({
      zpid: '15192198',
      streetAddress: '661 Lakeview Ave',
      city: 'San Francisco',
      state: 'CA',
      zipcode: '94112',
    });
    expect(missingCoreFields(property)).toEqual([]);
  });

  it("the old raw names read on today's shape find no core fields, which is what makes such a record unservable", () => {
    const { property } = mapItem(todaysShape(forSaleItem()), OPTS);
    expect(missingCoreFields(property)).toEqual(['streetAddress', 'city', 'state', 'price_or_status']);
  });
});

// The apartment-building rule (spec 2.1): the lowest-priced unit available on the lookup date,
// else the lowest-priced unit. Every test pins the clock through `now`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapBuilding } from '../../src/collector/mapping/index.js';

type Json = Record<string, unknown>;
const excerpt = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8')).building;
const LENOX = excerpt('excerpt-building-apartments-lenox-grand-2026-10.json');
const B_PAGE = excerpt('excerpt-building-b-CvBTSB-2026-10.json');

const on = (building: Json, isoDay: string) =>
  mapBuilding(building, { now: new Date(`${isoDay}T12:00:00Z`), scrapedAt: `${isoDay}T12:00:00.000Z` });
const picked = (building: Json, isoDay: string) => {
  const r = on(building, isoDay);
  return { unit: r.unit, price: r.price, beds: r.beds, baths: r.baths, livingArea: r.livingArea };
};

// A small building of ungrouped units, the /b/ page shape.
const ms = (isoDay: string) => String(Date.parse(`${isoDay}T07:00:00Z`));
const unit = (unitNumber: string, price: number | null, extra: Json = {}): Json => ({
  unitNumber,
  price,
  beds: 1,
  baths: 1,
  sqft: 500,
  listingType: 'FOR_RENT',
  availableFrom: '0',
  ...extra,
});
const building = (units: Json[], extra: Json = {}): Json => ({
  zpid: '1',
  currency: 'USD',
  ungroupedUnits: units,
  ...extra,
});

describe('Lenox Grand (51 floor-plan units)', () => {
  it('on the capture day picks Unit 11303 at $1,426, moved in since 2026-09-16', () => {
    expect(picked(LENOX, '2026-10-09')).toEqual({ unit: '11303', price: 1426, beds: 1, baths: 1, livingArea: 528 });
  });

  it('before that move-in date picks the cheapest unit with no move-in date, Unit 05209 at $1,506', () => {
    expect(picked(LENOX, '2026-09-15')).toEqual({ unit: '05209', price: 1506, beds: 1, baths: 1, livingArea: 613 });
  });

  it('counts a unit as available on its move-in day', () => {
    expect(picked(LENOX, '2026-09-16').unit).toBe('11303');
  });

  it('describes the building, not the unit, in zpid, address and photos', () => {
    const r = on(LENOX, '2026-10-09');
    expect(r.zpid).toBe('2056262612');
    expect(r.address).toBe('13505 Burnet Rd, Austin, TX 78727');
    expect(r.detailUrl).toBe('https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/');
    expect(r.photos).toHaveLength(3);
    expect(r.photos.every((u) => u.endsWith('-sr_1536_1024.jpg'))).toBe(true);
    expect(r.homeStatus).toBe('FOR_RENT');
    expect(r.statusText).toBe('For rent');
  });
});

describe('the /b/ page (27 ungrouped units: 5 for rent, 1 for sale, 1 sold, 20 off market)', () => {
  it('picks Unit 211 at $995 and ignores the off-market rows that carry a stale rent or price', () => {
    expect(picked(B_PAGE, '2026-10-09')).toEqual({ unit: '211', price: 995, beds: 1, baths: 1, livingArea: 500 });
  });

  it('never takes an off-market or for-sale unit, even when it is the only priced one', () => {
    const units = (B_PAGE.ungroupedUnits as Json[]).filter((u) => u.listingType !== 'FOR_RENT');
    const r = on({ ...B_PAGE, ungroupedUnits: units }, '2026-10-09');
    expect(units.some((u) => typeof u.price === 'number' && u.price > 0)).toBe(true);
    expect(r.price).toBeNull();
    expect(r.unit).toBeNull();
    expect(r.currency).toBeNull();
    expect(r.homeStatus).toBe('OTHER');
    expect(r.statusText).toBeNull();
  });

  it('moves to the next cheapest available unit when Unit 211 is gone', () => {
    const units = (B_PAGE.ungroupedUnits as Json[]).filter(
      (u) => !(u.listingType === 'FOR_RENT' && u.unitNumber === 'Unit 211'),
    );
    expect(picked({ ...B_PAGE, ungroupedUnits: units }, '2026-10-09')).toMatchObject({ unit: '111', price: 1150 });
  });
});

describe('the rule on small buildings', () => {
  it('a cheaper unit counts only from its move-in date', () => {
    const b = building([unit('Unit 1', 1200), unit('Unit 2', 900, { availableFrom: ms('2026-11-01') })]);
    expect(picked(b, '2026-10-31').unit).toBe('1');
    expect(picked(b, '2026-11-01').unit).toBe('2');
  });

  it('when nothing is available yet, takes the cheapest unit anyway', () => {
    const b = building([
      unit('Unit 1', 1200, { availableFrom: ms('2027-01-01') }),
      unit('Unit 2', 900, { availableFrom: ms('2027-03-01') }),
    ]);
    expect(picked(b, '2026-10-09')).toMatchObject({ unit: '2', price: 900 });
    expect(on(b, '2026-10-09').homeStatus).toBe('FOR_RENT');
  });

  it('reads ISO move-in dates too', () => {
    const b = building([unit('Unit 1', 1200), unit('Unit 2', 900, { availableFrom: '2026-11-01' })]);
    expect(picked(b, '2026-10-09').unit).toBe('1');
    expect(picked(b, '2026-11-02').unit).toBe('2');
  });

  it('treats a price of 0 as no price', () => {
    const b = building([unit('Unit 1', 0), unit('Unit 2', 1300)]);
    expect(picked(b, '2026-10-09')).toMatchObject({ unit: '2', price: 1300 });
  });

  it('ignores for-sale and off-market rows whatever their price', () => {
    const b = building([
      unit('Unit 1', 250000, { listingType: 'FOR_SALE' }),
      unit('Unit 2', 500, { listingType: 'OTHER' }),
      unit('Unit 3', 1400, { listingType: 'RECENTLY_SOLD' }),
      unit('Unit 4', 1500),
    ]);
    expect(picked(b, '2026-10-09')).toMatchObject({ unit: '4', price: 1500 });
  });

  it('lets a floor plan without a unit list stand for one unnamed unit at its lowest price', () => {
    const b: Json = {
      floorPlans: [
        { name: 'S1', beds: 0, baths: 1, sqft: 410, minPrice: 1100, availableFrom: '0', units: [] },
        { name: 'A1', beds: 1, baths: 1, sqft: 600, minPrice: 0, availableFrom: '0', units: [] },
      ],
    };
    expect(picked(b, '2026-10-09')).toEqual({ unit: null, price: 1100, beds: 0, baths: 1, livingArea: 410 });
  });

  it('takes beds, baths and area from the floor plan when the unit lacks them', () => {
    const b: Json = {
      floorPlans: [
        { beds: 2, baths: 2, sqft: 990, units: [{ unitNumber: 'Unit 7', price: 2100, availableFrom: '0' }] },
      ],
    };
    expect(picked(b, '2026-10-09')).toEqual({ unit: '7', price: 2100, beds: 2, baths: 2, livingArea: 990 });
  });

  it('reports a building virtual tour and one home type, and none for a mixed building', () => {
    const tour = building([unit('Unit 1', 1000)], {
      thirdPartyVirtualTours: [{ externalUrl: 'https://tours.example.com/b1' }],
      homeTypes: ['apartment'],
    });
    expect(on(tour, '2026-10-09')).toMatchObject({
      virtualTourUrl: 'https://tours.example.com/b1',
      homeType: 'APARTMENT',
    });
    expect(on(building([], { homeTypes: ['condo', 'apartment'] }), '2026-10-09').homeType).toBeNull();
  });
});

// Issue 10 §8 on a building. DERIVED inputs: the recorded /b/ page's building with the named fields changed.
describe('fidelity (derived from the /b/ page excerpt)', () => {
  it('a ZIP code given as the neighbourhood is none', () => {
    const zipAsNeighborhood = {
      ...B_PAGE,
      address: { ...(B_PAGE.address as Json), neighborhood: '78705' },
      neighborhood: '78705',
    };
    expect(on(B_PAGE, '2026-10-09').neighborhood).toBe('Hancock');
    expect(on(zipAsNeighborhood, '2026-10-09').neighborhood).toBeNull();
  });

  it('a building whose only image is a street-view link has no photo', () => {
    const streetView =
      'https://maps.googleapis.com/maps/api/streetview?location=710%20E%20Dean%20Keeton%20St&size=400x250&format=.jpg';
    const derived = { ...B_PAGE, galleryPhotos: [], signaturePhotos: [], photos: [{ url: streetView }], photoCount: 1 };
    expect(on(derived, '2026-10-09')).toMatchObject({ photos: [], photoCount: 0, imgSrc: null });
    expect(on(B_PAGE, '2026-10-09').photoCount).toBe(11);
  });
});

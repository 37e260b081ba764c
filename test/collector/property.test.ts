// Rules of the home mapping that the golden fixtures do not reach: the status table, the price
// rule per status, sentinels, and the fallbacks for provider items without page extras.
import { describe, expect, it } from 'vitest';
import { mapProperty, statusOf } from '../../src/collector/mapping/index.js';
import type { PageExtras } from '../../src/collector/page/index.js';

type Json = Record<string, unknown>;
const map = (p: Json, extras: PageExtras | null = null) =>
  mapProperty(p, extras, { scrapedAt: '2026-10-09T12:00:00.000Z' });

describe('statusOf', () => {
  it.each([
    [{ homeStatus: 'FOR_SALE' }, 'FOR_SALE', 'For sale', 'active'],
    [{ homeStatus: 'FOR_SALE', listingSubType: { isPending: true } }, 'PENDING', 'Pending', 'active'],
    [{ homeStatus: 'FOR_SALE', listing_sub_type: { is_pending: true } }, 'PENDING', 'Pending', 'active'],
    [{ homeStatus: 'FOR_SALE', contingentListingType: 'UNDER_CONTRACT' }, 'PENDING', 'Pending', 'active'],
    [{ homeStatus: 'FOR_SALE', listingSubType: { isComingSoon: true } }, 'COMING_SOON', 'Coming soon', 'active'],
    [{ homeStatus: 'FOR_SALE', listingSubType: { isForeclosure: true } }, 'FORECLOSURE', 'Foreclosure', 'active'],
    [{ homeStatus: 'FOR_SALE', listing_sub_type: { is_bankOwned: true } }, 'FORECLOSURE', 'Foreclosure', 'active'],
    [{ homeStatus: 'FOR_SALE', listingSubType: { isForAuction: true } }, 'FOR_SALE', 'Auction', 'active'],
    [{ homeStatus: 'FOR_SALE', listingSubType: { isNewHome: true } }, 'FOR_SALE', 'New construction', 'active'],
    [{ homeStatus: 'FOR_SALE', listing_sub_type: { is_FSBO: true } }, 'FOR_SALE', 'For sale by owner', 'active'],
    [{ homeStatus: 'PENDING' }, 'PENDING', 'Pending', 'active'],
    [{ homeStatus: 'COMING_SOON' }, 'COMING_SOON', 'Coming soon', 'active'],
    [{ homeStatus: 'FOR_RENT' }, 'FOR_RENT', 'For rent', 'active'],
    [{ homeStatus: 'RECENTLY_SOLD' }, 'RECENTLY_SOLD', 'Sold', 'sold'],
    [{ homeStatus: 'SOLD' }, 'RECENTLY_SOLD', 'Sold', 'sold'],
    [{ homeStatus: 'PRE_FORECLOSURE' }, 'FORECLOSURE', 'Foreclosure', 'none'],
    [{ homeStatus: 'FORECLOSED' }, 'FORECLOSURE', 'Foreclosure', 'none'],
    [{ homeStatus: 'OFF_MARKET' }, 'OFF_MARKET', 'Off market', 'none'],
    [{ homeStatus: 'OTHER' }, 'OTHER', 'Off market', 'none'],
    [{ homeStatus: 'SOMETHING_NEW' }, 'OTHER', null, 'none'],
    [{ homeStatusForHDP: 'FOR_SALE' }, 'FOR_SALE', 'For sale', 'active'],
    [{ keystoneHomeStatus: 'RecentlySold' }, 'RECENTLY_SOLD', 'Sold', 'sold'],
    [{}, null, null, 'unknown'],
  ])('%j → %s / %s', (p, homeStatus, statusText, listing) => {
    expect(statusOf(p)).toEqual({ homeStatus, statusText, listing });
  });
});

describe('price', () => {
  it('is never 0: a 0 or -1 list price is no price', () => {
    expect(map({ homeStatus: 'FOR_SALE', price: 0 }).price).toBeNull();
    expect(map({ homeStatus: 'FOR_SALE', price: -1 }).price).toBeNull();
  });

  it('is the sale price for a sold home, and null when the sale price is undisclosed', () => {
    expect(map({ homeStatus: 'RECENTLY_SOLD', price: 250000, lastSoldPrice: 240000 }).price).toBe(240000);
    // With no sale price shown, the site's price can be its estimate: not a sale price.
    expect(
      map({ homeStatus: 'RECENTLY_SOLD', price: 250000, zestimate: 250000, lastSoldPrice: null }).price,
    ).toBeNull();
    expect(
      map({ homeStatus: 'RECENTLY_SOLD', priceHistory: [{ date: '2024-01-02', event: 'Sold', price: 230000 }] }).price,
    ).toBe(230000);
  });

  it('is null, with its currency and per-square-foot figure, for a home that is not listed', () => {
    const r = map({
      homeStatus: 'OTHER',
      price: 318400,
      currency: 'USD',
      zestimate: 318400,
      resoFacts: { pricePerSquareFoot: 207 },
    });
    expect(r).toMatchObject({ price: null, currency: null, pricePerSquareFoot: null, estimate: 318400 });
  });

  it('is the monthly rent for a rental', () => {
    expect(map({ homeStatus: 'FOR_RENT', price: 1150, currency: 'USD' })).toMatchObject({
      price: 1150,
      currency: 'USD',
    });
  });
});

describe('nulls are never zeros', () => {
  it('keeps a studio (0 bedrooms) but not 0 bedrooms on land', () => {
    expect(map({ homeType: 'APARTMENT', bedrooms: 0 }).beds).toBe(0);
    expect(map({ homeType: 'LOT', bedrooms: 0 }).beds).toBeNull();
  });

  it('drops negative days on site and a rental zestimate of 0', () => {
    expect(map({ homeStatus: 'FOR_SALE', daysOnZillow: -1 }).daysOnPortal).toBeNull();
    expect(map({ homeStatus: 'FOR_SALE', daysOnZillow: 0 }).daysOnPortal).toBe(0);
    expect(map({ rentZestimate: 0, zestimate: null }).rentEstimate).toBeNull();
  });

  it('treats a tax amount under $10 as "not yet assessed" and falls back to the tax history', () => {
    const r = map({ taxAnnualAmount: 5, taxHistory: [{ time: 1717200000000, taxPaid: 4100.5, value: 250000 }] });
    expect(r.taxAnnualAmount).toBe(4100.5);
    expect(r.taxHistory).toEqual([
      { year: 2024, taxPaid: 4100.5, value: 250000, taxIncreaseRate: null, valueIncreaseRate: null },
    ]);
  });

  it('returns every list as an array and every other field as null for an empty object', () => {
    const r = map({});
    expect(r.photos).toEqual([]);
    expect(r.priceHistory).toEqual([]);
    expect(r.taxHistory).toEqual([]);
    expect(r.schools).toEqual([]);
    const { photos, priceHistory, taxHistory, schools, scrapedAt, ...scalars } = r;
    expect(Object.values(scalars).every((v) => v === null)).toBe(true);
    expect(scrapedAt).toBe('2026-10-09T12:00:00.000Z');
  });
});

describe('provider items (no page extras)', () => {
  it('takes the unit from a unit field before the street line', () => {
    expect(map({ address: { streetAddress: '1 Main St #2' }, unitNumber: 'Unit 7' }).unit).toBe('7');
    expect(map({ address: { streetAddress: '1 Main St #2' } }).unit).toBe('2');
  });

  it('builds the detail link from the zpid when the item has no hdpUrl', () => {
    expect(map({ zpid: 123 }).detailUrl).toBe('https://www.zillow.com/homedetails/123_zpid/');
  });

  it('takes the zpid from the detail link when the item has none', () => {
    expect(map({ hdpUrl: '/homedetails/1-Main-St/456_zpid/' }).zpid).toBe('456');
  });

  it('reads the home type and lot from resoFacts when the top-level keys are missing', () => {
    expect(map({ resoFacts: { homeType: 'SingleFamily', lotSize: '1.2 Acres' } })).toMatchObject({
      homeType: 'SINGLE_FAMILY',
      lotSize: 52272,
    });
  });

  it('orders price events newest first and keeps same-day events in page order', () => {
    const r = map({
      priceHistory: [
        { date: '2020-01-01', event: 'Listed for sale', price: 1 },
        { date: '2021-05-05', event: 'Pending sale', price: 2 },
        { date: '2021-05-05', event: 'Price change', price: 3 },
      ],
    });
    expect(r.priceHistory.map((e) => e.event)).toEqual(['Pending sale', 'Price change', 'Listed for sale']);
  });

  it('never lists a nearby home photo: only the property photo arrays are read', () => {
    const own = {
      mixedSources: { jpeg: [{ url: 'https://photos.zillowstatic.com/fp/aaa-cc_ft_1536.jpg', width: 1536 }] },
    };
    const nearby = { miniCardPhotos: [{ url: 'https://photos.zillowstatic.com/fp/bbb-p_c.jpg' }] };
    const r = map({ responsivePhotos: [own], nearbyHomes: [nearby], comps: [nearby] });
    expect(r.photos).toEqual(['https://photos.zillowstatic.com/fp/aaa-cc_ft_1536.jpg']);
  });
});

describe('image', () => {
  const photo = 'https://photos.zillowstatic.com/fp/aaa-cc_ft_1536.jpg';
  const og = 'https://photos.zillowstatic.com/fp/ccc-cc_ft_1536.jpg';
  const streetView = 'https://maps.googleapis.com/maps/api/streetview?location=1%20Main%20St&size=400x250&format=.jpg';
  /** Page extras whose only meta tag is og:image, counting how often the mapper asks for it. */
  const extrasWith = (ogImage: string | null) => {
    const reads = { ogImage: 0 };
    const meta = new Proxy<Record<string, string>>(ogImage === null ? {} : { 'og:image': ogImage }, {
      get(target, key) {
        if (key === 'og:image') reads.ogImage += 1;
        return Reflect.get(target, key);
      },
    });
    const extras: PageExtras = { jsonLd: [], meta, title: null, canonical: null };
    return { extras, reads };
  };

  it('reads the page meta for og:image only when neither the photos nor the record links give an image', () => {
    // Reading a meta tag decodes the whole page, twice the cost of the rest of reading it.
    const withPhoto = extrasWith(og);
    expect(
      map({ responsivePhotos: [{ mixedSources: { jpeg: [{ url: photo, width: 1536 }] } }] }, withPhoto.extras).imgSrc,
    ).toBe(photo);
    const withLink = extrasWith(og);
    expect(map({ hiResImageLink: photo }, withLink.extras).imgSrc).toBe(photo);
    expect([withPhoto.reads.ogImage, withLink.reads.ogImage]).toEqual([0, 0]);
    const bare = extrasWith(og);
    expect(map({}, bare.extras)).toMatchObject({ imgSrc: og, photos: [] });
    expect(bare.reads.ogImage).toBeGreaterThan(0);
  });

  it('passes over a map image in the record links to og:image, and a home with only map images has no photo', () => {
    expect(map({ hiResImageLink: streetView }, extrasWith(og).extras).imgSrc).toBe(og);
    expect(map({ hiResImageLink: streetView, photoCount: 1 }, extrasWith(null).extras)).toMatchObject({
      imgSrc: null,
      photoCount: 0,
    });
    expect(map({ photoCount: 1 }, extrasWith(streetView).extras)).toMatchObject({ imgSrc: null, photoCount: 0 });
  });
});

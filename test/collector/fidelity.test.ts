// Issue 10 §8, fidelity fixes found on real pages the team has not seen. The recorded fallback items
// show two of them (fallback-golden.test.ts); the cases below are DERIVED test inputs: the real property
// object of fixtures/portal/property-15192198-for-sale-2023.json with the named fields changed to the
// shape the unseen pages had, since no recorded page of ours shows them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAddress, compareAddress, partsWithUnit } from '../../src/address/index.js';
import { mapProperty } from '../../src/collector/mapping/index.js';
import { extractPage } from '../../src/collector/page/index.js';
import { wrapPropertyPage } from '../../src/replay/wrap.js';

type Json = Record<string, unknown>;
const SCRAPED_AT = '2026-10-09T12:00:00.000Z';
const realProperty = (): Json =>
  JSON.parse(
    readFileSync(new URL('../../fixtures/portal/property-15192198-for-sale-2023.json', import.meta.url), 'utf8'),
  ) as Json;
const map = (p: Json) => mapProperty(p, null, { scrapedAt: SCRAPED_AT });
const readWrapped = (p: Json) => {
  const data = extractPage(wrapPropertyPage(p), { zpid: String(p.zpid), building: false });
  if (data.kind !== 'property') throw new Error(`expected a home, got ${data.kind}`);
  return mapProperty(data.property, data.extras, { scrapedAt: SCRAPED_AT });
};

describe('neighborhood is never a ZIP code', () => {
  it('the real object has a neighbourhood region; without it the region falls back to the ZIP: no neighbourhood', () => {
    expect(map(realProperty()).neighborhood).toBe('Oceanview');
    // Derived: as on the unseen pages, no neighbourhood region, and the parent region is the ZIP.
    const derived = { ...realProperty(), neighborhoodRegion: null, parentRegion: { name: '94112' } };
    expect(map(derived).neighborhood).toBeNull();
    expect(readWrapped(derived).neighborhood).toBeNull();
  });

  it('a named parent region is still the neighbourhood', () => {
    const derived = { ...realProperty(), neighborhoodRegion: null, parentRegion: { name: 'Oceanview' } };
    expect(map(derived).neighborhood).toBe('Oceanview');
  });
});

describe('unit designators beyond digits', () => {
  // Derived: the real object at the address the issue names.
  const townhouse = (): Json => {
    const p = realProperty();
    return {
      ...p,
      address: {
        ...(p.address as Json),
        streetAddress: '197 W Houston St #TOWNHOUSE 1',
        city: 'New York',
        state: 'NY',
        zipcode: '10014',
      },
    };
  };

  it('the page\'s street line "197 W Houston St #TOWNHOUSE 1" has unit TOWNHOUSE 1', () => {
    for (const record of [map(townhouse()), readWrapped(townhouse())]) {
      expect(record).toMatchObject({
        streetAddress: '197 W Houston St #TOWNHOUSE 1',
        unit: 'TOWNHOUSE 1',
        address: '197 W Houston St #TOWNHOUSE 1, New York, NY 10014',
      });
    }
  });

  it('the asked address and the mapped record name the same home, and not townhouse 2', () => {
    const record = map(townhouse());
    const asked = checkAddress('197 W Houston St #TOWNHOUSE 1, New York, NY 10014');
    if (!asked.ok) throw new Error(asked.reason);
    expect(asked.parts.unit).toBe('TOWNHOUSE 1');
    const home = partsWithUnit(record.streetAddress!, record.unit, record.city, record.state, record.zipcode);
    expect(compareAddress(asked.parts, home)).toEqual([]);
    const other = checkAddress('197 W Houston St #TOWNHOUSE 2, New York, NY 10014');
    if (!other.ok) throw new Error(other.reason);
    expect(compareAddress(other.parts, home)).toEqual(['unit']);
  });
});

describe('photoCount and photos agree', () => {
  // Derived: no photo arrays, the count the site gives such pages, and the page's own street-view link as its image.
  const streetViewOnly = (): Json => {
    const p = realProperty();
    const streetView = p.streetViewTileImageUrlMediumAddress as string;
    return {
      ...p,
      photos: [],
      responsivePhotos: [],
      originalPhotos: [],
      photoCount: 1,
      hiResImageLink: streetView,
      desktopWebHdpImageLink: streetView,
    };
  };

  it('the real object has its photos and count', () => {
    expect(map(realProperty())).toMatchObject({ photoCount: 21 });
    expect(map(realProperty()).photos).toHaveLength(21);
  });

  it('a page whose only image is a street-view link has no photo: photos [], photoCount 0, no imgSrc', () => {
    expect(String(streetViewOnly().hiResImageLink)).toMatch(
      /^https:\/\/maps\.googleapis\.com\/maps\/api\/streetview\?/,
    );
    for (const record of [map(streetViewOnly()), readWrapped(streetViewOnly())]) {
      expect(record).toMatchObject({ photos: [], photoCount: 0, imgSrc: null });
    }
  });

  it('a street-view image inside the photo list is not a photo either', () => {
    const p = realProperty();
    const streetView = p.streetViewTileImageUrlMediumAddress as string;
    const derived = {
      ...p,
      responsivePhotos: [],
      originalPhotos: [],
      photos: [{ mixedSources: { jpeg: [{ url: `${streetView}&format=.jpg`, width: 400 }] } }],
      hiResImageLink: null,
      desktopWebHdpImageLink: null,
    };
    expect(map(derived)).toMatchObject({ photos: [], photoCount: 0, imgSrc: null });
  });

  it('a page without photo arrays but with a real image keeps the count it gives', () => {
    const p = realProperty();
    const derived = { ...p, photos: [], responsivePhotos: [], originalPhotos: [] };
    expect(map(derived)).toMatchObject({ photos: [], photoCount: 21, imgSrc: p.hiResImageLink });
  });
});

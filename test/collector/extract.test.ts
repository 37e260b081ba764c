import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { extractPage, type PageData } from '../../src/collector/page/index.js';
import { wrapBuildingPage, wrapPropertyPage } from '../../src/replay/wrap.js';

const DIR = new URL('../../fixtures/portal/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, DIR), 'utf8');
const HDP = fixture('hdp-2146993218-condo-for-sale-2024.html');
const home = { zpid: null, building: false };

function asProperty(data: PageData) {
  if (data.kind !== 'property') throw new Error(`expected a property, got ${data.kind}`);
  return data;
}

/** The LookupError a call throws; fails the test on success or on any other error type. */
function failure(run: () => unknown): LookupError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    return e as LookupError;
  }
  throw new Error('expected a LookupError, got a result');
}

describe('extractPage: the real 2024 page', () => {
  it('finds the property in gdpClientCache under componentProps', () => {
    const data = asProperty(extractPage(HDP, { zpid: '2146993218', building: false }));
    expect(data.zpid).toBe('2146993218');
    expect(data.generation).toBe('gdpClientCache:ForSaleShopperPlatformFullRenderQuery');
    expect(data.property.streetAddress).toBe('6851 Roswell Rd APT O31');
  });

  it('collects the secondary sources: JSON-LD, share meta tags, title, canonical link', () => {
    const { extras } = asProperty(extractPage(HDP, home));
    expect(extras.title).toBe('6851 Roswell Rd APT O31, Sandy Springs, GA 30328 | MLS #7477717 | Zillow');
    expect(extras.canonical).toBe(
      'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/',
    );
    expect(extras.meta['og:image']).toBe(
      'https://photos.zillowstatic.com/fp/6a8effb9d0a089d0ff529cc3916940be-cc_ft_1536.jpg',
    );
    expect(extras.meta['zillow_fb:beds']).toBe('2');
    expect(extras.meta.description).toMatch(/^Zillow has 42 photos of this \$265,000/);
    expect(extras.jsonLd.map((o) => o['@type'])).toEqual(['BreadcrumbList']);
  });

  it('reads the 1 MB page again and again to the same result (no state kept between calls)', () => {
    // Speed is measured by the benchmarks in bench/, not asserted here.
    const first = extractPage(HDP, home);
    for (let i = 0; i < 3; i++) expect(extractPage(HDP, home)).toEqual(first);
  });

  it('reads the page when the data script is entity-escaped', () => {
    const escaped = HDP.replace(
      /(<script id="__NEXT_DATA__" type="application\/json">)([\s\S]*?)(<\/script>)/,
      (_, open: string, body: string, close: string) =>
        open + body.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + close,
    );
    expect(escaped).toContain('{&quot;props&quot;');
    expect(asProperty(extractPage(escaped, home)).property.zpid).toBe(2146993218);
  });
});

describe('extractPage: generations and cache layouts', () => {
  const property = { zpid: 42, homeStatus: 'FOR_SALE', price: 100000 };

  it('takes the home from a cache keyed by a query signature it has never seen', () => {
    const page = wrapPropertyPage(property, { cacheKey: 'BrandNewShopperQuery{"zpid":42,"anything":true}' });
    const data = asProperty(extractPage(page, home));
    expect(data.property).toEqual(property);
    expect(data.generation).toBe('gdpClientCache:BrandNewShopperQuery');
  });

  it('finds gdpClientCache directly under pageProps', () => {
    const page = wrapPropertyPage(property, { placement: 'pageProps' });
    expect(page).toContain('"pageProps":{"componentProps":{"zpid":"42","isMobile":false},"gdpClientCache"');
    expect(asProperty(extractPage(page, home)).property).toEqual(property);
  });

  it('picks the entry whose zpid was asked for when the cache holds several homes', () => {
    const neighbours = {
      'NearbyHomesQuery{"zpid":7}': { property: { zpid: 7, price: 1 } },
      'NearbyHomesQuery{"zpid":8}': { property: { zpid: 8, price: 2 } },
      'VoyagerQuery{}': {},
    };
    const page = wrapPropertyPage(property, { otherCacheEntries: neighbours });
    expect(asProperty(extractPage(page, { zpid: '42', building: false })).property).toEqual(property);
    expect(asProperty(extractPage(page, { zpid: '8', building: false })).zpid).toBe('8');
    // Without a zpid to match (or with one the cache lacks), the first home is the answer.
    expect(asProperty(extractPage(page, home)).zpid).toBe('7');
    expect(asProperty(extractPage(page, { zpid: '999', building: false })).zpid).toBe('7');
  });

  it('merges a partial and a full entry of the same home, the fuller one winning', () => {
    const page = wrapPropertyPage(
      { zpid: 42, price: 100000, description: 'full', bedrooms: 3 },
      {
        otherCacheEntries: {
          'VariantQuery{"zpid":42}': { property: { zpid: 42, homeStatusForHDP: 'FOR_SALE', description: 'short' } },
        },
      },
    );
    expect(asProperty(extractPage(page, home)).property).toEqual({
      zpid: 42,
      homeStatusForHDP: 'FOR_SALE',
      price: 100000,
      description: 'full',
      bedrooms: 3,
    });
  });

  it('reads the legacy hdpApolloPreloadedData.apiCache generation', () => {
    const page = wrapPropertyPage(property, { generation: 'legacy' });
    expect(page).toContain('<script id="hdpApolloPreloadedData"');
    const data = asProperty(extractPage(page, { zpid: '42', building: false }));
    expect(data.property).toEqual(property);
    expect(data.generation).toBe('apiCache:VariantQuery');
  });

  it('reads the synthetic pages of each generation', () => {
    const generation = (name: string) => asProperty(extractPage(fixture(`synthetic/${name}`), home)).generation;
    expect(generation('synthetic-priority-2026.html')).toBe('gdpClientCache:ForSalePriorityQuery');
    expect(generation('synthetic-degraded-2026.html')).toBe('gdpClientCache:SomeFutureRenderQuery');
    expect(generation('synthetic-legacy-apollo.html')).toBe('apiCache:ForSaleDoubleScrollFullRenderQuery');
    // Entity-escaped script text with its attributes in another order.
    expect(generation('synthetic-pending-escaped.html')).toBe('gdpClientCache:ForSaleShopperPlatformFullRenderQuery');
  });

  it('falls back to the zpid in the page query when the property has none', () => {
    const page = wrapPropertyPage({ price: 5 }, { cacheKey: 'Q{}' }).replace(
      '"query":{"zpid":null',
      '"query":{"zpid":"77"',
    );
    expect(asProperty(extractPage(page, home)).zpid).toBe('77');
  });
});

describe('extractPage: buildings', () => {
  const lenox = JSON.parse(fixture('excerpt-building-apartments-lenox-grand-2026-10.json')) as Record<
    string,
    Record<string, unknown>
  >;
  const page = wrapBuildingPage(lenox.building!, lenox.pageContext);

  it('returns the building node for a building link', () => {
    const data = extractPage(page, { zpid: null, building: true });
    expect(data.kind).toBe('building');
    if (data.kind === 'building') {
      expect(data.building.bdpUrl).toBe('/apartments/austin-tx/lenox-grand/CmB93F/');
      expect(data.extras.canonical).toBe('https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/');
    }
  });

  it('returns the building when a home link lands on a building page', () => {
    expect(extractPage(page, { zpid: '2056262612', building: false }).kind).toBe('building');
  });

  it('returns the home when a building link lands on a home page', () => {
    expect(extractPage(HDP, { zpid: null, building: true }).kind).toBe('property');
  });
});

describe('extractPage: malformed pages are upstream_bad_response, never a half record', () => {
  const malformed = readdirSync(new URL('synthetic/', DIR)).filter((n) => n.startsWith('malformed-'));
  const reasons: Record<string, string> = {
    'malformed-truncated.html': 'data_script_unterminated',
    'malformed-invalid-json.html': 'next_data_invalid_json',
    'malformed-no-script.html': 'no_data_script',
    'malformed-empty-cache.html': 'gdpClientCache_empty',
    'malformed-cache-without-property.html': 'gdpClientCache_without_property',
    'malformed-invalid-cache-json.html': 'gdpClientCache_invalid_json',
  };

  it('has a reason for every malformed fixture', () => {
    expect(malformed.sort()).toEqual(Object.keys(reasons).sort());
  });

  it.each(Object.entries(reasons))('%s → %s', (name, reason) => {
    const error = failure(() => extractPage(fixture(`synthetic/${name}`), home));
    expect(error.code).toBe('upstream_bad_response');
    expect(error.status).toBe(502);
    expect(error.details?.reason).toBe(reason);
  });

  it('refuses the real page cut off inside its data script', () => {
    const cut = HDP.slice(0, HDP.indexOf('__NEXT_DATA__') + 200_000);
    expect(failure(() => extractPage(cut, home)).details?.reason).toBe('data_script_unterminated');
  });

  it('refuses the real page cut off before its data script', () => {
    const cut = HDP.slice(0, HDP.indexOf('<script id="__NEXT_DATA__"'));
    expect(failure(() => extractPage(cut, home)).details?.reason).toBe('truncated_page');
  });

  it('refuses a data script without listing data', () => {
    const page =
      '<html><body><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"searchPageState":{}}}}</script></body></html>';
    expect(failure(() => extractPage(page, home)).details?.reason).toBe('no_listing_data');
  });

  it('refuses a gdpClientCache that is not an object', () => {
    const page = wrapPropertyPage({ zpid: 1 }).replace(
      /"gdpClientCache":"(?:[^"\\]|\\.)*"/,
      '"gdpClientCache":"[1,2]"',
    );
    expect(failure(() => extractPage(page, home)).details?.reason).toBe('gdpClientCache_not_an_object');
  });

  it('refuses an empty body', () => {
    expect(failure(() => extractPage('', home)).details?.reason).toBe('truncated_page');
  });
});

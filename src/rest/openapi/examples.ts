// The example home of the OpenAPI document, shown by more than one route (a lookup, a batch, a job's
// body) and by the property.changed webhook's test: a found home and its meta. Each route's other
// examples are beside its operations.
import { PROPERTY_FIELDS, type LookupMeta, type PortalProperty } from '../../contract/index.js';

// The home of the hand-checked record fixtures/portal/expected/hdp-2146993218-condo-for-sale-2024.json,
// trimmed (the rest null, lists empty); test/rest/openapi.test.ts holds every value set here to that
// file. Copied, not imported: the build compiles src/ only.
const EXAMPLE_READ_AT = '2026-10-09T12:00:00.000Z';
export const exampleProperty: PortalProperty = {
  ...(Object.fromEntries(PROPERTY_FIELDS.map((f) => [f, null])) as unknown as PortalProperty),
  zpid: '2146993218',
  detailUrl: 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/',
  address: '6851 Roswell Rd APT O31, Sandy Springs, GA 30328',
  streetAddress: '6851 Roswell Rd APT O31',
  unit: 'O31',
  city: 'Sandy Springs',
  state: 'GA',
  zipcode: '30328',
  price: 265000,
  currency: 'USD',
  homeStatus: 'FOR_SALE',
  statusText: 'For sale',
  homeType: 'CONDO',
  beds: 2,
  baths: 2,
  livingArea: 1206,
  yearBuilt: 1964,
  monthlyHoaFee: 486,
  photos: [],
  photoCount: 42,
  priceHistory: [],
  taxHistory: [],
  schools: [],
  scrapedAt: EXAMPLE_READ_AT,
};
export const exampleMeta: LookupMeta = {
  credits: 1,
  cached: false,
  cache_key: `zpid:${exampleProperty.zpid}`,
  fetched_at: EXAMPLE_READ_AT,
  source: { provider: 'self_hosted', note: 'Read from the listing page' },
  release: 'v1',
  took_ms: 1840,
  age_seconds: 0,
  // The 2024 condo page's own (its lists are left out of exampleProperty for brevity): it shows no tax years.
  sections: {
    photos: 'present',
    priceHistory: 'present',
    taxHistory: 'not_published',
    schools: 'present',
    agent: 'present',
    broker: 'present',
    estimate: 'present',
    rentEstimate: 'present',
    description: 'present',
  },
};

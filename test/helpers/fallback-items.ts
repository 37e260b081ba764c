// Items of the fallback actor for tests, from the recorded output in fixtures/fallback/ (provenance and
// hashes in its README). Today's shape (the actor's mapped fields only, since 2026-09-01) is derived
// here from the recorded items by keeping only the keys of the actor's published field list.
import { readFileSync } from 'node:fs';

export type Item = Record<string, unknown>;

const FIXTURES = new URL('../../fixtures/fallback/', import.meta.url);
const load = (name: string): Item[] => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Item[];

/** The actor's current output fields, as published in its output example (fixtures/fallback/README.md). */
export const TODAYS_KEYS: readonly string[] = [
  'addressOrUrlFromInput',
  'zpid',
  'homeType',
  'priceChange',
  'lastSoldPrice',
  'bedrooms',
  'bathrooms',
  'livingArea',
  'yearBuilt',
  'daysOnZillow',
  'pageViewCount',
  'favoriteCount',
  'description',
  'zestimate',
  'rentZestimate',
  'propertyTaxRate',
  'monthlyHoaFee',
  'annualHomeownersInsurance',
  'listingProvider',
  'photoCount',
  'parcelId',
  'isZillowOwned',
  'buildingAttributes',
  'listingPrice',
  'listingAddress',
  'coordinates',
  'listingStatus',
  'propertyUrl',
  'listingType',
  'bathroomsDetail',
  'lotArea',
  'pricePerSquareFoot',
  'taxAssessedValue',
  'datePosted',
  'onMarketDate',
  'priceChangedAt',
  'dateSold',
  'taxAnnualAmount',
  'parking',
  'agent',
  'broker',
  'mls',
  'mainImage',
  'staticMapUrl',
  'virtualTourUrl',
  'propertyFeatures',
  'atAGlanceFacts',
  'schoolDistricts',
  'hoa',
  'listingPriceHistory',
  'listingTaxHistory',
  'nearbySchools',
  'nearbyProperties',
  'listingMortgageRates',
  'listingPhotos',
  'scrapedAt',
  'isValid',
  'invalidReason',
];

/** A recorded item reduced to today's shape: every key outside the published list removed. */
export const todaysShape = (item: Item): Item =>
  Object.fromEntries(Object.entries(item).filter(([k]) => TODAYS_KEYS.includes(k)));

/** Five sold homes in Phoenix-area from one run, as recorded (raw Zillow fields and the actor's mapped fields). */
export const recordedBatch = (): Item[] => load('actor-output-spike-detail-batch5-2026-08.json');

/** Asked for unit #429, the actor answered unit #318 (`isValid: true`), as recorded. */
export const recordedWrongUnit = (): Item => load('actor-output-spike-subject-wrong-unit-2026-08.json')[0]!;

/** The actor's miss for an address it could not find, as recorded. */
export const recordedMiss = (): Item => load('actor-output-spike-miss-2026-08.json')[0]!;

/** A recorded home by zpid. */
export const recordedHome = (zpid: number): Item => {
  const found = recordedBatch().find((i) => i.zpid === zpid);
  if (!found) throw new Error(`no recorded item for zpid ${zpid}`);
  return found;
};

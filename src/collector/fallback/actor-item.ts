// The detail actor's dataset items. Since 2026-09-01 it sends only its own mapped fields
// (listingAddress, coordinates, listingPrice, listingStatus, listingPriceHistory, …); older items
// carry the listing site's raw property object (with or without those mapped fields beside it).
// Both are read through the one mapping the own collector uses: a mapped-field item is first
// given the site's own field names (docs/mapping.md, "The fallback provider's items").
import { SECTION_NAMES, type Sections } from '../../contract/sections.js';
import { mapBuilding, mapProperty, type MappedProperty } from '../mapping/index.js';
import {
  bestOf,
  buildingSections,
  listAt,
  personState,
  photoRow,
  priceRow,
  propertySections,
  schoolRow,
  stateOf,
  taxRow,
  textIn,
} from '../mapping/sections.js';
import { statusOf } from '../mapping/status.js';
import { list, obj, text, type Json } from '../mapping/values.js';

export { missingCoreFields } from '../mapping/sections.js';

export type ActorItem = Json;

/** The width a listing photo's link names (`…_scaled_within_1536_1152.jpg`, `…size=1536x1152…`); 0 when it names none. */
const widthInLink = (url: string): number =>
  Number(/_within_(\d+)_\d+/.exec(url)?.[1] ?? /[?&]size=(\d+)x\d+/.exec(url)?.[1] ?? 0);

/** The largest listing photo's link (the first of equal ones), whatever its format. */
function largestPhoto(item: ActorItem): string | null {
  let best: { url: string; width: number } | null = null;
  for (const photo of list(item, 'listingPhotos')) {
    const url = text(photo.url);
    if (url && (!best || widthInLink(url) > best.width)) best = { url, width: widthInLink(url) };
  }
  return best?.url ?? null;
}

/** The item in the site's field names: raw fields win where present, the actor's mapped fields fill the rest. */
function siteShape(item: ActorItem): Json {
  const where = obj(item, 'listingAddress');
  const at = obj(item, 'coordinates');
  const price = obj(item, 'listingPrice');
  const lot = obj(item, 'lotArea');
  const agent = obj(item, 'agent');
  const broker = obj(item, 'broker');
  const mls = obj(item, 'mls');
  const image = obj(item, 'mainImage');
  const type = obj(item, 'listingType');
  const fromMapped: Json = {
    address: {
      streetAddress: where.street,
      city: where.city,
      state: where.state,
      zipcode: where.zipCode,
      neighborhood: where.neighborhood,
    },
    unitNumber: where.unit,
    county: where.county,
    latitude: at.latitude,
    longitude: at.longitude,
    price: price.amount,
    currency: price.currency,
    homeStatus: item.listingStatus,
    listingSubType: type,
    contingentListingType: type.contingencyType,
    hdpUrl: item.propertyUrl,
    lotAreaValue: lot.value,
    lotAreaUnits: lot.unit,
    datePostedString: item.datePosted ?? item.onMarketDate,
    priceHistory: list(item, 'listingPriceHistory'),
    taxHistory: list(item, 'listingTaxHistory'),
    photos: list(item, 'listingPhotos'),
    // The picture when no listing photo is a JPEG the photo rules keep: the main image's large sizes, else
    // the largest listing photo, before the 46 px thumbnail. A map image there is no photo (mapping drops it).
    hiResImageLink: text(image.hiRes) ?? largestPhoto(item) ?? text(image.medium) ?? text(image.thumbnail),
    schools: list(item, 'nearbySchools'),
    attributionInfo: {
      agentName: agent.name,
      agentPhoneNumber: agent.phoneNumber,
      agentLicenseNumber: agent.licenseNumber,
      brokerName: broker.name,
      brokerPhoneNumber: broker.phoneNumber,
      mlsId: mls.id,
      mlsName: mls.name,
    },
  };
  const merged: Json = { ...fromMapped };
  for (const [key, value] of Object.entries(item)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

/** True for the actor's own report of a miss: `{ isValid: false, invalidReason }`. */
export const isMiss = (item: ActorItem): boolean => item.isValid === false;

/** The zpid an item carries (a number in the actor's items). */
export function zpidOf(item: ActorItem): string | null {
  const z = text(item.zpid);
  return z !== null && /^\d+$/.test(z) ? z : null;
}

/** The input an item answers (`addressOrUrlFromInput`), or null for items that do not say (the old raw shape). */
export const inputOf = (item: ActorItem): string | null => text(item.addressOrUrlFromInput);

/** Inputs compare without case, repeated spaces or a trailing slash: the actor echoes what it was sent. */
export const sameInput = (a: string, b: string): boolean => {
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').replace(/\/+$/, '').toLowerCase();
  return norm(a) === norm(b);
};

const isBuilding = (item: ActorItem): boolean => Array.isArray(item.floorPlans) || Array.isArray(item.ungroupedUnits);

/** When the actor read the item (`scrapedAt`, ISO), or null when it does not say. */
function actorScrapedAt(item: ActorItem): string | null {
  const at = typeof item.scrapedAt === 'string' ? Date.parse(item.scrapedAt) : NaN;
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/**
 * A home item's sections, decided from the item as the actor sent it (not from siteShape, which fills
 * in empty lists): under the site's own names (old items) and under the actor's mapped names, the
 * better of the two (docs/sections.md).
 */
function homeItemSections(item: ActorItem, shaped: Json): Sections {
  const listing = statusOf(shaped).listing;
  const siteNames = propertySections(item, null, listing);
  const mappedNames: Partial<Sections> = {
    photos: stateOf(listAt(item, 'listingPhotos', photoRow)),
    priceHistory: stateOf(listAt(item, 'listingPriceHistory', priceRow)),
    taxHistory: stateOf(listAt(item, 'listingTaxHistory', taxRow)),
    schools: stateOf(listAt(item, 'nearbySchools', schoolRow)),
    agent: personState(listing, textIn(item, 'agent', 'name')),
    broker: personState(listing, textIn(item, 'broker', 'name')),
  };
  return Object.fromEntries(
    SECTION_NAMES.map((n) => [n, bestOf(siteNames[n], mappedNames[n] ?? 'not_found')]),
  ) as Sections;
}

/** The item as a contract record and its sections; `scrapedAt` is when the actor read it, else `opts.scrapedAt`. */
export function mapItem(
  item: ActorItem,
  opts: { now: Date; scrapedAt: string },
): { property: MappedProperty; building: boolean; sections: Sections } {
  const at = { now: opts.now, scrapedAt: actorScrapedAt(item) ?? opts.scrapedAt };
  if (isBuilding(item)) return { property: mapBuilding(item, at), building: true, sections: buildingSections(item) };
  const shaped = siteShape(item);
  return { property: mapProperty(shaped, null, at), building: false, sections: homeItemSections(item, shaped) };
}

// Which sections the page holds, decided from the page's data (the source record), not from the
// mapped record: a section the mapper shows as empty may be one the page says is empty, one this
// page generation does not carry, or one we failed to read, and only the data tells them apart.
// Each section is looked for where the mapper reads it (same keys, same fallbacks); each place
// says one of: absent, empty, read, failed. The section is then
//   present            when some place was read (the mapper took the value from there);
//   extraction_failed  else, when some place holds it in a shape we cannot read, or a row of it
//                      (a photo, a price event, a tax year, a school) cannot be read;
//   not_published      else, when some place says there is none (null, an empty list, a 0 estimate,
//                      only a map image for photos), or the home is not listed (agent, broker);
//   not_found          when no place exists at all.
// docs/sections.md says the same for clients.
import { SECTION_NAMES, type SectionName, type SectionState, type Sections } from '../../contract/sections.js';
import type { PageExtras } from '../page/extras.js';
import type { MappedProperty } from './property.js';
import { isMapImage } from './photos.js';
import { statusOf, type Listing } from './status.js';
import { epochMs, isObject, isoDate, num, text, year, type Json } from './values.js';

/** What one place of the page says about a section. */
export type Found = 'absent' | 'empty' | 'read' | 'failed';

/** The section's state from what its places say (see the top of this file). */
export function stateOf(...found: Found[]): SectionState {
  if (found.includes('read')) return 'present';
  if (found.includes('failed')) return 'extraction_failed';
  if (found.includes('empty')) return 'not_published';
  return 'not_found';
}

/** The best of several decisions about one section (a provider item carries it under two names). */
export const bestOf = (...states: SectionState[]): SectionState => {
  const order: SectionState[] = ['present', 'extraction_failed', 'not_published', 'not_found'];
  return order.find((s) => states.includes(s)) ?? 'not_found';
};

const has = (owner: unknown, key: string): boolean => isObject(owner) && owner[key] !== undefined;

/** A value that is text: a string or a number (ids); null or blank says none; anything else is unreadable. */
export function textAt(owner: unknown, key: string): Found {
  if (!has(owner, key)) return 'absent';
  const v = (owner as Json)[key];
  if (v === null) return 'empty';
  if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) return 'failed';
  return text(v) === null ? 'empty' : 'read';
}

/** An amount (an estimate): a number or a numeric text; null, 0 or the site's -1 say none; other text is unreadable. */
export function amountAt(owner: unknown, key: string): Found {
  if (!has(owner, key)) return 'absent';
  const v = (owner as Json)[key];
  if (v === null) return 'empty';
  const n = typeof v === 'number' || typeof v === 'string' ? num(v) : null;
  if (n === null) return 'failed';
  return n > 0 ? 'read' : 'empty';
}

/** A number where one is expected in a row: absent or null is fine, anything that does not parse is not. */
const numberOk = (v: unknown): boolean =>
  v === undefined || v === null || ((typeof v === 'number' || typeof v === 'string') && num(v) !== null);
const textOk = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string' || typeof v === 'number';

/** One row of a list: read, empty (stands for nothing, e.g. a map image among photos) or failed. */
export type RowCheck = (row: unknown) => Found;

/** A list at `key`: null or [] says none; a non-list, or any row that cannot be read, is unreadable. */
export function listAt(owner: unknown, key: string, row: RowCheck): Found {
  if (!has(owner, key)) return 'absent';
  const v = (owner as Json)[key];
  if (v === null) return 'empty';
  if (!Array.isArray(v)) return 'failed';
  const rows = v.map(row);
  if (rows.includes('failed')) return 'failed';
  return rows.includes('read') ? 'read' : 'empty';
}

/** Every link a photo row holds: its `url` and each size in its `mixedSources` ladders. */
function photoLinks(photo: Json): unknown[] {
  const ladders = isObject(photo.mixedSources) ? Object.values(photo.mixedSources) : [];
  return [
    photo.url,
    ...ladders.flatMap((l) => (Array.isArray(l) ? l.map((s) => (isObject(s) ? s.url : s)) : [l])),
  ].filter((u) => u !== undefined && u !== null);
}

const isJpeg = (url: string) => /\.jpe?g(?:$|\?)/i.test(url);

/** A photo: read when it has a JPEG link (the only kind the record publishes); a map or street view is no photo. */
export const photoRow: RowCheck = (row) => {
  if (!isObject(row)) return 'failed';
  const links = photoLinks(row);
  if (links.some((u) => typeof u !== 'string')) return 'failed';
  const urls = links as string[];
  if (urls.length > 0 && urls.every(isMapImage)) return 'empty';
  return urls.some((u) => isJpeg(u) && !isMapImage(u)) ? 'read' : 'failed';
};

/** A price event: a date (or time) and an event name; its amounts parse. */
export const priceRow: RowCheck = (row) => {
  if (!isObject(row)) return 'failed';
  const dated = isoDate(row.date) !== null || epochMs(row.time) !== null;
  const ok =
    dated &&
    text(row.event) !== null &&
    textOk(row.source) &&
    [row.price, row.pricePerSquareFoot, row.priceChangeRate].every(numberOk);
  return ok ? 'read' : 'failed';
};

/** A tax year: a year (or time); its amounts parse. */
export const taxRow: RowCheck = (row) => {
  if (!isObject(row)) return 'failed';
  const dated = epochMs(row.time) !== null || year(row.year) !== null;
  return dated && [row.taxPaid, row.value, row.taxIncreaseRate, row.valueIncreaseRate].every(numberOk)
    ? 'read'
    : 'failed';
};

/** A school: a name; its rating and distance parse. */
export const schoolRow: RowCheck = (row) => {
  if (!isObject(row)) return 'failed';
  return text(row.name) !== null && numberOk(row.rating) && numberOk(row.distance) ? 'read' : 'failed';
};

/** An object at `key` and a text field in it: a block that is not an object is unreadable. */
export function textIn(owner: unknown, key: string, field: string): Found {
  if (!has(owner, key)) return 'absent';
  const block = (owner as Json)[key];
  if (block === null) return 'empty';
  if (!isObject(block)) return 'failed';
  const found = textAt(block, field);
  return found === 'absent' ? 'empty' : found;
}

/** A name in the `listedBy` blocks ([{id: LISTING_AGENT|BROKER, elements: [{id: NAME, text}]}]). */
function listedByName(p: Json, who: string): Found {
  if (!has(p, 'listedBy')) return 'absent';
  const blocks = p.listedBy;
  if (blocks === null) return 'empty';
  if (!Array.isArray(blocks) || !blocks.every(isObject)) return 'failed';
  const block = blocks.find((b) => b.id === who);
  if (!block) return 'empty';
  if (!Array.isArray(block.elements) || !block.elements.every(isObject)) return 'failed';
  const name = block.elements.find((e) => e.id === 'NAME');
  return name ? textAt(name, 'text') : 'empty';
}

/** An agent or broker: the page does not show one for a home that is not listed (the block it keeps is stale). */
export const personState = (listing: Listing, ...found: Found[]): SectionState => {
  const state = stateOf(...found);
  return state !== 'not_found' && listing === 'none' ? 'not_published' : state;
};

const PROPERTY_PHOTO_ARRAYS = ['originalPhotos', 'responsivePhotos', 'photos'] as const;

/** The JSON-LD listing's description, the mapper's fallback for a property without one. */
function jsonLdDescription(extras: PageExtras | null): Found {
  const listing = (extras?.jsonLd ?? []).find((o) => [o['@type']].flat().includes('RealEstateListing'));
  return listing ? textAt(listing, 'description') : 'absent';
}

/** A home's sections, from its property object (a page's, or a provider item in the site's names) and the page's extras. */
export function propertySections(p: Json, extras: PageExtras | null, listing: Listing = statusOf(p).listing): Sections {
  const ai = 'attributionInfo';
  const schools = stateOf(listAt(p, 'schools', schoolRow), listAt(p, 'assignedSchools', schoolRow));
  return {
    photos: stateOf(...PROPERTY_PHOTO_ARRAYS.map((k) => listAt(p, k, photoRow))),
    priceHistory: stateOf(listAt(p, 'priceHistory', priceRow)),
    taxHistory: stateOf(listAt(p, 'taxHistory', taxRow)),
    schools,
    agent: personState(
      listing,
      textIn(p, ai, 'agentName'),
      listedByName(p, 'LISTING_AGENT'),
      textIn(p, 'listingProvider', 'agentName'),
      textIn(p, 'postingContact', 'name'),
    ),
    broker: personState(listing, textIn(p, ai, 'brokerName'), listedByName(p, 'BROKER'), textAt(p, 'brokerageName')),
    estimate: stateOf(amountAt(p, 'zestimate')),
    rentEstimate: stateOf(amountAt(p, 'rentZestimate')),
    description: stateOf(textAt(p, 'description'), jsonLdDescription(extras)),
  };
}

const BUILDING_PHOTO_ARRAYS = ['galleryPhotos', 'signaturePhotos', 'photos'] as const;
/** Sections an apartment-building page does not have: it lists units, not a home's history, estimates or listing agent. */
const NOT_ON_BUILDING_PAGES: readonly SectionName[] = [
  'priceHistory',
  'taxHistory',
  'agent',
  'broker',
  'estimate',
  'rentEstimate',
];

/** An apartment building's sections: its photos, schools and description; the rest is not on such pages. */
export function buildingSections(b: Json): Sections {
  const own: Partial<Sections> = {
    photos: stateOf(...BUILDING_PHOTO_ARRAYS.map((k) => listAt(b, k, photoRow))),
    schools: stateOf(listAt(b, 'assignedSchools', schoolRow), listAt(b, 'schools', schoolRow)),
    description: stateOf(textAt(b, 'description')),
  };
  return Object.fromEntries(
    SECTION_NAMES.map((n) => [n, NOT_ON_BUILDING_PAGES.includes(n) ? 'not_found' : own[n]!]),
  ) as Sections;
}

/**
 * The core fields a record must have to be served (a provider's item) or billed (a record with a section
 * in extraction_failed): street, city and state, and for a home also its zpid and its price or status
 * (a building's price and zpid belong to its units).
 */
export function missingCoreFields(p: MappedProperty, building = false): string[] {
  const missing: string[] = [];
  const required = building
    ? (['streetAddress', 'city', 'state'] as const)
    : (['zpid', 'streetAddress', 'city', 'state'] as const);
  for (const k of required) if (p[k] === null) missing.push(k);
  if (!building && p.price === null && p.homeStatus === null) missing.push('price_or_status');
  return missing;
}

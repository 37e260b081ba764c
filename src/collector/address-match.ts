// Does a suggested address name the home the user asked for? Both sides go through the same
// parser (parse-address via checkAddress), so "North Main Street" and "N Main St" compare equal.
import { checkAddress, type AddressParts } from '../contract/index.js';

/** What may differ between the asked address and a candidate (spec 7, address_ambiguous). */
export type MismatchPart = 'number' | 'street' | 'directional' | 'unit' | 'zip' | 'city' | 'state';

/** An address as the listing site gives it in pieces (suggestion metaData, a provider item). */
export interface AddressPieces {
  streetNumber: string;
  /** Street with its directional and type, e.g. `E Dean Keeton St`. */
  streetName: string;
  unitNumber?: string | null;
  city?: string | null;
  state?: string | null;
  zipCode?: string | null;
}

const UNIT_DESIGNATOR = /^(?:#|APT|APARTMENT|UNIT|STE|SUITE|BLDG|FL|FLOOR|RM|ROOM|LOT|SPC|SPACE|NO|NUMBER)\.?\s*/;

/** `Apt #04B` → `4B`: designators, punctuation and leading zeros carry no identity. */
export function normalizeUnit(unit: string | null | undefined): string | null {
  let u = (unit ?? '').toUpperCase().trim();
  for (let prev = ''; prev !== u; ) {
    prev = u;
    u = u.replace(UNIT_DESIGNATOR, '').trim();
  }
  u = u.replace(/[\s\-.#]/g, '').replace(/^0+(?=\w)/, '');
  return u || null;
}

// Saint/St, Fort/Ft, Mount/Mt are written both ways in names and cities.
const NAME_WORDS: Record<string, string> = { SAINT: 'ST', FORT: 'FT', MOUNT: 'MT' };
const name = (s: string | null | undefined): string | null => {
  const t = (s ?? '')
    .toUpperCase()
    .replace(/[.,']/g, '')
    .replace(/[\s-]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => NAME_WORDS[w] ?? w)
    .join(' ');
  return t || null;
};
const zip5 = (z: string | null | undefined): string | null => /^\d{5}/.exec((z ?? '').trim())?.[0] ?? null;
const houseNumber = (n: string): string => n.toUpperCase().replace(/\s+/g, '').replace(/^0+(?=\d)/, '');

// The street line is parsed on its own (a placeholder ZIP satisfies the parser); city, state and ZIP
// already come as separate fields and are taken as they are.
const PLACEHOLDER_ZIP = '00000';

/** Parses a street line (`2435 Aspen Rd UNIT 104`) plus separate city/state/ZIP into comparable parts. */
export function partsFromStreetLine(streetLine: string, city?: string | null, state?: string | null, zip?: string | null): AddressParts {
  const where = { city: name(city), state: state?.trim().toUpperCase() || null, zip: zip5(zip) };
  const checked = checkAddress(`${streetLine}, ${PLACEHOLDER_ZIP}`);
  if (checked.ok) return { ...checked.parts, ...where };
  // The parser gave up: keep the number, the rest is the street; a doubtful match errs towards a 409.
  const [number = '', ...rest] = streetLine.trim().toUpperCase().split(/\s+/);
  return { number, prefix: null, street: rest.join(' '), type: null, suffix: null, unit: null, ...where };
}

/** The site's address pieces (suggestion metaData) as comparable parts. */
export function partsFromPieces(p: AddressPieces): AddressParts {
  const unit = normalizeUnit(p.unitNumber);
  const parts = partsFromStreetLine(`${p.streetNumber} ${p.streetName}`, p.city, p.state, p.zipCode);
  return { ...parts, unit };
}

const directionals = (a: AddressParts): string[] => [a.prefix, a.suffix].filter((d): d is string => !!d).sort();

/**
 * What the candidate gets wrong about the input; empty when it names the same home.
 * Only what the user gave is compared: a missing ZIP, city, type or directional is no mismatch.
 * A unit is different: asking without one for a home that has units is a mismatch.
 */
export function compareAddress(input: AddressParts, candidate: AddressParts): MismatchPart[] {
  const out: MismatchPart[] = [];
  if (houseNumber(input.number) !== houseNumber(candidate.number)) out.push('number');
  const streetDiffers =
    name(input.street) !== name(candidate.street) || (!!input.type && !!candidate.type && input.type !== candidate.type);
  if (streetDiffers) out.push('street');
  const dirIn = directionals(input);
  if (dirIn.length > 0 && dirIn.join() !== directionals(candidate).join()) out.push('directional');
  if (normalizeUnit(input.unit) !== normalizeUnit(candidate.unit)) out.push('unit');
  if (input.zip && zip5(input.zip) !== zip5(candidate.zip)) out.push('zip');
  if (input.city && name(input.city) !== name(candidate.city)) out.push('city');
  if (input.state && input.state.toUpperCase() !== candidate.state?.toUpperCase()) out.push('state');
  return out;
}

export interface Ranked<T> {
  candidate: T;
  mismatch: MismatchPart[];
}

/**
 * The best candidate: the first exact match, else the one with the fewest differences
 * (ties keep the site's order). Null when there are no candidates.
 */
export function bestCandidate<T>(input: AddressParts, candidates: readonly T[], partsOf: (c: T) => AddressParts): Ranked<T> | null {
  let best: Ranked<T> | null = null;
  for (const candidate of candidates) {
    const mismatch = compareAddress(input, partsOf(candidate));
    if (mismatch.length === 0) return { candidate, mismatch };
    if (!best || mismatch.length < best.mismatch.length) best = { candidate, mismatch };
  }
  return best;
}

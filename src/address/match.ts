// Does a suggested address name the home the user asked for? Both sides go through the same
// parser (parseStreetLine, on parse-address), so "North Main Street" and "N Main St" compare equal.
import { houseNumberKey, placeName, zip5 } from './normalize.js';
import { parseStreetLine } from './parse.js';
import { MISMATCH_PARTS, type AddressParts, type AddressPieces, type MismatchPart } from './parts.js';
import { stateCode } from './states.js';
import { normalizeUnit } from './units.js';

/** Parses a street line (`2435 Aspen Rd UNIT 104`) plus separate city/state/ZIP into comparable parts. */
export function partsFromStreetLine(streetLine: string, city?: string | null, state?: string | null, zip?: string | null): AddressParts {
  const where = { city: placeName(city), state: stateCode(state) ?? (state?.trim().toUpperCase() || null), zip: zip5(zip) };
  const parsed = parseStreetLine(streetLine);
  if (parsed) return { ...parsed, ...where };
  // The parser gave up: keep the number, the rest is the street; a doubtful match errs towards a 409.
  const [number = '', ...rest] = streetLine.trim().toUpperCase().split(/\s+/);
  return { number, prefix: null, street: rest.join(' '), type: null, suffix: null, unit: null, ...where };
}

/** A street line and a separate unit as comparable parts: the unit field wins over a unit written in the line. */
export function partsWithUnit(streetLine: string, unit: string | null | undefined, city?: string | null, state?: string | null, zip?: string | null): AddressParts {
  const parts = partsFromStreetLine(streetLine, city, state, zip);
  return { ...parts, unit: normalizeUnit(unit) ?? parts.unit };
}

/** The site's address pieces (suggestion metaData) as comparable parts. */
export function partsFromPieces(p: AddressPieces): AddressParts {
  return partsWithUnit(`${p.streetNumber} ${p.streetName}`, p.unitNumber, p.city, p.state, p.zipCode);
}

const directionals = (a: AddressParts): string[] => [a.prefix, a.suffix].filter((d): d is string => !!d).sort();

/**
 * What the candidate gets wrong about the input; empty when it names the same home.
 * Only what the user gave is compared: a missing ZIP, city, type or directional is no mismatch.
 * A unit is different: asking without one for a home that has units is a mismatch.
 */
export function compareAddress(input: AddressParts, candidate: AddressParts): MismatchPart[] {
  const out: MismatchPart[] = [];
  if (houseNumberKey(input.number) !== houseNumberKey(candidate.number)) out.push('number');
  const streetDiffers =
    placeName(input.street) !== placeName(candidate.street) || (!!input.type && !!candidate.type && input.type !== candidate.type);
  if (streetDiffers) out.push('street');
  const dirIn = directionals(input);
  if (dirIn.length > 0 && dirIn.join() !== directionals(candidate).join()) out.push('directional');
  if (normalizeUnit(input.unit) !== normalizeUnit(candidate.unit)) out.push('unit');
  if (input.zip && zip5(input.zip) !== zip5(candidate.zip)) out.push('zip');
  if (input.city && placeName(input.city) !== placeName(candidate.city)) out.push('city');
  if (input.state && input.state.toUpperCase() !== candidate.state?.toUpperCase()) out.push('state');
  return out;
}

export interface Ranked<T> {
  candidate: T;
  mismatch: MismatchPart[];
  /**
   * Set when several candidates match all the user gave and differ in what the user left out
   * (`123 Main St` for `123 N Main St` and `123 S Main St`): `mismatch` names what to add.
   */
  ambiguous?: true;
}

/**
 * The best candidate: the exact match, else the one with the fewest differences (ties keep the
 * site's order). When several candidates match exactly but are told apart by parts the user did
 * not give, the first of them comes back with those parts as `mismatch`: picking one would be a
 * guess. Null when there are no candidates.
 */
export function bestCandidate<T>(input: AddressParts, candidates: readonly T[], partsOf: (c: T) => AddressParts): Ranked<T> | null {
  let best: Ranked<T> | null = null;
  const exact: Array<{ candidate: T; parts: AddressParts }> = [];
  for (const candidate of candidates) {
    const parts = partsOf(candidate);
    const mismatch = compareAddress(input, parts);
    if (mismatch.length === 0) exact.push({ candidate, parts });
    else if (!best || mismatch.length < best.mismatch.length) best = { candidate, mismatch };
  }
  const [first, ...others] = exact;
  if (!first) return best;
  // Both directions: what either side has and the other lacks or has otherwise.
  const apart = new Set(others.flatMap((o) => [...compareAddress(first.parts, o.parts), ...compareAddress(o.parts, first.parts)]));
  const mismatch = MISMATCH_PARTS.filter((p) => apart.has(p));
  return mismatch.length > 0 ? { candidate: first.candidate, mismatch, ambiguous: true } : { candidate: first.candidate, mismatch: [] };
}

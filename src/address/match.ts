// Does a suggested address name the home the user asked for? Both sides go through the same
// parser (parseStreetLine, on the grammar of grammar.ts), so "North Main Street" and "N Main St" compare equal.
import { houseNumberKey, placeName, zip5 } from './normalize.js';
import { parseStreetLine } from './parse.js';
import {
  MISMATCH_PARTS,
  type AddressParts,
  type AddressPieces,
  type MismatchPart,
  type StreetLineParts,
} from './parts.js';
import { STATE_NAMES, stateCode } from './states.js';
import { UNIT_DESIGNATORS, normalizeUnit, unnumbered } from './units.js';

/** Parses a street line (`2435 Aspen Rd UNIT 104`) plus separate city/state/ZIP into comparable parts. */
export function partsFromStreetLine(
  streetLine: string,
  city?: string | null,
  state?: string | null,
  zip?: string | null,
): AddressParts {
  const where = {
    city: placeName(city),
    state: stateCode(state) ?? (state?.trim().toUpperCase() || null),
    zip: zip5(zip),
  };
  const parsed = parseStreetLine(streetLine);
  if (parsed) return { ...parsed, ...where };
  // The parser gave up: keep the number, the rest is the street; a doubtful match errs towards a 409.
  const [number = '', ...rest] = streetLine.trim().toUpperCase().split(/\s+/);
  return { number, prefix: null, street: rest.join(' '), type: null, suffix: null, unit: null, ...where };
}

/** A street line and a separate unit as comparable parts: the unit field wins over a unit written in the line. */
export function partsWithUnit(
  streetLine: string,
  unit: string | null | undefined,
  city?: string | null,
  state?: string | null,
  zip?: string | null,
): AddressParts {
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
    placeName(input.street) !== placeName(candidate.street) ||
    (!!input.type && !!candidate.type && input.type !== candidate.type);
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
export function bestCandidate<T>(
  input: AddressParts,
  candidates: readonly T[],
  partsOf: (c: T) => AddressParts,
): Ranked<T> | null {
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
  const apart = new Set(
    others.flatMap((o) => [...compareAddress(first.parts, o.parts), ...compareAddress(o.parts, first.parts)]),
  );
  const mismatch = MISMATCH_PARTS.filter((p) => apart.has(p));
  return mismatch.length > 0
    ? { candidate: first.candidate, mismatch, ambiguous: true }
    : { candidate: first.candidate, mismatch: [] };
}

// ---------------------------------------------------------------------------------------------
// Match confidence (docs/address-match.md): what the accepted home differs in, and how
// sure the match is. compareAddress decides acceptance (the 409 rule); this only describes.

/** The parts a difference can be in. */
export const DIFFERENCE_FIELDS = [
  'house_number',
  'street_name',
  'street_type',
  'directional',
  'unit',
  'unit_designator',
  'city',
  'state',
  'zipcode',
] as const;
export type DifferenceField = (typeof DIFFERENCE_FIELDS)[number];

/**
 * How a part differs: written otherwise but the same after normalization (`Street`/`St`, `North`/`N`,
 * `#`/`APT`, `Saint`/`St`, `Illinois`/`IL`); left out by the input; left out by the matched address;
 * or different after normalization.
 */
export const DIFFERENCE_KINDS = ['spelling', 'missing_in_input', 'missing_in_match', 'different'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface AddressDifference {
  field: DifferenceField;
  kind: DifferenceKind;
  /** As the input wrote it; null when the input left it out. */
  input: string | null;
  /** As the matched address writes it; null when it has none. */
  matched: string | null;
}

export interface MatchScore {
  /** 0 to 1, two decimals: 1 less the weights of the differences (never below 0). */
  confidence: number;
  /** In DIFFERENCE_FIELDS order. */
  differences: AddressDifference[];
}

// Weights in hundredths, by the class of the field and the kind of difference. A spelling costs
// little (USPS abbreviations name the same thing); a place part the input left out costs little (the
// rest of the address already named one home); a street type or directional left out costs more
// (another street may differ only in it); parts missing or different on the matched side can only
// come from the site's record disagreeing with its own suggestion, and cost most.
const FIELD_CLASS: Record<DifferenceField, 'identity' | 'qualifier' | 'place' | 'designator'> = {
  house_number: 'identity',
  street_name: 'identity',
  unit: 'identity',
  street_type: 'qualifier',
  directional: 'qualifier',
  city: 'place',
  state: 'place',
  zipcode: 'place',
  unit_designator: 'designator',
};
export const DIFFERENCE_WEIGHTS: Record<(typeof FIELD_CLASS)[DifferenceField], Record<DifferenceKind, number>> = {
  identity: { spelling: 2, missing_in_input: 50, missing_in_match: 50, different: 50 },
  qualifier: { spelling: 2, missing_in_input: 10, missing_in_match: 10, different: 50 },
  place: { spelling: 2, missing_in_input: 5, missing_in_match: 10, different: 25 },
  designator: { spelling: 2, missing_in_input: 2, missing_in_match: 2, different: 2 },
};

/** An address as written and as parsed: the words tell apart spellings the parts equate. */
export interface WrittenAddress {
  /** Text that starts with the street line (the whole input line, or a record's street line). */
  text: string;
  parts: AddressParts;
  /** The city and state as written; undefined: looked for in `text`. */
  city?: string | null;
  state?: string | null;
}

/** The parts as written (original case); a part is undefined when its words could not be lined up. */
interface AsWritten {
  prefix?: string;
  street?: string;
  type?: string;
  suffix?: string;
  /** The unit's designator words (`APT`, `#`, `Unit #`); '' when the unit is written without one. */
  designator?: string;
  city?: string;
  state?: string;
}

const DIRECTION_WORDS: Record<string, string> = {
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
};
/** Upper case without punctuation: how written forms are compared (case and punctuation are no difference). */
const canon = (w: string): string => w.toUpperCase().replace(/[^A-Z0-9#]/g, '');
const isDirectional = (w: string, code: string) => (DIRECTION_WORDS[canon(w)] ?? canon(w)) === code;
const isDesignatorWord = (w: string) =>
  w === '#' || UNIT_DESIGNATORS.includes(canon(w)) || unnumbered(canon(w)) === 'PH';

/**
 * Lines the words of a street line up with its parsed parts (number, prefix, street, type, suffix,
 * unit) to read how each was written. Stops at the first part whose words do not line up.
 */
function writtenStreetLine(text: string, parts: StreetLineParts): AsWritten {
  const words = text
    .replace(/#/g, ' # ')
    .split(/[\s,]+/)
    .filter(Boolean);
  const out: AsWritten = {};
  const n = parts.number.split(' ').length;
  if (houseNumberKey(words.slice(0, n).join(' ')) !== houseNumberKey(parts.number)) return out;
  let i = n;
  if (parts.prefix) {
    if (!words[i] || !isDirectional(words[i]!, parts.prefix)) return out;
    out.prefix = words[i++];
  }
  const k = parts.street.split(' ').length;
  const street = words.slice(i, i + k).join(' ');
  if (canon(street) !== canon(parts.street)) return out;
  // Saint/St in a name is a spelling: placeName equates them, the words show which was written.
  out.street = street;
  i += k;
  if (parts.type) {
    if (!words[i]) return out;
    out.type = words[i++];
  }
  if (parts.suffix) {
    if (!words[i] || !isDirectional(words[i]!, parts.suffix)) return out;
    out.suffix = words[i++];
  }
  if (parts.unit) {
    // The unit's words: taken until they name the parsed unit; its designators are the words naming none.
    for (let j = i + 1; j <= Math.min(words.length, i + 6); j++) {
      const unitWords = words.slice(i, j);
      if (normalizeUnit(unitWords.join(' ')) === parts.unit) {
        out.designator = unitWords.filter(isDesignatorWord).join(' ');
        break;
      }
    }
  }
  return out;
}

/** `words` as the text writes them (case and punctuation kept), last occurrence; undefined when absent. */
function findWritten(text: string, words: string): string | undefined {
  const pattern = words
    .split(/\s+/)
    .map((w) => w.replace(/[^A-Z0-9]/gi, ''))
    .filter(Boolean)
    .join("[\\s.,']+");
  if (!pattern) return undefined;
  const all = [...text.matchAll(new RegExp(`(?<![A-Z0-9])${pattern}(?![A-Z0-9])`, 'gi'))];
  return all.at(-1)?.[0];
}

const NAMES_BY_CODE = new Map<string, string[]>();
for (const [name, code] of Object.entries(STATE_NAMES))
  NAMES_BY_CODE.set(code, [...(NAMES_BY_CODE.get(code) ?? []), name]);

/** The input's state as written: its code, else its name. */
function writtenState(text: string, code: string): string | undefined {
  return (
    findWritten(text, code) ??
    (NAMES_BY_CODE.get(code) ?? []).map((name) => findWritten(text, name)).find((w) => w !== undefined)
  );
}

function asWritten(a: WrittenAddress): AsWritten {
  const street = writtenStreetLine(a.text, a.parts);
  const city =
    a.city !== undefined ? (a.city ?? undefined) : a.parts.city ? findWritten(a.text, a.parts.city) : undefined;
  const state =
    a.state !== undefined ? (a.state ?? undefined) : a.parts.state ? writtenState(a.text, a.parts.state) : undefined;
  return { ...street, ...(city ? { city } : {}), ...(state ? { state } : {}) };
}

/**
 * What the matched address differs in from the input, and the confidence of the match: 1 when every
 * part matches as written (case and punctuation aside, a ZIP+4 read as its ZIP) and the input left
 * nothing out; each difference takes its weight (DIFFERENCE_WEIGHTS) off. Adding a difference never
 * raises the confidence.
 */
export function scoreMatch(input: WrittenAddress, matched: WrittenAddress): MatchScore {
  const a = input.parts;
  const b = matched.parts;
  const wa = asWritten(input);
  const wb = asWritten(matched);
  const out: AddressDifference[] = [];
  const add = (
    field: DifferenceField,
    kind: DifferenceKind,
    inputValue: string | null | undefined,
    matchedValue: string | null | undefined,
  ) => out.push({ field, kind, input: inputValue ?? null, matched: matchedValue ?? null });
  // A part both sides have, equal after `same`: a spelling when both are written and the words differ.
  const part = (
    field: DifferenceField,
    x: string | null,
    y: string | null,
    same: (x: string, y: string) => boolean,
    xw?: string,
    yw?: string,
  ) => {
    if (!x && !y) return;
    if (!x) return add(field, 'missing_in_input', null, yw ?? y);
    if (!y) return add(field, 'missing_in_match', xw ?? x, null);
    if (!same(x, y)) return add(field, 'different', xw ?? x, yw ?? y);
    if (xw !== undefined && yw !== undefined && canon(xw) !== canon(yw)) add(field, 'spelling', xw, yw);
  };
  const equal = (x: string, y: string) => x === y;
  part('house_number', a.number, b.number, (x, y) => houseNumberKey(x) === houseNumberKey(y));
  part('street_name', a.street, b.street, (x, y) => placeName(x) === placeName(y), wa.street, wb.street);
  part('street_type', a.type, b.type, equal, wa.type, wb.type);
  const dirs = (p: AddressParts) => directionals(p).join(' ') || null;
  const dirsWritten = (w: AsWritten, p: AddressParts) =>
    (p.prefix && w.prefix === undefined) || (p.suffix && w.suffix === undefined)
      ? undefined
      : [w.prefix, w.suffix].filter(Boolean).join(' ');
  part('directional', dirs(a), dirs(b), equal, dirsWritten(wa, a), dirsWritten(wb, b));
  part('unit', a.unit, b.unit, (x, y) => normalizeUnit(x) === normalizeUnit(y));
  if (
    a.unit &&
    b.unit &&
    wa.designator !== undefined &&
    wb.designator !== undefined &&
    canon(wa.designator) !== canon(wb.designator)
  ) {
    const kind = !wa.designator ? 'missing_in_input' : !wb.designator ? 'missing_in_match' : 'spelling';
    add('unit_designator', kind, wa.designator || null, wb.designator || null);
  }
  part('city', a.city, b.city, (x, y) => placeName(x) === placeName(y), wa.city, wb.city);
  part('state', a.state, b.state, equal, wa.state, wb.state);
  part('zipcode', a.zip, b.zip, equal);
  const lost = out.reduce((sum, d) => sum + DIFFERENCE_WEIGHTS[FIELD_CLASS[d.field]][d.kind], 0);
  return { confidence: Math.max(0, 100 - lost) / 100, differences: out };
}

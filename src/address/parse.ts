// One-line US addresses: validation (spec 4.1) and the parts and normalized form used in `addr:` cache keys.
//
// The end of the line (ZIP, state, city) is split off here, where a missing part is easier to see; the
// street line itself (USPS suffixes, directionals, unit designators) is read by the grammar
// (grammar.ts). The house number (1A, 10-12, 123 1/2), a second unit designator (BLDG 3 APT 4) and a
// named unit (#TOWNHOUSE 1) are read here, around it.
import { readLocation, type Location } from './grammar.js';
import { dropLeadingZeros, normalizeParts, upperWords as up } from './normalize.js';
import type { AddressParts, StreetLineParts } from './parts.js';
import { STATE_CODES, STATE_NAMES, STATE_NAME_AT_END } from './states.js';
import { UNIT_DESIGNATOR_AT_END, UNIT_GROUP, normalizeUnit, splitUnit, unnumbered } from './units.js';

export type AddressCheck = { ok: true; parts: AddressParts; normalized: string } | { ok: false; reason: string };

export const ADDRESS_MIN = 5;
export const ADDRESS_MAX = 200;

// ---------------------------------------------------------------------------------------------
// Street line.

// 123, 12B, 1a, 123-A, 10-12, 10-12A, optionally followed by a fraction (123 1/2).
const HOUSE_NUMBER = /^(\d+)(-?[A-Z](?![A-Z0-9'])|-\d+[A-Z]?(?![A-Z0-9']))?(?:\s+(\d+\/\d+))?(?=\s)/i;
// Designator groups the grammar leaves in the street when there are two (`MAIN ST BLDG 3` + APT 4).
const UNITS_IN_STREET = new RegExp(`^(.+?)((?:\\s+${UNIT_GROUP})+)$`, 'i');

/**
 * Parses a street line (`710 E Dean Keeton St Apt 111`) into its parts; null when it has no house
 * number or no street. The line must not carry the city, state or ZIP.
 */
export function parseStreetLine(line: string): StreetLineParts | null {
  let text = line.replace(/\s+/g, ' ').trim();
  let namedUnit = '';
  const atEnd = splitUnit(text);
  if (atEnd.unit?.includes(' ')) {
    // A named unit (`#TOWNHOUSE 1`) would stay in the grammar's street: it is taken off first.
    text = atEnd.street;
    namedUnit = atEnd.unit;
  }
  const house = HOUSE_NUMBER.exec(text);
  let number: string | null = null;
  let fed = text;
  if (house) {
    const [all, digits, tail, fraction] = house;
    number = [dropLeadingZeros(digits!) + (tail ?? '').toUpperCase().replace(/^-(?=[A-Z])/, ''), fraction]
      .filter(Boolean)
      .join(' ');
    // The grammar gets a plain number: it would read `1A Main` as number 1 on street "A Main".
    fed = `${digits} ${text.slice(all.length).trim()}`;
  }
  const p = parseLocation(fed);
  if (!p) return null;
  const parsedNumber = up(p.number);
  number ??= parsedNumber ? dropLeadingZeros(parsedNumber) : null;
  let street = up(p.street);
  if (!number || !/\d/.test(number) || !street) return null;
  let { type, suffix } = { type: up(p.type), suffix: up(p.suffix) };
  let unitText = p.unitNum ? `${p.unitType ?? ''} ${p.unitNum}` : (p.unitType ?? '');
  const more = UNITS_IN_STREET.exec(street);
  if (more) {
    // The grammar reads one unit (or none, after `PH 2`); other designators stay in the street: read it again.
    const again = parseLocation(`1 ${more[1]}`);
    const againStreet = up(again?.street);
    if (again && againStreet) {
      street = againStreet;
      type = up(again.type);
      suffix = up(again.suffix);
      unitText = `${more[2]} ${unitText}`;
    }
  }
  return { number, prefix: up(p.prefix), street, type, suffix, unit: normalizeUnit(`${unitText} ${namedUnit}`) };
}

const parseLocation = (streetLine: string): Location | null => readLocation(streetLine, 'street');

// ---------------------------------------------------------------------------------------------
// The whole line.

const COUNTRY_AT_END = /,\s*(?:USA|U\.S\.A\.?|US|U\.S\.?|UNITED STATES(?: OF AMERICA)?)\.?$/i;
const ZIP_AT_END = /(?:^|[\s,])(\d{5})(?:-?\d{4}|\s\d{4})?$/;
const CODE_AT_END = /(?:^|[\s,])([A-Z]{2})$/i;
const trimEnd = (s: string) => s.replace(/[\s,]+$/, '');
const UNIT_AT_START = new RegExp(`^${UNIT_GROUP}`, 'i');
// A comma-separated piece that belongs to the street line (`Apt 4`, `#4`, `4B`): cities have no digits.
const isStreetPiece = (seg: string) => UNIT_AT_START.test(seg) || /\d/.test(seg);

interface Tail {
  rest: string;
  state: string | null;
  /** Set when the line has a state code the service does not know (`..., Springfield, XX`). */
  unknownState?: string;
}

/** Takes a trailing state (code or name) off the line, if the line has one in a place a state can be. */
function takeState(line: string): Tail {
  const lastComma = line.lastIndexOf(',');
  const lastPiece = line.slice(lastComma + 1).trim();
  const name = STATE_NAME_AT_END.exec(line);
  if (name) {
    // A name alone after the street is a city as often as a state ("…, Washington 20001"): it is the
    // state only after a city (`…, Springfield, Illinois`, `…, Springfield Illinois`, `… St Springfield Illinois`).
    const state = STATE_NAMES[name[1]!.toUpperCase().replace(/\s+/g, ' ')]!;
    const rest = trimEnd(line.slice(0, name.index));
    const cityBefore =
      lastComma >= 0
        ? lastPiece.length > name[1]!.length || line.slice(0, lastComma).includes(',')
        : !!splitGluedCity(rest, state).city;
    if (cityBefore) return { rest, state };
  }
  const code = CODE_AT_END.exec(line);
  if (!code) return { rest: line, state: null };
  const c = code[1]!.toUpperCase();
  const rest = trimEnd(line.slice(0, code.index));
  if (!STATE_CODES.has(c)) {
    // Two letters alone after a comma can only be meant as a state (`PH` is a penthouse).
    const meantAsState = lastComma >= 0 && lastPiece.length === 2 && !unnumbered(c);
    return meantAsState ? { rest, state: null, unknownState: c } : { rest: line, state: null };
  }
  if (lastComma >= 0) return { rest, state: c };
  // No comma at all: CT, MT, PR and NE are also a street type (Court, Mount, Prairie) or a directional.
  // If the parser reads the whole line with that word as the street's last part, it is not a state.
  const whole = parseStreetLine(line);
  const endsInIt = whole && !whole.unit && (whole.suffix ?? whole.type) === c;
  return endsInIt ? { rest: line, state: null } : { rest, state: c };
}

/**
 * A line without commas that ends in a state: where the street line ends and the city begins.
 * The grammar finds the city when the line has one; when the street line ends in a type,
 * directional or unit, and the parser's "city" is that word ("661 Lakeview Ave CA"), there is none.
 */
function splitGluedCity(line: string, state: string): { streetLine: string; city: string | null } {
  const whole = parseStreetLine(line);
  if (whole && (whole.type || whole.suffix || whole.unit)) return { streetLine: line, city: null };
  const city = up(readLocation(`${line} ${state}`, 'place')?.city);
  if (!city) return { streetLine: line, city: null };
  const words = line.split(' ');
  const cityWords = city.split(' ').length;
  const tail = words.slice(-cityWords).join(' ');
  if (up(tail) !== city || words.length <= cityWords) return { streetLine: line, city: null };
  return { streetLine: words.slice(0, -cityWords).join(' '), city };
}

/** Parses and checks a one-line US address; never throws. */
export function checkAddress(input: string): AddressCheck {
  const text = input.trim();
  if (text.length < ADDRESS_MIN || text.length > ADDRESS_MAX) {
    return { ok: false, reason: `address must be ${ADDRESS_MIN} to ${ADDRESS_MAX} characters` };
  }
  let line = trimEnd(text.replace(/\s+/g, ' ').replace(COUNTRY_AT_END, ''));

  let zip: string | null = null;
  const z = ZIP_AT_END.exec(line);
  // A ZIP needs something before it with letters in it (`12345` alone is a house number), and not a
  // unit designator right before it (`Apt 10001` is a unit) unless that is FL before five digits: Florida
  // and its ZIP (`Miami, FL 33101`), never a floor numbered in the tens of thousands.
  const beforeZip = z ? line.slice(0, z.index) : '';
  const florida = /(?:^|[\s,])FL\.?\s*$/i.test(beforeZip);
  if (z && /[A-Z]/i.test(beforeZip) && (florida || !UNIT_DESIGNATOR_AT_END.test(beforeZip))) {
    zip = z[1]!;
    line = trimEnd(line.slice(0, z.index));
  }

  const tail = takeState(line);
  if (tail.unknownState) return { ok: false, reason: `unknown state "${tail.unknownState}"` };
  const state = tail.state;
  line = tail.rest;

  const pieces = line
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let streetLine: string;
  let city: string | null = null;
  if (pieces.length >= 2) {
    // The first piece is the street line, and so are unit pieces after it (`123 Main St, Apt 4, …`).
    // The last other piece is the city; pieces between (a neighbourhood) carry no identity.
    let n = 1;
    while (n < pieces.length && isStreetPiece(pieces[n]!)) n++;
    streetLine = pieces.slice(0, n).join(' ');
    const rest = pieces.slice(n);
    city = rest.length > 0 ? up(rest[rest.length - 1]) : null;
  } else {
    const glued = state && pieces[0] ? splitGluedCity(pieces[0], state) : { streetLine: pieces[0] ?? '', city: null };
    streetLine = glued.streetLine;
    city = glued.city;
  }

  const street = parseStreetLine(streetLine);
  if (!street) return { ok: false, reason: 'address needs a house number and a street' };
  if (!zip && !(city && state)) {
    return { ok: false, reason: 'address needs either a city and state or a ZIP code' };
  }
  const parts: AddressParts = { ...street, city, state, zip };
  return { ok: true, parts, normalized: normalizeParts(parts) };
}

// Units: the one list of designators and the one pattern of a unit, for parsing an asked address,
// comparing it with the site's, and splitting the unit off a page's street line.
import { dropUnitLeadingZeros } from './normalize.js';

/** The USPS secondary unit designators (Publication 28, appendix C2) that take a number. */
export const UNIT_DESIGNATORS: readonly string[] = [
  'APT',
  'APARTMENT',
  'BLDG',
  'BUILDING',
  'DEPT',
  'FL',
  'FLOOR',
  'HNGR',
  'HANGAR',
  'LOT',
  'PH',
  'PIER',
  'RM',
  'ROOM',
  'SLIP',
  'SPC',
  'SPACE',
  'STE',
  'SUITE',
  'STOP',
  'TRLR',
  'TRAILER',
  'UNIT',
];
const DESIGNATORS = UNIT_DESIGNATORS.join('|');
const DESIGNATOR = new RegExp(`^(?:${DESIGNATORS})$`);
// A building designator (BLDG, BUILDING and the other spellings the grammar accepts): its number
// is kept apart from the unit's (`BLDG 3 APT 4`).
const BUILDING_WORD = /^BU?I?LDI?N?G$/;

const UNIT_ID = '[A-Z0-9][A-Z0-9-]*';
// After `#` a unit may be a name and a number (`#TOWNHOUSE 1`, `# PH 2`); the grammar does not read these.
const NAMED_UNIT_ID = `[A-Z]{2,}\\s+${UNIT_ID}`;
/** A designator and its id (`APT 4`, `UNIT #04-B`), or `#` and an id (`#4`, `#TOWNHOUSE 1`). Case-insensitive use. */
export const UNIT_GROUP = `(?:(?:${DESIGNATORS})\\b\\.?\\s*#?\\s*${UNIT_ID}|#\\s*(?:${NAMED_UNIT_ID}|${UNIT_ID}))`;
/** A line that ends in a designator or `#` with nothing after it (`… Apt`, `… Unit #`). */
export const UNIT_DESIGNATOR_AT_END = new RegExp(`(?:^|\\s)(?:${DESIGNATORS})\\.?\\s*#?$|#$`, 'i');
const UNIT_AT_END = new RegExp(
  `\\s+(?:(?:${DESIGNATORS})\\b\\.?\\s*#?\\s*(${UNIT_ID})|#\\s*(${NAMED_UNIT_ID}|${UNIT_ID}))$`,
  'i',
);

// Units without a number, as the grammar reads them, with their USPS abbreviation.
const UNNUMBERED: Array<[RegExp, string]> = [
  [/^BA?SE?ME?N?T$/, 'BSMT'],
  [/^FRO?NT$/, 'FRNT'],
  [/^LO?BBY$/, 'LBBY'],
  [/^LOWE?R$/, 'LOWR'],
  [/^OFF?I?CE?$/, 'OFC'],
  [/^PE?N?T?HO?U?S?E?$/, 'PH'],
  [/^REAR$/, 'REAR'],
  [/^SIDE$/, 'SIDE'],
  [/^UPPE?R$/, 'UPPR'],
];
/** The USPS abbreviation of a unit that takes no number (`Penthouse` → `PH`, `Rear`), else null. */
export const unnumbered = (word: string): string | null =>
  UNNUMBERED.find(([re]) => re.test(word.toUpperCase()))?.[1] ?? null;

// A word naming a unit (`TOWNHOUSE` of `TOWNHOUSE 1`) keeps a space before its number; ids are joined (`4 B` → `4B`).
const isUnitName = (id: string) => /^[A-Z]{3,}$/.test(id);

/**
 * A unit as compared and keyed: designators, `#`, punctuation and leading zeros carry no identity
 * (`Apt #04-B` → `4B`), except that a building number stays apart (`Bldg 3 Apt 4` → `BLDG 3 4`), a
 * penthouse is not the apartment of the same number (`PH 2` → `PH2`), a unit without a number
 * keeps its name (`Penthouse` → `PH`), and a named unit keeps its name (`#Townhouse 1` → `TOWNHOUSE 1`).
 * Null when there is no unit.
 */
export function normalizeUnit(unit: string | null | undefined): string | null {
  const words = (unit ?? '').toUpperCase().replace(/[#,.]/g, ' ').trim().split(/\s+/).filter(Boolean);
  const buildings: string[] = [];
  const ids: string[] = [];
  let designator: string | null = null;
  for (const w of words) {
    if (BUILDING_WORD.test(w) || DESIGNATOR.test(w) || unnumbered(w) === 'PH') {
      designator = unnumbered(w) === 'PH' ? 'PH' : w;
      continue;
    }
    const id = dropUnitLeadingZeros(w.replace(/-/g, ''));
    if (!id) continue;
    if (designator && BUILDING_WORD.test(designator)) buildings.push(id);
    else ids.push(designator === 'PH' && ids.length === 0 ? `PH${id}` : id);
    designator = null;
  }
  if (buildings.length === 0 && ids.length === 0) return designator ? unnumbered(designator) : null;
  if (buildings.length === 0 && ids.length === 1 && unnumbered(ids[0]!)) return unnumbered(ids[0]!);
  const unitId = ids.reduce((out, id, i) => (i > 0 && isUnitName(ids[i - 1]!) ? `${out} ${id}` : out + id), '');
  return [...buildings.map((b) => `BLDG ${b}`), unitId].filter(Boolean).join(' ');
}

// A unit has a digit or is a letter or two ("APT B"); "12 Apartment Row" is a street, not unit ROW.
const looksLikeUnit = (id: string) => /\d/.test(id) || id.length <= 2;
// What is left of a line when its "unit" was the street's name: a house number, perhaps with a
// directional ("5 Lot Ln", "12 N Pier 39"). Only there is a designator read as the street's name: a
// unit named like a street type stays a unit ("12 Main St Unit CT").
const HOUSE_NUMBER_ONLY = /^\d+[A-Z]?(?:\s+(?:N|S|E|W|NE|NW|SE|SW))?$/i;

/**
 * Splits a street line as the site writes it into the street and its unit, as written without the
 * designator: `6851 Roswell Rd APT O31` → `O31`, `197 W Houston St #TOWNHOUSE 1` → `TOWNHOUSE 1`.
 * A designator that is the street's name is not a unit: `5 Lot Ln`, `12 Pier 39`, `12 N Pier 39`.
 */
export function splitUnit(streetLine: string): { street: string; unit: string | null } {
  const line = streetLine.trim();
  const m = UNIT_AT_END.exec(line);
  const unit = m ? (m[1] ?? m[2]!).replace(/\s+/g, ' ') : null;
  if (!m || !unit || !looksLikeUnit(unit)) return { street: line, unit: null };
  const street = line.slice(0, m.index).trim();
  const designatorIsStreet = m[1] !== undefined && HOUSE_NUMBER_ONLY.test(street);
  return designatorIsStreet ? { street: line, unit: null } : { street, unit };
}

/** A unit field without its designator (`Unit 11303` → `11303`, `#5` → `5`); null when empty. */
export function unitLabel(v: unknown): string | null {
  const t = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (t === '') return null;
  return splitUnit(`x ${t}`).unit ?? t;
}

// The grammar of a one-line US address, read word by word: house number, directional, street name,
// street type (USPS suffix), directional, unit, and where a place is allowed, city, state and ZIP.
//
// The street is found by trying its readings in a fixed order and taking the first that leaves
// something the rest of the line can be (a unit, a place, nothing):
//   1. a directional and a type alone are the name and the type (`N St`, `North Ave`);
//   2. with a leading directional (prefix) if there is one, then without:
//      a. a name ending in a digit and a directional (`US Hwy 101 N`), the longest name first;
//      b. a name, a type and perhaps a directional (`Main St`, `Main St NW`), the last type first;
//      c. a name alone, perhaps with a type or directional after it, the shortest name first.
// A street's words never span a comma; a unit may follow one.
import { STATE_NAMES } from './states.js';
import { streetType } from './street-types.js';

/** What the grammar reads from a line: upper case, USPS abbreviations for type and directionals. */
export interface Location {
  number: string | null;
  prefix: string | null;
  street: string | null;
  type: string | null;
  suffix: string | null;
  /** The unit designator as written (`APT`, `#`, `STE`, `REAR`), or null. */
  unitType: string | null;
  /** The unit id (`4`, `4-B`), or null when there is none or the unit takes no number. */
  unitNum: string | null;
  city: string | null;
  /** The state as written when it is a code (`TX`), else its code (`Texas` → `TX`). */
  state: string | null;
  zip: string | null;
}

const DIRECTIONS: Readonly<Record<string, string>> = {
  NORTH: 'N',
  NORTHEAST: 'NE',
  EAST: 'E',
  SOUTHEAST: 'SE',
  SOUTH: 'S',
  SOUTHWEST: 'SW',
  WEST: 'W',
  NORTHWEST: 'NW',
};
const DIRECTION_CODES = new Set(Object.values(DIRECTIONS));
const DIRECTION_NAMES = new Map(Object.entries(DIRECTIONS).map(([name, code]) => [code, name]));

/** The USPS code of a directional word (`North`, `n`, `N.E.`, `NE` → `NE`); null when it is none. */
export function directional(word: string): string | null {
  const w = word.toUpperCase();
  const dotted = /^(?:[NSEW]\.?){1,2}$/.test(w) ? w.replace(/\./g, '') : null;
  if (dotted) return DIRECTION_CODES.has(dotted) ? dotted : null;
  return DIRECTIONS[w.replace(/\.$/, '')] ?? null;
}

// Units. A numbered designator is read in its usual spellings (`Apt`, `Apartment`, `Ste`, `Suite`,
// `Fl`, `Flr`, `Bldg`, `Building` ...), then its id; `#` takes an id too. Unnumbered units stand alone.
const NUMBERED =
  'su?i?te|p\\W*(?:[om]|ost ?office)\\W*b(?:ox)?|(?:ap|dep)(?:ar)?t(?:me?nt)?|ro*m|flo*r?|uni?t|bu?i?ldi?n?g|ha?nga?r|lo?t|pier|slip|spa?ce?|stop|tra?i?le?r|box';
const UNNUMBERED = 'ba?se?me?n?t|fro?nt|lo?bby|lowe?r|off?i?ce?|pe?n?t?ho?u?s?e?|rear|side|uppe?r';
const UNIT = `(?:(?:(?<designator>${NUMBERED})(?![a-z])\\W*|(?<hash>#)\\W*)(?<id>[\\w-]+)|(?<alone>${UNNUMBERED})\\b)`;
const STATE = `\\b(?:${[...Object.keys(STATE_NAMES), ...Object.values(STATE_NAMES)].join('|')})\\b`;
const CITY_STATE = `(?<city>[^\\d,]+?)\\W+(?<state>${STATE})`;
const ZIP = '(?<zip>\\d{5})[- ]?(?:\\d{4})?';
// What may follow a street: a street line ends in a unit or nothing (a city and state after it mean
// the line was not a street line); a whole line goes on to its place.
const AFTER_STREET = {
  street: new RegExp(
    `^(?:\\W+${UNIT})?\\W*(?:${CITY_STATE}\\W*)?$|^\\W+(?<dangling>(?:${NUMBERED})(?![a-z])|#)\\W*$`,
    'i',
  ),
  place: new RegExp(`^\\W+(?:${UNIT})?\\W*(?:${CITY_STATE}\\W*)?(?:${ZIP})?\\W*$`, 'i'),
};
const UNIT_FIRST = new RegExp(`^\\s*${UNIT}(?:\\W+|$)`, 'i');
// 123, 12-34 (Queens), N123W4567 (Wisconsin grid), and a fraction after it (123 1/2).
const NUMBER = /^[^\w#]*(\d+-?\d*|[NSEW]\d{1,3}[NSEW]\d{1,6})(?=\D)\W*(?:\d+\/\d+\W*)?/i;
const PO_BOX_FIRST = /^p\W*(?:[om]|ost ?office)\W*b(?:ox)?/i;

interface Word {
  text: string;
  start: number;
  end: number;
  /** A comma stands between this word and the one before. */
  afterComma: boolean;
}

function wordsOf(text: string, from: number): Word[] {
  const out: Word[] = [];
  const re = /[^\s,]+/g;
  re.lastIndex = from;
  let last = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({
      text: m[0],
      start: m.index,
      end: m.index + m[0].length,
      afterComma: text.slice(last, m.index).includes(','),
    });
    last = re.lastIndex;
  }
  return out;
}

/** Letters, digits, spaces, `-`, `#` and `&` kept; upper case, one space. */
const clean = (s: string | undefined): string | null => {
  const t = (s ?? '')
    .replace(/[^\w\s\-#&]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
  return t || null;
};

interface Street {
  prefix?: string;
  street: string;
  type?: string;
  suffix?: string;
}

type Mode = keyof typeof AFTER_STREET;

const NOT_A_STREET_LINE = new Error('not a street line');

/** Reads the line from the street on (after the house number); null when no reading fits. */
function readFrom(text: string, from: number, mode: Mode): Omit<Location, 'number'> | null {
  const words = wordsOf(text, from);
  const n = words.length;
  const span = (i: number, j: number) => text.slice(words[i]!.start, words[j - 1]!.end);
  const tryRest = (end: number, s: Street): Omit<Location, 'number'> | null => {
    if (end === 0) return null;
    const m = AFTER_STREET[mode].exec(text.slice(words[end - 1]!.end));
    if (!m) return null;
    const g = m.groups ?? {};
    // `… St Apt`: a designator without its id ends the street line, which is then no street line.
    if (g.dangling) throw NOT_A_STREET_LINE;
    const city = clean(g.city)?.replace(
      /^(NE|NW|SE|SW|N|S|E|W) (?=\S)/,
      (_, d: string) => `${DIRECTION_NAMES.get(d)} `,
    );
    const state = clean(g.state);
    return {
      prefix: s.prefix ? directional(s.prefix) : null,
      street: clean(s.street),
      type: s.type ? streetType(s.type) : null,
      suffix: s.suffix ? directional(s.suffix) : null,
      unitType: clean(g.designator ?? g.hash ?? g.alone),
      unitNum: clean(g.id),
      city: city ?? null,
      state: state ? (STATE_NAMES[state] ?? state) : null,
      zip: g.zip ?? null,
    };
  };
  const isDir = (i: number) => i < n && directional(words[i]!.text) !== null;
  const isType = (i: number) => i < n && streetType(words[i]!.text) !== null;

  // 1. `N St`, `North Ave`: the directional is the name.
  if (isDir(0) && isType(1)) {
    const r = tryRest(2, { street: words[0]!.text, type: words[1]!.text });
    if (r) return r;
  }
  for (const p of isDir(0) ? [1, 0] : [0]) {
    const prefix = p ? words[0]!.text : undefined;
    // The street's words run to the next comma.
    let limit = p + 1;
    while (limit < n && !words[limit]!.afterComma) limit++;
    if (p >= n) continue;
    // a. A name ending in a digit, then a directional: the longest name first.
    for (let e = limit - 1; e > p; e--) {
      if (!/\d\W*$/.test(words[e - 1]!.text) || !isDir(e)) continue;
      const street = span(p, e).replace(/\W+$/, '');
      const r = tryRest(e + 1, { prefix, street, suffix: words[e]!.text });
      if (r) return r;
    }
    // b. A name, a type, perhaps a directional: the last type first.
    for (let t = limit - 1; t > p; t--) {
      if (!isType(t)) continue;
      const s = { prefix, street: span(p, t), type: words[t]!.text };
      const r =
        (t + 1 < limit && isDir(t + 1) ? tryRest(t + 2, { ...s, suffix: words[t + 1]!.text }) : null) ??
        tryRest(t + 1, s);
      if (r) return r;
    }
    // c. A name alone, then perhaps a type and a directional: the shortest name first.
    for (let e = p + 1; e <= limit; e++) {
      const s = { prefix, street: span(p, e) };
      const typed = e < limit && isType(e);
      const r =
        (typed && e + 1 < limit && isDir(e + 1)
          ? tryRest(e + 2, { ...s, type: words[e]!.text, suffix: words[e + 1]!.text })
          : null) ??
        (typed ? tryRest(e + 1, { ...s, type: words[e]!.text }) : null) ??
        (e < limit && isDir(e) ? tryRest(e + 1, { ...s, suffix: words[e]!.text }) : null) ??
        tryRest(e, s);
      if (r) return r;
    }
  }
  return null;
}

/**
 * Reads a line as the grammar above. `street`: the line is a street line (a house number, street and
 * perhaps a unit) and null comes back when it is not. `place`: the line may go on with a city, state
 * and ZIP. A line starting with a unit (`#5 123 Main St`) has it read after the street. A PO box is no
 * street line: null.
 */
export function readLocation(line: string, mode: Mode): Location | null {
  if (PO_BOX_FIRST.test(line)) return null;
  const num = NUMBER.exec(line);
  if (num) {
    let rest: Omit<Location, 'number'> | null;
    try {
      rest = readFrom(line, num[0].length, mode);
    } catch (e) {
      if (e !== NOT_A_STREET_LINE) throw e;
      return null;
    }
    // A street line read with a city and state in it was not a street line.
    if (!rest || (mode === 'street' && (rest.city || rest.state))) return null;
    return { number: clean(num[1]), ...rest };
  }
  const unit = UNIT_FIRST.exec(line);
  if (!unit) return null;
  const after = readLocation(line.slice(unit[0].length), mode);
  if (!after || after.unitType) return after;
  const g = unit.groups ?? {};
  return { ...after, unitType: clean(g.designator ?? g.hash ?? g.alone), unitNum: clean(g.id) };
}

// Match confidence (docs/address-match.md): the differences the matcher tolerated and
// the confidence they leave, for a table of inputs against the address of the home answered.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkAddress,
  DIFFERENCE_KINDS,
  DIFFERENCE_WEIGHTS,
  partsWithUnit,
  scoreMatch,
  type AddressDifference,
  type WrittenAddress,
} from '../../src/address/index.js';

const input = (text: string): WrittenAddress => {
  const c = checkAddress(text);
  if (!c.ok) throw new Error(`test address did not parse: ${text} (${c.reason})`);
  return { text, parts: c.parts };
};

/** A record's address: its street line (as the site writes it), unit field, city, state and ZIP. */
const home = (
  street: string,
  o: { unit?: string | null; city?: string | null; state?: string | null; zip?: string | null } = {},
): WrittenAddress => {
  const { unit = null, city = 'Springfield', state = 'IL', zip = '62701' } = o;
  return { text: street, parts: partsWithUnit(street, unit, city, state, zip), city, state };
};

const d = (
  field: AddressDifference['field'],
  kind: AddressDifference['kind'],
  input: string | null,
  matched: string | null,
): AddressDifference => ({
  field,
  kind,
  input,
  matched,
});

const CASES: Array<[string, WrittenAddress, number, AddressDifference[]]> = [
  ['123 Main St, Springfield, IL 62701', home('123 Main St'), 1, []],
  // Case, punctuation, leading zeros and a ZIP+4 are normalization, not differences.
  ['0123 main st., springfield, il 62701-1234', home('123 Main St'), 1, []],
  ['123 Main Street, Springfield, IL 62701', home('123 Main St'), 0.98, [d('street_type', 'spelling', 'Street', 'St')]],
  ['123 Main St, Springfield, IL', home('123 Main St'), 0.95, [d('zipcode', 'missing_in_input', null, '62701')]],
  [
    '123 Main Street, Springfield, IL',
    home('123 Main St'),
    0.93,
    [d('street_type', 'spelling', 'Street', 'St'), d('zipcode', 'missing_in_input', null, '62701')],
  ],
  [
    '123 North Main St, Springfield, IL 62701',
    home('123 N Main St'),
    0.98,
    [d('directional', 'spelling', 'North', 'N')],
  ],
  [
    '123 Main St N, Springfield, IL 62701',
    home('123 Main St North'),
    0.98,
    [d('directional', 'spelling', 'N', 'North')],
  ],
  ['123 Main St, Springfield, IL 62701', home('123 N Main St'), 0.9, [d('directional', 'missing_in_input', null, 'N')]],
  ['123 Main, Springfield, IL 62701', home('123 Main St'), 0.9, [d('street_type', 'missing_in_input', null, 'St')]],
  ['123 Main St Apt 5, Springfield, IL 62701', home('123 Main St APT 5', { unit: '5' }), 1, []],
  [
    '123 Main St #5, Springfield, IL 62701',
    home('123 Main St APT 5', { unit: '5' }),
    0.98,
    [d('unit_designator', 'spelling', '#', 'APT')],
  ],
  [
    '123 Main St Apt 5, Springfield, IL 62701',
    home('123 Main St #5', { unit: '5' }),
    0.98,
    [d('unit_designator', 'spelling', 'Apt', '#')],
  ],
  [
    '123 Main St Apartment 05, Springfield, IL 62701',
    home('123 Main St APT 5', { unit: '5' }),
    0.98,
    [d('unit_designator', 'spelling', 'Apartment', 'APT')],
  ],
  ['123 Main St, Apt 5, Springfield, IL 62701', home('123 Main St Apt 5'), 1, []],
  [
    '197 W Houston St #TOWNHOUSE 1, New York, NY 10014',
    home('197 W Houston St #TOWNHOUSE 1', { unit: 'TOWNHOUSE 1', city: 'New York', state: 'NY', zip: '10014' }),
    1,
    [],
  ],
  [
    '197 W Houston St #townhouse 1, New York, NY 10014',
    home('197 W Houston St #TOWNHOUSE 1', { unit: 'TOWNHOUSE 1', city: 'New York', state: 'NY', zip: '10014' }),
    1,
    [],
  ],
  [
    '12 Saint Charles Ave, Saint Louis, MO 63101',
    home('12 St Charles Ave', { city: 'St. Louis', state: 'MO', zip: '63101' }),
    0.96,
    [d('street_name', 'spelling', 'Saint Charles', 'St Charles'), d('city', 'spelling', 'Saint Louis', 'St. Louis')],
  ],
  ['123 Main St, Springfield, Illinois 62701', home('123 Main St'), 0.98, [d('state', 'spelling', 'Illinois', 'IL')]],
  [
    '123 Main St 62701',
    home('123 Main St'),
    0.9,
    [d('city', 'missing_in_input', null, 'Springfield'), d('state', 'missing_in_input', null, 'IL')],
  ],
  // Only a record that disagrees with the suggestion the matcher accepted can lack what the input gave.
  [
    '123 Main St, Springfield, IL 62701',
    home('123 Main St', { zip: null }),
    0.9,
    [d('zipcode', 'missing_in_match', '62701', null)],
  ],
  [
    '123 Main St, Springfield, IL 62701',
    home('123 Main St', { zip: '62702' }),
    0.75,
    [d('zipcode', 'different', '62701', '62702')],
  ],
  [
    '123 Main Street North, Springfield, IL',
    home('123 Main St N', { zip: '62701' }),
    0.91,
    [
      d('street_type', 'spelling', 'Street', 'St'),
      d('directional', 'spelling', 'North', 'N'),
      d('zipcode', 'missing_in_input', null, '62701'),
    ],
  ],
];

describe('scoreMatch', () => {
  it.each(CASES)('%s against %j', (text, matched, confidence, differences) => {
    expect(scoreMatch(input(text), matched)).toEqual({ confidence, differences });
  });

  it('is monotonic: each difference added to an input lowers the confidence', () => {
    const ladder = [
      '123 N Main St, Springfield, IL 62701',
      '123 North Main St, Springfield, IL 62701',
      '123 North Main Street, Springfield, IL 62701',
      '123 North Main Street, Springfield, Illinois 62701',
      '123 North Main Street, Springfield, Illinois',
      '123 North Main, Springfield, Illinois',
    ];
    const scores = ladder.map((t) => scoreMatch(input(t), home('123 N Main St')));
    expect(scores.map((s) => s.differences.length)).toEqual([0, 1, 2, 3, 4, 4]);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!.confidence).toBeLessThan(scores[i - 1]!.confidence);
  });

  it('never goes below 0', () => {
    const far = scoreMatch(input('9 Elm Ave Apt 2, Shelbyville, IN 46176'), home('123 N Main St', { unit: '5' }));
    expect(far.confidence).toBe(0);
    expect(far.differences.map((x) => `${x.field}:${x.kind}`)).toEqual([
      'house_number:different',
      'street_name:different',
      'street_type:different',
      'directional:missing_in_input',
      'unit:different',
      'city:different',
      'state:different',
      'zipcode:different',
    ]);
  });
});

describe('docs/address-match.md', () => {
  it('states the weights DIFFERENCE_WEIGHTS applies', () => {
    const section = readFileSync(new URL('../../docs/address-match.md', import.meta.url), 'utf8');
    const rows = [
      ...section.matchAll(/^\s*\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$/gm),
    ];
    // One row per class: the weights of each class's fields, in hundredths.
    const classOf: Record<string, keyof typeof DIFFERENCE_WEIGHTS> = {
      '`city`, `state`, `zipcode`': 'place',
      '`street_type`, `directional`': 'qualifier',
      '`house_number`, `street_name`, `unit`': 'identity',
      '`unit_designator`': 'designator',
    };
    expect(rows.map((r) => r[1])).toEqual(Object.keys(classOf));
    for (const r of rows) {
      const weights = DIFFERENCE_WEIGHTS[classOf[r[1]!]!];
      expect(
        r.slice(2, 6).map((w) => Math.round(Number(w) * 100)),
        r[1],
      ).toEqual(DIFFERENCE_KINDS.map((k) => weights[k]));
    }
  });
});

describe('scoreMatch on odd input', () => {
  // Words that trouble parsers (designators, directionals, regex characters, non-ASCII), in random lines.
  const WORDS = [
    '123',
    '0',
    '1/2',
    '#',
    'APT',
    'Unit',
    'N',
    'North',
    'Main',
    'St',
    'Street',
    'Ave',
    '(',
    '[',
    '*',
    '+',
    '?',
    '\\',
    '$',
    'PH',
    'Penthouse',
    'Bldg',
    '3',
    '4B',
    '-',
    ',',
    '.',
    "'",
    'Saint',
    'TOWNHOUSE',
    'Springfield',
    'IL',
    'Illinois',
    '62701',
    'é',
    'Rd',
    'SE',
    'Lot',
    'Ln',
  ];
  let seed = 42;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const words = () => Array.from({ length: 1 + rnd(6) }, () => WORDS[rnd(WORDS.length)]).join(' ');

  it('never throws, stays within 0 to 1, and is 1 exactly when nothing differs', () => {
    let scored = 0;
    for (let i = 0; i < 2000; i++) {
      const text = `${rnd(999)} ${words()}, ${words()}, IL${rnd(2) ? ' 62701' : ''}`;
      const c = checkAddress(text);
      if (!c.ok) continue;
      const street = `${rnd(999)} ${words()}`;
      const city = rnd(2) ? words() : null;
      const state = rnd(2) ? words() : null;
      const m = scoreMatch(
        { text, parts: c.parts },
        {
          text: street,
          parts: partsWithUnit(street, rnd(2) ? words() : null, city, state, rnd(2) ? '62701' : null),
          city,
          state,
        },
      );
      expect(m.confidence).toBeGreaterThanOrEqual(0);
      expect(m.confidence).toBeLessThanOrEqual(1);
      expect(m.confidence === 1, text).toBe(m.differences.length === 0);
      scored++;
    }
    expect(scored).toBeGreaterThan(500);
  });
});

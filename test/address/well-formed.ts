// Well-formed one-line US addresses, for properties of the address parser: a house number, an optional
// directional, a street name from a list, a USPS street type, an optional directional after it, an
// optional unit, a city, a state (code or name) and a ZIP (perhaps ZIP+4).
import fc from 'fast-check';
import { STATE_NAMES } from '../../src/address/states.js';
import { STREET_TYPE_WORDS } from '../../src/address/street-types.js';

const NAMES = [
  'Main',
  'Oak',
  'Maple',
  'Cedar',
  'Elm',
  'Pine',
  'Washington',
  'Lakeview',
  'Dean Keeton',
  'Martin Luther King',
  'Sunset',
  'Highland',
  'Church',
  'Park',
  'Lake',
  'Mill',
  'Spring',
  'Forest Hill',
  'Ocean View',
  'Saint Charles',
  'Aspen',
  'Houston',
  'Roswell',
  '1st',
  '2nd',
  '3rd',
  '45th',
  '101st',
  'Fifth',
  'Old Mill',
  "O'Brien",
  'Mc Kinley',
  'Rio Grande',
];
const CITIES = [
  'Springfield',
  'Austin',
  'New York',
  'San Francisco',
  'Saint Louis',
  'St. Paul',
  'Fort Worth',
  'Salt Lake City',
  'Ames',
  'Boise',
  'North Little Rock',
  'Winston-Salem',
  'Coeur d Alene',
  'Los Angeles',
  'Palo Alto',
];
const DIRECTIONALS = ['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW', 'North', 'South', 'East', 'West', 'Northeast', 'N.'];
const DESIGNATORS = [
  'Apt',
  'Apt.',
  'Apartment',
  'Unit',
  '#',
  'Ste',
  'Suite',
  'Fl',
  'Floor',
  'Bldg',
  'Rm',
  'Lot',
  'Trlr',
  'Spc',
];
const STATES = [...Object.keys(STATE_NAMES), ...Object.values(STATE_NAMES)];
const word = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();
const cased = (s: string) => fc.constantFrom(s, s.toUpperCase(), word(s));

export interface WellFormed {
  line: string;
  streetLine: string;
}

const unitId = fc.oneof(
  fc.integer({ min: 1, max: 9999 }).map(String),
  fc.constantFrom('A', 'B', 'C', 'D'),
  fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('A', 'B', 'C')).map(([n, l]) => `${n}${l}`),
);

export const wellFormedAddress: fc.Arbitrary<WellFormed> = fc
  .record({
    number: fc.integer({ min: 1, max: 99999 }),
    pre: fc.option(fc.constantFrom(...DIRECTIONALS), { nil: undefined }),
    name: fc.constantFrom(...NAMES).chain(cased),
    type: fc.constantFrom(...STREET_TYPE_WORDS).chain(cased),
    post: fc.option(fc.constantFrom(...DIRECTIONALS), { nil: undefined, freq: 4 }),
    unit: fc.option(fc.tuple(fc.constantFrom(...DESIGNATORS), unitId, fc.boolean()), { nil: undefined }),
    city: fc.constantFrom(...CITIES),
    state: fc.constantFrom(...STATES).chain(cased),
    zip: fc.integer({ min: 501, max: 99950 }).map((z) => String(z).padStart(5, '0')),
    plus4: fc.option(
      fc.integer({ min: 0, max: 9999 }).map((z) => String(z).padStart(4, '0')),
      { nil: undefined },
    ),
  })
  .map((a) => {
    const street = [a.number, a.pre, a.name, a.type, a.post].filter(Boolean).join(' ');
    const unit = a.unit ? `${a.unit[2] ? ',' : ''} ${a.unit[0]}${a.unit[0] === '#' ? '' : ' '}${a.unit[1]}` : '';
    const streetLine = `${street}${unit}`;
    const zip = a.plus4 ? `${a.zip}-${a.plus4}` : a.zip;
    return { streetLine, line: `${streetLine}, ${a.city}, ${a.state} ${zip}` };
  });

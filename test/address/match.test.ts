// Parsing an asked address and matching it against the site's: the address module end to end.
import { describe, expect, it } from 'vitest';
import {
  bestCandidate,
  checkAddress,
  compareAddress,
  partsFromPieces,
  partsFromStreetLine,
  stateCode,
  type AddressParts,
  type AddressPieces,
} from '../../src/address/index.js';

const parts = (line: string): AddressParts => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(`test address did not parse: ${line} (${c.reason})`);
  return c.parts;
};

const pieces = (p: Partial<AddressPieces> & Pick<AddressPieces, 'streetNumber' | 'streetName'>): AddressPieces => ({
  city: 'Springfield',
  state: 'IL',
  zipCode: '62701',
  ...p,
});

const diff = (input: string, candidate: AddressPieces) => compareAddress(parts(input), partsFromPieces(candidate));

const key = (line: string): string => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(`test address did not parse: ${line} (${c.reason})`);
  return c.normalized;
};

describe('checkAddress: state and ZIP without a city', () => {
  it('reads a state and ZIP after the street line as state and ZIP, not the street type as the city', () => {
    expect(parts('661 Lakeview Ave, CA 94112')).toMatchObject({
      number: '661',
      street: 'LAKEVIEW',
      type: 'AVE',
      city: null,
      state: 'CA',
      zip: '94112',
    });
    expect(key('661 Lakeview Ave, CA 94112')).toBe('661 lakeview ave, ca 94112');
    expect(key('123 Main St, IL 62701')).toBe('123 main st, il 62701');
    expect(key('661 Lakeview Ave CA 94112')).toBe('661 lakeview ave, ca 94112');
  });

  it('so the right home is no city mismatch', () => {
    const home = pieces({
      streetNumber: '661',
      streetName: 'Lakeview Ave',
      city: 'San Francisco',
      state: 'CA',
      zipCode: '94112',
    });
    expect(diff('661 Lakeview Ave, CA 94112', home)).toEqual([]);
    expect(diff('123 Main St, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual([]);
  });

  it('accepts a unit, a state and a ZIP without a city (the ZIP is kept)', () => {
    const c = checkAddress('2435 Aspen Rd #104, IA 50010');
    expect(c).toMatchObject({
      ok: true,
      normalized: '2435 aspen rd #104, ia 50010',
      parts: { unit: '104', state: 'IA', zip: '50010', city: null },
    });
  });

  it('reads spelled-out states, in any case, after a city', () => {
    expect(parts('12 Main St, Austin, texas 78701')).toMatchObject({ city: 'AUSTIN', state: 'TX', zip: '78701' });
    expect(parts('12 Main St, Charleston, West Virginia')).toMatchObject({ city: 'CHARLESTON', state: 'WV' });
    expect(parts('12 Main St Springfield Illinois 62701')).toMatchObject({
      street: 'MAIN',
      type: 'ST',
      city: 'SPRINGFIELD',
      state: 'IL',
    });
  });

  it('still finds a city written without commas, and a state after the city', () => {
    expect(key('661 LAKEVIEW AVENUE  San Francisco CA 94112-1234')).toBe('661 lakeview ave, san francisco, ca 94112');
    expect(key('123 Main St Springfield, IL 62701')).toBe('123 main st, springfield, il 62701');
    expect(key('123 Main St, Apt 4, Springfield, IL')).toBe('123 main st #4, springfield, il');
  });

  it('does not take Court or a directional for a state when there is no comma', () => {
    expect(parts('123 Main Ct 06101')).toMatchObject({ street: 'MAIN', type: 'CT', state: null, zip: '06101' });
    expect(parts('123 Main St NE 68001')).toMatchObject({ suffix: 'NE', state: null, zip: '68001' });
  });

  it('a five-digit unit number is not a ZIP', () => {
    expect(checkAddress('123 Main St Apt 10001').ok).toBe(false);
    expect(parts('123 Main St Apt 10001, 62701')).toMatchObject({ unit: '10001', zip: '62701' });
  });
});

describe('checkAddress: states', () => {
  it('refuses a state that is not one', () => {
    expect(checkAddress('123 Main St, Springfield, XX 62701')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('XX'),
    });
    expect(checkAddress('123 Main St, Springfield, ZZ').ok).toBe(false);
  });

  it('stateCode maps codes and names, and nothing else', () => {
    expect(stateCode('tx')).toBe('TX');
    expect(stateCode('Texas')).toBe('TX');
    expect(stateCode('new  york')).toBe('NY');
    expect(stateCode('District of Columbia')).toBe('DC');
    expect(stateCode('Puerto Rico')).toBe('PR');
    expect(stateCode('XX')).toBeNull();
    expect(stateCode('Tex')).toBeNull();
    expect(stateCode(null)).toBeNull();
  });

  it('a state the site spells out is the same state', () => {
    expect(
      diff(
        '12 Main St, Austin, TX 78701',
        pieces({ streetNumber: '12', streetName: 'Main St', city: 'Austin', state: 'Texas', zipCode: '78701' }),
      ),
    ).toEqual([]);
    expect(partsFromStreetLine('12 Main St', 'Austin', 'texas', '78701').state).toBe('TX');
  });
});

describe('checkAddress: house numbers and buildings', () => {
  it('keeps the fraction of a house number', () => {
    expect(parts('123 1/2 Main St, Springfield, IL')).toMatchObject({ number: '123 1/2', street: 'MAIN', type: 'ST' });
    expect(key('123 1/2 Main St, Springfield, IL')).not.toBe(key('123 Main St, Springfield, IL'));
    expect(
      diff('123 1/2 Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' })),
    ).toEqual(['number']);
    expect(
      diff('123 1/2 Main St, Springfield, IL 62701', pieces({ streetNumber: '123 1/2', streetName: 'Main St' })),
    ).toEqual([]);
  });

  it('keeps letters and ranges in house numbers', () => {
    expect(parts('1a Main St, Springfield, IL')).toMatchObject({ number: '1A', street: 'MAIN', type: 'ST' });
    expect(parts('12B Main St 62701')).toMatchObject({ number: '12B', street: 'MAIN' });
    expect(parts('123-A Main St 62701')).toMatchObject({ number: '123A', street: 'MAIN' });
    expect(parts('10-12 Main St, Springfield, IL')).toMatchObject({ number: '10-12', street: 'MAIN' });
    expect(key('1a Main St, Springfield, IL')).toBe('1a main st, springfield, il');
    expect(diff('1A Main St, Springfield, IL 62701', pieces({ streetNumber: '1', streetName: 'Main St' }))).toEqual([
      'number',
    ]);
    // Zeros go before a digit only: house 0A is not house A (as parsing keeps 0A).
    expect(parts('0A Main St, Springfield, IL')).toMatchObject({ number: '0A' });
    const house0A = parts('0A Main St, Springfield, IL 62701');
    expect(compareAddress(house0A, { ...house0A, number: 'A' })).toEqual(['number']);
    expect(diff('1A Main St, Springfield, IL 62701', pieces({ streetNumber: '1a', streetName: 'Main St' }))).toEqual(
      [],
    );
    expect(diff('12 Main St, Springfield, IL 62701', pieces({ streetNumber: '0012', streetName: 'Main St' }))).toEqual(
      [],
    );
  });

  it('reads a building designator as part of the unit, not of the street', () => {
    expect(parts('12 Main St Bldg 3 Apt 4, Springfield, IL 62701')).toMatchObject({
      street: 'MAIN',
      type: 'ST',
      unit: 'BLDG 3 4',
    });
    expect(key('12 Main St Bldg 3 Apt 4, Springfield, IL')).not.toBe(key('12 Main St Bldg 5 Apt 4, Springfield, IL'));
    expect(key('12 Main St Bldg 3 Apt 4, Springfield, IL')).not.toBe(key('12 Main St Apt 34, Springfield, IL'));
    const condo = (unitNumber: string) => pieces({ streetNumber: '12', streetName: 'Main St', unitNumber });
    expect(diff('12 Main St Bldg 3 Apt 4, Springfield, IL 62701', condo('Bldg 3 Apt 4'))).toEqual([]);
    expect(diff('12 Main St Building 3 #4, Springfield, IL 62701', condo('BLDG 3 APT 4'))).toEqual([]);
    expect(diff('12 Main St Bldg 3 Apt 4, Springfield, IL 62701', condo('Bldg 5 Apt 4'))).toEqual(['unit']);
    expect(diff('12 Main St Apt 4, Springfield, IL 62701', condo('Bldg 3 Apt 4'))).toEqual(['unit']);
  });

  it('a unit without a number is a unit (penthouse, rear)', () => {
    expect(key('1 Main St Penthouse, 62701')).not.toBe(key('1 Main St, 62701'));
    expect(
      diff(
        '1 Main St PH, Springfield, IL 62701',
        pieces({ streetNumber: '1', streetName: 'Main St', unitNumber: 'Penthouse' }),
      ),
    ).toEqual([]);
    expect(
      diff(
        '1 Main St PH 2, Springfield, IL 62701',
        pieces({ streetNumber: '1', streetName: 'Main St', unitNumber: 'Apt 2' }),
      ),
    ).toEqual(['unit']);
  });
});

describe('compareAddress', () => {
  it('matches the same home written differently (Street/St, North/N, Avenue/Ave)', () => {
    expect(
      diff('123 North Main Street, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'N Main St' })),
    ).toEqual([]);
    expect(
      diff(
        '661 Lakeview Avenue, San Francisco, CA 94112',
        pieces({
          streetNumber: '661',
          streetName: 'Lakeview Ave',
          city: 'San Francisco',
          state: 'CA',
          zipCode: '94112',
        }),
      ),
    ).toEqual([]);
  });

  it('tells N from S: a different directional is a different home', () => {
    expect(
      diff('123 N Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'S Main St' })),
    ).toEqual(['directional']);
  });

  it('treats a directional the user left out as no mismatch, and one the candidate lacks as a mismatch', () => {
    expect(
      diff('123 Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'N Main St' })),
    ).toEqual([]);
    expect(
      diff('123 N Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' })),
    ).toEqual(['directional']);
  });

  it('flags another house number and another street', () => {
    expect(diff('125 Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual([
      'number',
    ]);
    expect(diff('123 Elm St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual([
      'street',
    ]);
    expect(diff('123 Main Ave, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual(
      ['street'],
    );
  });

  it('does not hold a unit-less single home against a unit-less address', () => {
    expect(
      diff(
        '661 Lakeview Ave, San Francisco, CA 94112',
        pieces({
          streetNumber: '661',
          streetName: 'Lakeview Ave',
          city: 'San Francisco',
          state: 'CA',
          zipCode: '94112',
          unitNumber: null,
        }),
      ),
    ).toEqual([]);
  });

  it('flags a unit mismatch in both directions', () => {
    const condo = pieces({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      unitNumber: '104',
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });
    expect(diff('2435 Aspen Rd Unit 105, Ames, IA 50010', condo)).toEqual(['unit']);
    expect(diff('2435 Aspen Rd, Ames, IA 50010', condo)).toEqual(['unit']);
    expect(diff('2435 Aspen Rd Apt 104, Ames, IA 50010', pieces({ ...condo, unitNumber: null }))).toEqual(['unit']);
  });

  it('treats unit designators and leading zeros as the same unit', () => {
    const condo = pieces({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      unitNumber: 'UNIT 0104',
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });
    expect(diff('2435 Aspen Road #104, Ames, IA 50010', condo)).toEqual([]);
    expect(diff('2435 Aspen Road Apt 104, Ames, IA 50010', condo)).toEqual([]);
  });

  it('flags a ZIP mismatch, and ignores ZIP+4', () => {
    const home = pieces({ streetNumber: '123', streetName: 'Main St', zipCode: '62701-1234' });
    expect(diff('123 Main St, Springfield, IL 62702', home)).toEqual(['zip']);
    expect(diff('123 Main St, Springfield, IL 62701-9999', home)).toEqual([]);
    expect(diff('123 Main St 62701', home)).toEqual([]);
  });

  it('flags city and state mismatches, and compares only what the user gave', () => {
    const home = pieces({ streetNumber: '123', streetName: 'Main St' });
    expect(diff('123 Main St, Shelbyville, IL 62701', home)).toEqual(['city']);
    expect(diff('123 Main St, Springfield, MO 62701', home)).toEqual(['state']);
    expect(diff('123 Main St, Springfield, Illinois', home)).toEqual([]);
    expect(
      diff('123 Main St 62701', pieces({ streetNumber: '123', streetName: 'Main St', city: 'Anywhere', state: 'ZZ' })),
    ).toEqual([]);
  });

  it('lists every part that differs', () => {
    const condo = pieces({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      unitNumber: '104',
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });
    expect(diff('2435 Aspen Rd Unit 9, Ames, IA 50014', condo)).toEqual(['unit', 'zip']);
  });

  it('treats Saint and St in a city as the same', () => {
    expect(
      diff(
        '1 Market St, Saint Louis, MO 63101',
        pieces({ streetNumber: '1', streetName: 'Market St', city: 'St. Louis', state: 'MO', zipCode: '63101' }),
      ),
    ).toEqual([]);
  });
});

describe('bestCandidate', () => {
  const input = parts('2435 Aspen Rd, Ames, IA 50010');
  const unit = (u: string) =>
    pieces({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      unitNumber: u,
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });

  it('returns null without candidates', () => {
    expect(bestCandidate(input, [], partsFromPieces)).toBeNull();
  });

  it('an address without unit, where the site only has units, is ambiguous on the unit', () => {
    const best = bestCandidate(input, [unit('101'), unit('102')], partsFromPieces);
    expect(best?.candidate.unitNumber).toBe('101');
    expect(best?.mismatch).toEqual(['unit']);
  });

  it('prefers an exact match anywhere in the list', () => {
    const single = pieces({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });
    const best = bestCandidate(input, [unit('101'), single], partsFromPieces);
    expect(best).toEqual({ candidate: single, mismatch: [] });
  });

  it('several homes match all the user gave: ambiguous, naming what to add (the directional)', () => {
    const north = pieces({ streetNumber: '123', streetName: 'N Main St' });
    const south = pieces({ streetNumber: '123', streetName: 'S Main St' });
    const asked = parts('123 Main St, Springfield, IL 62701');
    expect(bestCandidate(asked, [north, south], partsFromPieces)).toEqual({
      candidate: north,
      mismatch: ['directional'],
      ambiguous: true,
    });
    expect(bestCandidate(parts('123 S Main St, Springfield, IL 62701'), [north, south], partsFromPieces)).toEqual({
      candidate: south,
      mismatch: [],
    });
  });

  it('names what tells the matching homes apart (the ZIP); homes that differ in what the user gave are out', () => {
    const a = pieces({ streetNumber: '9', streetName: 'Elm St', city: 'Springfield', zipCode: '62701' });
    const b = pieces({ streetNumber: '9', streetName: 'Elm St', city: 'Chatham', zipCode: '62629' });
    expect(bestCandidate(parts('9 Elm St, IL 62701'), [a, b], partsFromPieces)?.mismatch).toEqual([]);
    expect(bestCandidate(parts('9 Elm St, Springfield, IL'), [a, b], partsFromPieces)?.mismatch).toEqual([]);
    const c = pieces({ streetNumber: '9', streetName: 'Elm St', city: 'Springfield', zipCode: '62702' });
    expect(bestCandidate(parts('9 Elm St, Springfield, IL'), [a, c], partsFromPieces)).toMatchObject({
      candidate: a,
      mismatch: ['zip'],
      ambiguous: true,
    });
  });

  it('one home, or the same home twice, is not ambiguous (a unit-less address of a single home)', () => {
    const single = pieces({
      streetNumber: '661',
      streetName: 'Lakeview Ave',
      city: 'San Francisco',
      state: 'CA',
      zipCode: '94112',
    });
    const asked = parts('661 Lakeview Ave, San Francisco, CA');
    expect(bestCandidate(asked, [single], partsFromPieces)).toEqual({ candidate: single, mismatch: [] });
    expect(bestCandidate(asked, [single, { ...single }], partsFromPieces)).toEqual({ candidate: single, mismatch: [] });
  });

  it('keeps the site order among equally good candidates, else takes the one with fewer differences', () => {
    const far = pieces({ streetNumber: '9', streetName: 'Elm St', city: 'Ames', state: 'IA', zipCode: '50014' });
    const near = pieces({ streetNumber: '2437', streetName: 'Aspen Rd', city: 'Ames', state: 'IA', zipCode: '50010' });
    expect(bestCandidate(input, [far, near], partsFromPieces)?.candidate).toBe(near);
  });
});

// normalizeUnit and the one designator list: test/address/units.test.ts.
describe('helpers', () => {
  it('partsFromStreetLine reads a provider street line with its unit', () => {
    expect(partsFromStreetLine('2435 Aspen Rd UNIT 104', 'Ames', 'IA', '50010')).toMatchObject({
      number: '2435',
      street: 'ASPEN',
      type: 'RD',
      unit: '104',
      zip: '50010',
    });
    expect(partsFromStreetLine('710 E Dean Keeton St #111', 'Austin', 'TX', '78705')).toMatchObject({
      prefix: 'E',
      street: 'DEAN KEETON',
      unit: '111',
    });
  });
});

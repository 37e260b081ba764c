import { describe, expect, it } from 'vitest';
import { checkAddress, type AddressParts } from '../../src/contract/index.js';
import {
  bestCandidate,
  compareAddress,
  normalizeUnit,
  partsFromPieces,
  partsFromStreetLine,
  type AddressPieces,
} from '../../src/collector/address-match.js';

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

describe('compareAddress', () => {
  it('matches the same home written differently (Street/St, North/N, Avenue/Ave)', () => {
    expect(diff('123 North Main Street, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'N Main St' }))).toEqual([]);
    expect(diff('661 Lakeview Avenue, San Francisco, CA 94112', pieces({ streetNumber: '661', streetName: 'Lakeview Ave', city: 'San Francisco', state: 'CA', zipCode: '94112' }))).toEqual([]);
  });

  it('tells N from S: a different directional is a different home', () => {
    expect(diff('123 N Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'S Main St' }))).toEqual(['directional']);
  });

  it('treats a directional the user left out as no mismatch, and one the candidate lacks as a mismatch', () => {
    expect(diff('123 Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'N Main St' }))).toEqual([]);
    expect(diff('123 N Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual(['directional']);
  });

  it('flags another house number and another street', () => {
    expect(diff('125 Main St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual(['number']);
    expect(diff('123 Elm St, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual(['street']);
    expect(diff('123 Main Ave, Springfield, IL 62701', pieces({ streetNumber: '123', streetName: 'Main St' }))).toEqual(['street']);
  });

  it('does not hold a unit-less single home against a unit-less address', () => {
    expect(diff('661 Lakeview Ave, San Francisco, CA 94112', pieces({ streetNumber: '661', streetName: 'Lakeview Ave', city: 'San Francisco', state: 'CA', zipCode: '94112', unitNumber: null }))).toEqual([]);
  });

  it('flags a unit mismatch in both directions', () => {
    const condo = pieces({ streetNumber: '2435', streetName: 'Aspen Rd', unitNumber: '104', city: 'Ames', state: 'IA', zipCode: '50010' });
    expect(diff('2435 Aspen Rd Unit 105, Ames, IA 50010', condo)).toEqual(['unit']);
    expect(diff('2435 Aspen Rd, Ames, IA 50010', condo)).toEqual(['unit']);
    expect(diff('2435 Aspen Rd Apt 104, Ames, IA 50010', pieces({ ...condo, unitNumber: null }))).toEqual(['unit']);
  });

  it('treats unit designators and leading zeros as the same unit', () => {
    const condo = pieces({ streetNumber: '2435', streetName: 'Aspen Rd', unitNumber: 'UNIT 0104', city: 'Ames', state: 'IA', zipCode: '50010' });
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
    expect(diff('123 Main St 62701', pieces({ streetNumber: '123', streetName: 'Main St', city: 'Anywhere', state: 'ZZ' }))).toEqual([]);
  });

  it('lists every part that differs', () => {
    const condo = pieces({ streetNumber: '2435', streetName: 'Aspen Rd', unitNumber: '104', city: 'Ames', state: 'IA', zipCode: '50010' });
    expect(diff('2435 Aspen Rd Unit 9, Ames, IA 50014', condo)).toEqual(['unit', 'zip']);
  });

  it('treats Saint and St in a city as the same', () => {
    expect(diff('1 Market St, Saint Louis, MO 63101', pieces({ streetNumber: '1', streetName: 'Market St', city: 'St. Louis', state: 'MO', zipCode: '63101' }))).toEqual([]);
  });
});

describe('bestCandidate', () => {
  const input = parts('2435 Aspen Rd, Ames, IA 50010');
  const unit = (u: string) => pieces({ streetNumber: '2435', streetName: 'Aspen Rd', unitNumber: u, city: 'Ames', state: 'IA', zipCode: '50010' });

  it('returns null without candidates', () => {
    expect(bestCandidate(input, [], partsFromPieces)).toBeNull();
  });

  it('an address without unit, where the site only has units, is ambiguous on the unit', () => {
    const best = bestCandidate(input, [unit('101'), unit('102')], partsFromPieces);
    expect(best?.candidate.unitNumber).toBe('101');
    expect(best?.mismatch).toEqual(['unit']);
  });

  it('prefers an exact match anywhere in the list', () => {
    const single = pieces({ streetNumber: '2435', streetName: 'Aspen Rd', city: 'Ames', state: 'IA', zipCode: '50010' });
    const best = bestCandidate(input, [unit('101'), single], partsFromPieces);
    expect(best).toEqual({ candidate: single, mismatch: [] });
  });

  it('keeps the site order among equally good candidates, else takes the one with fewer differences', () => {
    const far = pieces({ streetNumber: '9', streetName: 'Elm St', city: 'Ames', state: 'IA', zipCode: '50014' });
    const near = pieces({ streetNumber: '2437', streetName: 'Aspen Rd', city: 'Ames', state: 'IA', zipCode: '50010' });
    expect(bestCandidate(input, [far, near], partsFromPieces)?.candidate).toBe(near);
  });
});

describe('helpers', () => {
  it('normalizeUnit strips designators, punctuation and leading zeros', () => {
    expect(normalizeUnit('Apt #04-B')).toBe('4B');
    expect(normalizeUnit('UNIT 111')).toBe('111');
    expect(normalizeUnit('  ')).toBeNull();
    expect(normalizeUnit(null)).toBeNull();
  });

  it('partsFromStreetLine reads a provider street line with its unit', () => {
    expect(partsFromStreetLine('2435 Aspen Rd UNIT 104', 'Ames', 'IA', '50010')).toMatchObject({ number: '2435', street: 'ASPEN', type: 'RD', unit: '104', zip: '50010' });
    expect(partsFromStreetLine('710 E Dean Keeton St #111', 'Austin', 'TX', '78705')).toMatchObject({ prefix: 'E', street: 'DEAN KEETON', unit: '111' });
  });
});

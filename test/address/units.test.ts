// Units: one designator list and one unit pattern for the asked address, the site's pieces and the page's street line.
import { describe, expect, it } from 'vitest';
import { UNIT_DESIGNATORS, normalizeUnit, partsFromStreetLine, splitUnit, unitLabel } from '../../src/address/index.js';

describe('splitUnit: the unit at the end of a street line, as written', () => {
  it.each([
    ['6851 Roswell Rd APT O31', '6851 Roswell Rd', 'O31'],
    ['2435 Aspen Rd UNIT 104', '2435 Aspen Rd', '104'],
    ['710 E Dean Keeton St # 111', '710 E Dean Keeton St', '111'],
    ['100 Main St #503', '100 Main St', '503'],
    ['5 Elm St Ste. 2B', '5 Elm St', '2B'],
    ['5 Elm St APT B', '5 Elm St', 'B'],
    ['197 W Houston St #TOWNHOUSE 1', '197 W Houston St', 'TOWNHOUSE 1'],
    ['197 W Houston St # Townhouse  1', '197 W Houston St', 'Townhouse 1'],
    ['1 Main St #PH 2', '1 Main St', 'PH 2'],
    ['661 Lakeview Ave', '661 Lakeview Ave', null],
    ['12 Apartment Row', '12 Apartment Row', null],
    // A name without a number after `#` is not read as a unit (no digit, more than two letters).
    ['1 Main St #REARHOUSE', '1 Main St #REARHOUSE', null],
    // A designator that is the street's name: right after the house number (and a directional, if any).
    ['5 Lot Ln', '5 Lot Ln', null],
    ['5 N Lot Ln', '5 N Lot Ln', null],
    ['12 N Pier 39', '12 N Pier 39', null],
    ['5 Suite Rd', '5 Suite Rd', null],
    ['12 Pier 39', '12 Pier 39', null],
    ['5 Main St Lot 7', '5 Main St', '7'],
    ['5 Lot Ln Apt 2', '5 Lot Ln', '2'],
    ['5 Lot Ln #B', '5 Lot Ln', 'B'],
    // A unit named like a short street type is still a unit after the street.
    ['12 Main St Unit CT', '12 Main St', 'CT'],
    ['12 Main St Apt LA', '12 Main St', 'LA'],
    ['12 Main St Ste PL', '12 Main St', 'PL'],
  ])('splitUnit(%j)', (line, street, unit) => {
    expect(splitUnit(line)).toEqual({ street, unit });
  });

  it('unitLabel drops the designator of a unit field', () => {
    expect(unitLabel('Unit 11303')).toBe('11303');
    expect(unitLabel('#5')).toBe('5');
    expect(unitLabel('Unit CT')).toBe('CT');
    expect(unitLabel('#TOWNHOUSE 1')).toBe('TOWNHOUSE 1');
    expect(unitLabel('04108')).toBe('04108');
    expect(unitLabel(12)).toBe('12');
    expect(unitLabel('  ')).toBeNull();
    expect(unitLabel(null)).toBeNull();
  });
});

describe('normalizeUnit: the unit as compared and keyed', () => {
  it('drops designators, punctuation and leading zeros', () => {
    expect(normalizeUnit('Apt #04-B')).toBe('4B');
    expect(normalizeUnit('Apt 0A')).toBe('A');
    expect(normalizeUnit('UNIT 111')).toBe('111');
    expect(normalizeUnit('  ')).toBeNull();
    expect(normalizeUnit(null)).toBeNull();
  });

  it('keeps a building apart, a penthouse apart from the apartment, and a unit without a number by name', () => {
    expect(normalizeUnit('Bldg 3 Apt 4')).toBe('BLDG 3 4');
    expect(normalizeUnit('PH 2')).toBe('PH2');
    expect(normalizeUnit('Penthouse')).toBe('PH');
    expect(normalizeUnit('rear')).toBe('REAR');
  });

  it('keeps a named unit by its name: TOWNHOUSE 1 is not unit 1', () => {
    expect(normalizeUnit('TOWNHOUSE 1')).toBe('TOWNHOUSE 1');
    expect(normalizeUnit('#Townhouse 01')).toBe('TOWNHOUSE 1');
    expect(normalizeUnit('TOWNHOUSE 1')).not.toBe(normalizeUnit('1'));
    expect(normalizeUnit('TOWNHOUSE 1')).not.toBe(normalizeUnit('TOWNHOUSE 2'));
  });

  it('one list of unit designators: the address parser and the mapping read the same ones', () => {
    for (const d of UNIT_DESIGNATORS) {
      const expected = ['BLDG', 'BUILDING'].includes(d) ? 'BLDG 7' : d === 'PH' ? 'PH7' : '7';
      expect(normalizeUnit(`${d} 7`), d).toBe(expected);
      expect(normalizeUnit(`${d.toLowerCase()}. #07`), d).toBe(expected);
      expect(splitUnit(`1 Main St ${d} 7`), d).toEqual({ street: '1 Main St', unit: '7' });
      expect(partsFromStreetLine(`1 Main St ${d} 7`).unit, d).toBe(expected);
    }
  });
});

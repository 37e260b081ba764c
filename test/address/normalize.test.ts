// The small normalizations every comparison and cache key shares.
import { describe, expect, it } from 'vitest';
import {
  dropLeadingZeros,
  dropUnitLeadingZeros,
  houseNumberKey,
  isZipCode,
  normalizeParts,
  placeName,
  zip5,
} from '../../src/address/index.js';

describe('normalizations', () => {
  it('dropLeadingZeros: a house number loses zeros before a digit only', () => {
    expect(dropLeadingZeros('0012')).toBe('12');
    expect(dropLeadingZeros('04B')).toBe('4B');
    expect(dropLeadingZeros('0')).toBe('0');
    expect(dropLeadingZeros('000')).toBe('0');
    expect(dropLeadingZeros('102')).toBe('102');
    expect(dropLeadingZeros('0A')).toBe('0A');
  });

  it('dropUnitLeadingZeros: a unit loses zeros before a letter too', () => {
    expect(dropUnitLeadingZeros('04B')).toBe('4B');
    expect(dropUnitLeadingZeros('0A')).toBe('A');
    expect(dropUnitLeadingZeros('0')).toBe('0');
    expect(dropUnitLeadingZeros('000')).toBe('0');
  });

  it('houseNumberKey: 0012-B is 12B; a fraction stays', () => {
    expect(houseNumberKey('0012-B')).toBe('12B');
    expect(houseNumberKey('12b')).toBe('12B');
    expect(houseNumberKey('123 1/2')).toBe('1231/2');
    expect(houseNumberKey('123 1/2')).not.toBe(houseNumberKey('123'));
    expect(houseNumberKey('10-12')).toBe('10-12');
    expect(houseNumberKey('0A')).toBe('0A');
    expect(houseNumberKey('0A')).not.toBe(houseNumberKey('A'));
  });

  it('placeName: punctuation and Saint/St do not tell names apart', () => {
    expect(placeName('St. Louis')).toBe(placeName('Saint Louis'));
    expect(placeName("Coeur d'Alene")).toBe('COEUR DALENE');
    expect(placeName('  ')).toBeNull();
  });

  it('zip5 and isZipCode', () => {
    expect(zip5('62701-1234')).toBe('62701');
    expect(zip5('6270')).toBeNull();
    expect(isZipCode('85390')).toBe(true);
    expect(isZipCode(' 85390-1234 ')).toBe(true);
    expect(isZipCode('853901')).toBe(false);
    expect(isZipCode('Paradise Valley')).toBe(false);
    expect(isZipCode(null)).toBe(false);
  });

  it('normalizeParts: lower case, fixed order, the unit after #', () => {
    expect(
      normalizeParts({
        number: '197',
        prefix: 'W',
        street: 'HOUSTON',
        type: 'ST',
        suffix: null,
        unit: 'TOWNHOUSE 1',
        city: 'NEW YORK',
        state: 'NY',
        zip: '10014',
      }),
    ).toBe('197 w houston st #townhouse 1, new york, ny 10014');
    expect(
      normalizeParts({
        number: '1',
        prefix: null,
        street: 'MAIN',
        type: null,
        suffix: null,
        unit: null,
        city: null,
        state: null,
        zip: '62701',
      }),
    ).toBe('1 main, 62701');
  });
});

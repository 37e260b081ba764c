// Parsing an asked address: units beyond digits (issue 10 §8), and the parse as the suggestion matcher sees it.
import { describe, expect, it } from 'vitest';
import { checkAddress, compareAddress, parseStreetLine, partsFromPieces } from '../../src/address/index.js';

const parsed = (line: string) => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(`test address did not parse: ${line} (${c.reason})`);
  return c;
};

describe('named units (`#TOWNHOUSE 1`)', () => {
  it('reads the unit TOWNHOUSE 1, not a street "HOUSTON ST #TOWNHOUSE 1"', () => {
    const c = parsed('197 W Houston St #TOWNHOUSE 1, New York, NY 10014');
    expect(c.parts).toEqual({
      number: '197',
      prefix: 'W',
      street: 'HOUSTON',
      type: 'ST',
      suffix: null,
      unit: 'TOWNHOUSE 1',
      city: 'NEW YORK',
      state: 'NY',
      zip: '10014',
    });
    expect(c.normalized).toBe('197 w houston st #townhouse 1, new york, ny 10014');
  });

  it('reads it the same written in other ways', () => {
    const key = parsed('197 W Houston St #TOWNHOUSE 1, New York, NY 10014').normalized;
    expect(parsed('197 West Houston Street # Townhouse 1, New York, NY 10014').normalized).toBe(key);
    expect(parsed('197 W Houston St, #Townhouse 1, New York, NY 10014').normalized).toBe(key);
    expect(parseStreetLine('197 W Houston St #TOWNHOUSE 1')).toMatchObject({
      street: 'HOUSTON',
      type: 'ST',
      unit: 'TOWNHOUSE 1',
    });
  });

  it('tells townhouse 1 from unit 1 and from townhouse 2, and matches the site pieces that name it', () => {
    const asked = parsed('197 W Houston St #TOWNHOUSE 1, New York, NY 10014').parts;
    const home = (unitNumber: string) =>
      partsFromPieces({
        streetNumber: '197',
        streetName: 'W Houston St',
        unitNumber,
        city: 'New York',
        state: 'NY',
        zipCode: '10014',
      });
    expect(compareAddress(asked, home('TOWNHOUSE 1'))).toEqual([]);
    expect(compareAddress(asked, home('#Townhouse 1'))).toEqual([]);
    expect(compareAddress(asked, home('1'))).toEqual(['unit']);
    expect(compareAddress(asked, home('TOWNHOUSE 2'))).toEqual(['unit']);
    expect(parsed('197 W Houston St #TOWNHOUSE 1, New York, NY 10014').normalized).not.toBe(
      parsed('197 W Houston St #1, New York, NY 10014').normalized,
    );
  });

  it('leaves digit units as they were', () => {
    expect(parsed('2435 Aspen Rd #104, IA 50010').parts.unit).toBe('104');
    expect(parsed('1 Main St PH 2, Springfield, IL 62701').parts.unit).toBe('PH2');
    expect(parsed('1 Main St #PH 2, Springfield, IL 62701').parts.unit).toBe('PH2');
    expect(parsed('12 Main St Bldg 3 Apt 4, Springfield, IL 62701').parts.unit).toBe('BLDG 3 4');
  });
});

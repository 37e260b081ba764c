// What the address parser returns for the cases parse-address had open bugs on (issue 24).
import { describe, expect, it } from 'vitest';
import { checkAddress } from '../../src/address/index.js';

const street = (line: string) => {
  const c = checkAddress(`${line}, Austin, TX 78701`);
  if (!c.ok) throw new Error(`did not parse: ${line} (${c.reason})`);
  const { number, prefix, street, type, suffix, unit } = c.parts;
  return [number, prefix, street, type, suffix, unit];
};

describe('address parser', () => {
  it('refuses PO boxes and rural route boxes (no house number)', () => {
    for (const line of ['PO Box 123', 'P.O. Box 123', 'RR 2 Box 45', 'Rural Route 3 Box 12']) {
      expect(checkAddress(`${line}, Austin, TX 78701`)).toEqual({
        ok: false,
        reason: 'address needs a house number and a street',
      });
    }
  });

  it('reads highways and routes as names without a type', () => {
    expect(street('12345 State Highway 7')).toEqual(['12345', null, 'STATE HIGHWAY 7', null, null, null]);
    expect(street('500 US Hwy 101 N')).toEqual(['500', null, 'US HWY 101', null, 'N', null]);
    expect(street('1200 County Road 45')).toEqual(['1200', null, 'COUNTY ROAD 45', null, null, null]);
    expect(street('8 Interstate 95')).toEqual(['8', null, 'INTERSTATE 95', null, null, null]);
  });

  it('keeps a type word that starts the name in the name', () => {
    expect(street('100 N Avenue B')).toEqual(['100', 'N', 'AVENUE B', null, null, null]);
    expect(street('12 Avenue of the Americas')).toEqual(['12', null, 'AVENUE OF THE AMERICAS', null, null, null]);
    expect(street('45 Street A')).toEqual(['45', null, 'STREET A', null, null, null]);
    expect(street('77 I St NW')).toEqual(['77', null, 'I', 'ST', 'NW', null]);
    expect(street('123 N St')).toEqual(['123', null, 'N', 'ST', null, null]);
  });

  it('reads unit designators', () => {
    for (const u of ['Apt 4', 'Apartment 4', 'Unit 4', '# 4', '#4', 'Ste 4', 'Suite 4', 'Fl 4', 'Rm 4']) {
      expect(street(`123 Main St ${u}`)).toEqual(['123', null, 'MAIN', 'ST', null, '4']);
    }
    expect(street('123 Main St Bldg 3 Apt 4')).toEqual(['123', null, 'MAIN', 'ST', null, 'BLDG 3 4']);
    expect(street('123 Main St Rear')).toEqual(['123', null, 'MAIN', 'ST', null, 'REAR']);
  });

  it('reads fractional, hyphenated (Queens) and grid house numbers', () => {
    expect(street('123 1/2 Main St')).toEqual(['123 1/2', null, 'MAIN', 'ST', null, null]);
    expect(street('12-34 56th Ave')).toEqual(['12-34', null, '56TH', 'AVE', null, null]);
    expect(street('N123W4567 Main St')).toEqual(['N123W4567', null, 'MAIN', 'ST', null, null]);
  });

  it('reads directionals before and after, ZIP+4 and spelled-out states', () => {
    const c = checkAddress('123 North Main Street Southwest Apt 4, Springfield, Illinois 62701-1234');
    expect(c.ok && c.parts).toEqual({
      number: '123',
      prefix: 'N',
      street: 'MAIN',
      type: 'ST',
      suffix: 'SW',
      unit: '4',
      city: 'SPRINGFIELD',
      state: 'IL',
      zip: '62701',
    });
    const d = checkAddress('1 Main St, Charleston, West Virginia 25301');
    expect(d.ok && d.parts.state).toBe('WV');
  });
});

describe('Florida', () => {
  it('FL before a ZIP is the state, not a floor; FL before a small number is a floor', () => {
    expect(checkAddress('1 Main St, Miami, FL 33101')).toMatchObject({
      ok: true,
      parts: { state: 'FL', zip: '33101', unit: null, city: 'MIAMI' },
    });
    expect(checkAddress('1 Main St Miami FL 33101-1234')).toMatchObject({
      ok: true,
      parts: { state: 'FL', zip: '33101' },
    });
    expect(checkAddress('12 Ocean Dr Fl 2, Miami Beach, FL 33139')).toMatchObject({
      ok: true,
      parts: { unit: '2', state: 'FL', zip: '33139' },
    });
    // Another designator before five digits is still a unit.
    expect(checkAddress('1 Main St Apt 10001, New York, NY')).toMatchObject({
      ok: true,
      parts: { unit: '10001', zip: null },
    });
  });
});

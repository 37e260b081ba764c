// meta.match's edges in the core: the record's one-line address when it has one, its street line
// otherwise, and no match for a record without a street line.
import { describe, expect, it } from 'vitest';
import { parseLocator, type PortalProperty } from '../../src/contract/index.js';
import { addressMatch } from '../../src/lookup/address-match.js';

const locator = (address: string) => {
  const l = parseLocator({ address });
  if (l.kind !== 'address') throw new Error('not an address locator');
  return l;
};

const record = (o: Partial<PortalProperty>): PortalProperty =>
  ({
    address: null,
    streetAddress: null,
    unit: null,
    city: 'Ames',
    state: 'IA',
    zipcode: '50010',
    ...o,
  }) as PortalProperty;

describe('addressMatch', () => {
  it("scores against the record's parts, the unit field included, and names its one-line address", () => {
    const m = addressMatch(
      locator('2435 Aspen Road #104, Ames, IA 50010'),
      record({
        address: '2435 Aspen Rd UNIT 104, Ames, IA 50010',
        streetAddress: '2435 Aspen Rd UNIT 104',
        unit: '104',
      }),
    );
    expect(m).toEqual({
      input: '2435 Aspen Road #104, Ames, IA 50010',
      normalized: '2435 aspen rd #104, ames, ia 50010',
      matched_address: '2435 Aspen Rd UNIT 104, Ames, IA 50010',
      confidence: 0.96,
      differences: [
        { field: 'street_type', kind: 'spelling', input: 'Road', matched: 'Rd' },
        { field: 'unit_designator', kind: 'spelling', input: '#', matched: 'UNIT' },
      ],
    });
  });

  it('names the street line when the record has no one-line address', () => {
    const m = addressMatch(locator('2435 Aspen Rd, Ames, IA 50010'), record({ streetAddress: '2435 Aspen Rd' }));
    expect(m).toMatchObject({ matched_address: '2435 Aspen Rd', confidence: 1, differences: [] });
  });

  it('gives no match for a record without a street line', () => {
    expect(
      addressMatch(locator('2435 Aspen Rd, Ames, IA 50010'), record({ address: 'Ames, IA 50010' })),
    ).toBeUndefined();
  });
});

// meta.match is kept by the address given and the snapshot answered: a repeat of the pair neither
// parses the record nor scores it again (an address hit is on the hot path), and another snapshot
// or another spelling is scored on its own.
import { describe, expect, it } from 'vitest';
import { parseLocator, type PortalProperty } from '../../src/contract/index.js';
import { addressMatch, addressMatchOf } from '../../src/lookup/address-match.js';

const locator = (address: string) => {
  const l = parseLocator({ address });
  if (l.kind !== 'address') throw new Error('not an address locator');
  return l;
};

const record = (streetAddress: string | null): PortalProperty =>
  ({ address: null, streetAddress, unit: null, city: 'Ames', state: 'IA', zipcode: '50010' }) as PortalProperty;

/** A record thunk that counts its calls (each call is a JSON.parse of the record in the core). */
function counted(r: PortalProperty) {
  const calls = { n: 0 };
  return { calls, recordOf: () => (calls.n++, r) };
}

describe('addressMatchOf', () => {
  it('scores a snapshot once per address given: a repeat reads nothing of the record', () => {
    const asked = locator('2435 Aspen Road, Ames, IA 50010');
    const { calls, recordOf } = counted(record('2435 Aspen Rd'));
    const first = addressMatchOf(asked, 'zpid:1\u00001000', recordOf);
    expect(first).toEqual(addressMatch(asked, record('2435 Aspen Rd')));
    expect(first?.confidence).toBe(0.98);
    expect(addressMatchOf(asked, 'zpid:1\u00001000', recordOf)).toEqual(first);
    expect(calls.n).toBe(1);
  });

  it('another snapshot of the home, or another spelling, is scored on its own', () => {
    const asked = locator('2435 Aspen Rd, Ames, IA 50010');
    const before = counted(record('2435 Aspen Rd'));
    expect(addressMatchOf(asked, 'zpid:2\u00001000', before.recordOf)?.confidence).toBe(1);
    // Read again later: the page now writes the street otherwise.
    const after = counted(record('2435 Aspen Road'));
    expect(addressMatchOf(asked, 'zpid:2\u00002000', after.recordOf)?.differences).toEqual([
      { field: 'street_type', kind: 'spelling', input: 'Rd', matched: 'Road' },
    ]);
    const other = locator('2435 Aspen Rd, Ames, IA');
    expect(addressMatchOf(other, 'zpid:2\u00001000', before.recordOf)?.differences.map((d) => d.field)).toEqual([
      'zipcode',
    ]);
    expect([before.calls.n, after.calls.n]).toEqual([2, 1]);
  });

  it('a record without a street line has no match, remembered too', () => {
    const asked = locator('2435 Aspen Rd, Ames, IA 50010');
    const { calls, recordOf } = counted(record(null));
    expect(addressMatchOf(asked, 'zpid:3\u00001000', recordOf)).toBeUndefined();
    expect(addressMatchOf(asked, 'zpid:3\u00001000', recordOf)).toBeUndefined();
    expect(calls.n).toBe(1);
  });
});

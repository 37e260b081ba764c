// The address parser on 500 generated well-formed addresses (test/address/well-formed.ts, seed 2024):
// the parts the project read from them with parse-address, before its own grammar, pinned in
// fixtures/well-formed-parse-address.json, so nothing read then reads otherwise now; except three lines
// ending `FL <ZIP>`, which the service refused (FL read as a floor) and now reads as Florida.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AddressCheck, checkAddress, parseStreetLine, type StreetLineParts } from '../../src/address/index.js';

interface Pinned {
  line: string;
  check: AddressCheck;
  streetLine: string;
  street: StreetLineParts | null;
}
const PINNED: Pinned[] = JSON.parse(
  readFileSync(new URL('./fixtures/well-formed-parse-address.json', import.meta.url), 'utf8'),
);

describe('well-formed addresses', () => {
  it('read as parse-address read them (500 pinned lines and their street lines)', () => {
    expect(PINNED).toHaveLength(500);
    for (const p of PINNED) {
      expect(checkAddress(p.line), p.line).toEqual(p.check);
      expect(parseStreetLine(p.streetLine), p.streetLine).toEqual(p.street);
    }
  });
});

// meta.match of an address lookup (README "Address match confidence"): the address given scored
// against the address of the record answered. Computed on every answer, live or from the cache,
// rather than stored with the alias: one rule for both paths, and a spelling that normalizes like an
// earlier one (`Street` for `St`) hits the same alias yet reports its own differences.
import { partsWithUnit, scoreMatch } from '../address/index.js';
import type { AddressMatch, Locator, PortalProperty } from '../contract/index.js';

type AddressLocator = Extract<Locator, { kind: 'address' }>;

/** How the address asked for matches the record's address; undefined when the record names no street line. */
export function addressMatch(locator: AddressLocator, record: PortalProperty): AddressMatch | undefined {
  const { streetAddress, unit, city, state, zipcode } = record;
  if (!streetAddress) return undefined;
  const score = scoreMatch(
    { text: locator.input, parts: locator.parts },
    { text: streetAddress, parts: partsWithUnit(streetAddress, unit, city, state, zipcode), city, state },
  );
  return { input: locator.input, normalized: locator.normalized, matched_address: record.address ?? streetAddress, ...score };
}

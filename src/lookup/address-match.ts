// meta.match of an address lookup (docs/address-match.md): the address given scored
// against the address of the record answered. Computed on every answer, live or from the cache,
// rather than stored with the alias: one rule for both paths, and a spelling that normalizes like an
// earlier one (`Street` for `St`) hits the same alias yet reports its own differences.
import { LRUCache } from 'lru-cache';
import { partsWithUnit, scoreMatch, type AddressParts } from '../address/index.js';
import type { AddressMatch, Locator, PortalProperty } from '../contract/index.js';

type AddressLocator = Extract<Locator, { kind: 'address' }>;

// Parsing a record's street line is most of a match's cost, and cached homes are answered again and
// again: their parts are kept, by the address fields they come from.
const recordParts = new LRUCache<string, AddressParts>({ max: 1024 });

function partsOfRecord(streetAddress: string, { unit, city, state, zipcode }: PortalProperty): AddressParts {
  const key = JSON.stringify([streetAddress, unit, city, state, zipcode]);
  let parts = recordParts.get(key);
  if (!parts) {
    parts = partsWithUnit(streetAddress, unit, city, state, zipcode);
    recordParts.set(key, parts);
  }
  return parts;
}

/** How the address asked for matches the record's address; undefined when the record names no street line. */
export function addressMatch(locator: AddressLocator, record: PortalProperty): AddressMatch | undefined {
  const { streetAddress, city, state } = record;
  if (!streetAddress) return undefined;
  const score = scoreMatch(
    { text: locator.input, parts: locator.parts },
    { text: streetAddress, parts: partsOfRecord(streetAddress, record), city, state },
  );
  return {
    input: locator.input,
    normalized: locator.normalized,
    matched_address: record.address ?? streetAddress,
    ...score,
  };
}

// Scoring is most of a match's cost even with the record's parts kept (tens of µs, beside a cache hit's
// couple of hundred), and the same address is answered from the same snapshot again and again: each
// match is kept by the address given and the snapshot answered (one snapshot holds one address).
const matches = new LRUCache<string, AddressMatch | 'none'>({ max: 4096 });

/**
 * addressMatch of the snapshot `snapshot` (its entry key and when it was read), remembered: a repeat
 * neither parses the record (`recordOf`, called only for a new pair) nor scores it again.
 */
export function addressMatchOf(
  locator: AddressLocator,
  snapshot: string,
  recordOf: () => PortalProperty,
): AddressMatch | undefined {
  const key = `${snapshot}\u0000${locator.input}`;
  let match = matches.get(key);
  if (match === undefined) {
    match = addressMatch(locator, recordOf()) ?? 'none';
    matches.set(key, match);
  }
  return match === 'none' ? undefined : match;
}

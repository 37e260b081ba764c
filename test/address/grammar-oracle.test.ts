// The address grammar against the parser it replaces (parse-address) on well-formed addresses: the
// same parts for the fields the project reads. ADDRESS_ORACLE_RUNS sets the cases (default 3000).
import fc from 'fast-check';
import parseAddress, { type ParsedLocation } from 'parse-address';
import { describe, expect, it } from 'vitest';
import { type Location, readLocation } from '../../src/address/grammar.js';
import { upperWords as up } from '../../src/address/normalize.js';
import { normalizeUnit } from '../../src/address/units.js';
import { wellFormedAddress } from './well-formed.js';

const RUNS = Number(process.env.ADDRESS_ORACLE_RUNS ?? 3000);

const fromOracle = (p: ParsedLocation | null) =>
  p && {
    number: up(p.number),
    prefix: up(p.prefix),
    street: up(p.street),
    type: up(p.type),
    suffix: up(p.suffix),
    unit: normalizeUnit(p.sec_unit_num ? `${p.sec_unit_type ?? ''} ${p.sec_unit_num}` : p.sec_unit_type),
    city: up(p.city),
    state: up(p.state),
    zip: p.zip ?? null,
  };
const fromGrammar = (p: Location | null) =>
  p && {
    number: p.number,
    prefix: p.prefix,
    street: up(p.street),
    type: p.type,
    suffix: p.suffix,
    unit: normalizeUnit(p.unitNum ? `${p.unitType ?? ''} ${p.unitNum}` : p.unitType),
    city: up(p.city),
    state: p.state,
    zip: p.zip,
  };

// How the project fed the old parser a street line: alone, with a placeholder ZIP as its place.
const oracleStreetLine = (line: string) => {
  const p = parseAddress.parseLocation(`${line}, 00000`);
  if (!p || p.city || p.state || p.zip !== '00000') return null;
  return { ...fromOracle(p), zip: null };
};

describe('address grammar against parse-address (well-formed addresses)', () => {
  it(`reads a whole line as parse-address does (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(wellFormedAddress, ({ line }) => {
        expect(fromGrammar(readLocation(line, 'place'))).toEqual(fromOracle(parseAddress.parseLocation(line)));
      }),
      { numRuns: RUNS },
    );
  });

  it(`reads a street line as parse-address does (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(wellFormedAddress, ({ streetLine }) => {
        expect(fromGrammar(readLocation(streetLine, 'street'))).toEqual(oracleStreetLine(streetLine));
      }),
      { numRuns: RUNS },
    );
  });
});

// The replay catalog: every page the local stand-in for the site serves, with the address data the
// suggestion fake answers from (the hand-checked expected records, ranked by a plain token rule).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/collector/page/index.js';
import { loadCatalog, type CatalogAddress, type CatalogEntry } from '../../src/replay/catalog.js';
import { MIN_OVERLAP, SUGGEST_PATH, tokenOverlap } from '../../src/replay/server.js';
import { useReplayServer } from '../helpers/replay.js';

const catalog = loadCatalog();
const at = (path: string): CatalogEntry => {
  const entry = catalog.find((e) => e.path === path);
  if (!entry) throw new Error(`no catalog page at ${path}`);
  return entry;
};

describe('loadCatalog', () => {
  it('serves the real page as captured, at its site path', () => {
    const e = at('/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/');
    expect(e).toMatchObject({
      status: 200,
      zpid: '2146993218',
      label: 'real',
      source: 'hdp-2146993218-condo-for-sale-2024.html',
    });
    expect(e.html.length).toBeGreaterThan(1_000_000);
    expect(e.address).toEqual({
      streetNumber: '6851',
      streetName: 'Roswell Rd',
      unitNumber: 'O31',
      city: 'Sandy Springs',
      state: 'GA',
      zipCode: '30328',
    });
  });

  it('wraps the property objects and the rental excerpt, with their addresses', () => {
    expect(at('/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/')).toMatchObject({
      zpid: '15192198',
      label: 'excerpt-wrapped',
      address: {
        streetNumber: '661',
        streetName: 'Lakeview Ave',
        city: 'San Francisco',
        state: 'CA',
        zipCode: '94112',
      },
    });
    expect(at('/homedetails/2435-Aspen-Rd-UNIT-104-Ames-IA-50010/114303858_zpid/').address).toEqual({
      streetNumber: '2435',
      streetName: 'Aspen Rd',
      unitNumber: '104',
      city: 'Ames',
      state: 'IA',
      zipCode: '50010',
    });
    expect(at('/homedetails/710-E-Dean-Keeton-St-111-Austin-TX-78705/450233440_zpid/').address).toEqual({
      streetNumber: '710',
      streetName: 'E Dean Keeton St',
      unitNumber: '111',
      city: 'Austin',
      state: 'TX',
      zipCode: '78705',
    });
  });

  it('serves the building excerpts at their /apartments/ and /b/ paths', () => {
    expect(at('/apartments/austin-tx/lenox-grand/CmB93F/')).toMatchObject({
      zpid: '2056262612',
      label: 'excerpt-wrapped',
      address: { streetNumber: '13505', streetName: 'Burnet Rd', city: 'Austin', state: 'TX', zipCode: '78727' },
    });
    expect(at('/b/710-e-dean-keeton-st-austin-tx-CvBTSB/')).toMatchObject({
      zpid: '450233449',
      label: 'excerpt-wrapped',
    });
  });

  it('serves the bot walls with their status, and every synthetic page flagged as synthetic', () => {
    expect(at('/homedetails/999000401_zpid/')).toMatchObject({ status: 403, label: 'real', address: null });
    expect(at('/homedetails/999000402_zpid/')).toMatchObject({ status: 200, label: 'real', address: null });
    const synthetic = catalog.filter((e) => e.label === 'synthetic');
    expect(synthetic).toHaveLength(12);
    expect(synthetic.every((e) => e.html.includes('SYNTHETIC'))).toBe(true);
    expect(synthetic.filter((e) => e.note === 'malformed on purpose').map((e) => e.address)).toEqual(
      Array(6).fill(null),
    );
  });

  it('gives each page one path, and each readable home page reads back as its own zpid', () => {
    expect(new Set(catalog.map((e) => e.path)).size).toBe(catalog.length);
    for (const e of catalog.filter((x) => x.address && x.path.startsWith('/homedetails/'))) {
      const data = extractPage(e.html, { zpid: e.zpid, building: false });
      expect(data.kind === 'property' && data.zpid, e.path).toBe(e.zpid);
    }
  });

  it('reads the files once per directory', () => {
    expect(loadCatalog()).toBe(catalog);
  });
});

describe("the catalogue addresses are the hand-checked records' own", () => {
  it("every page with a record has that record's zpid, path and street line", () => {
    const withAddress = catalog.filter((e) => e.address);
    expect(withAddress.length).toBeGreaterThanOrEqual(12);
    for (const e of withAddress) {
      const name = e.source!.replace(/^synthetic\//, '').replace(/\.(?:html|json)$/, '');
      const record = JSON.parse(
        readFileSync(new URL(`../../fixtures/portal/expected/${name}.json`, import.meta.url), 'utf8'),
      ).expected;
      expect(e.zpid, name).toBe(record.zpid);
      expect(new URL(record.detailUrl).pathname, name).toBe(e.path);
      const a = e.address!;
      expect(`${a.streetNumber} ${a.streetName}`, name).toBe(
        record.streetAddress.replace(/\s*(?:#|APT|UNIT)\s*[^\s#]+$/i, ''),
      );
      expect([a.city, a.state, a.zipCode], name).toEqual([record.city, record.state, record.zipcode]);
    }
  });
});

describe('the suggestion fake', () => {
  const home: CatalogAddress = {
    streetNumber: '40 1/2',
    streetName: 'E Pine St',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  };

  it('counts the shared tokens of street number, street name (not its type) and ZIP, nothing else', () => {
    expect(tokenOverlap('40 1/2 East Pine Street, Springfield, IL 62701', home)).toBe(4);
    expect(tokenOverlap('40 1/2 E Pine St 62701', home)).toBe(5);
    expect(tokenOverlap('Springfield, IL', home)).toBe(0);
    expect(tokenOverlap('1 Nowhere St, Springfield, IL 62701', home)).toBeLessThan(MIN_OVERLAP);
    expect(tokenOverlap('41 Pine St, Springfield, IL 62701', home)).toBe(MIN_OVERLAP);
    expect(tokenOverlap('40 Pine St, Springfield, IL', home)).toBe(MIN_OVERLAP);
  });

  const replay = useReplayServer();
  const suggest = async (q: string) => {
    const url = new URL(SUGGEST_PATH, replay.current.origin);
    url.searchParams.set('q', q);
    const body = (await (await fetch(url)).json()) as {
      results: Array<{ metaData: { zpid: number; unitNumber?: string } }>;
    };
    return body.results.map((r) => r.metaData);
  };

  it('answers the home that shares the most tokens first, and nothing for a query that shares too few', async () => {
    expect((await suggest('6851 Roswell Rd Apt O31, Sandy Springs, GA 30328'))[0]).toMatchObject({
      zpid: 2146993218,
      unitNumber: 'O31',
    });
    expect((await suggest('661 Lakeview Avenue San Francisco 94112'))[0]?.zpid).toBe(15192198);
    expect(await suggest('1 Nowhere Rd, Nowhere, KS 67001')).toEqual([]);
  });

  it("proposes near homes too (another number on the same street): choosing is the service's job", async () => {
    expect((await suggest('663 Lakeview Ave, San Francisco, CA 94112')).map((m) => m.zpid)).toContain(15192198);
  });
});

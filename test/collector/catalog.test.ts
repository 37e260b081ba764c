// The replay catalog: every page the local stand-in for the site serves, with the address data the
// suggestion fake answers from.
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/collector/page/index.js';
import { loadCatalog, type CatalogEntry } from '../../src/replay/catalog.js';

const catalog = loadCatalog();
const at = (path: string): CatalogEntry => {
  const entry = catalog.find((e) => e.path === path);
  if (!entry) throw new Error(`no catalog page at ${path}`);
  return entry;
};

describe('loadCatalog', () => {
  it('serves the real page as captured, at its site path', () => {
    const e = at('/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/');
    expect(e).toMatchObject({ status: 200, zpid: '2146993218', label: 'real', source: 'hdp-2146993218-condo-for-sale-2024.html' });
    expect(e.html.length).toBeGreaterThan(1_000_000);
    expect(e.address).toEqual({ streetNumber: '6851', streetName: 'Roswell Rd', unitNumber: 'O31', city: 'Sandy Springs', state: 'GA', zipCode: '30328' });
  });

  it('wraps the property objects and the rental excerpt, with their addresses', () => {
    expect(at('/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/')).toMatchObject({
      zpid: '15192198',
      label: 'excerpt-wrapped',
      address: { streetNumber: '661', streetName: 'Lakeview Ave', city: 'San Francisco', state: 'CA', zipCode: '94112' },
    });
    expect(at('/homedetails/2435-Aspen-Rd-UNIT-104-Ames-IA-50010/114303858_zpid/').address).toEqual({
      streetNumber: '2435', streetName: 'Aspen Rd', unitNumber: '104', city: 'Ames', state: 'IA', zipCode: '50010',
    });
    expect(at('/homedetails/710-E-Dean-Keeton-St-111-Austin-TX-78705/450233440_zpid/').address).toEqual({
      streetNumber: '710', streetName: 'E Dean Keeton St', unitNumber: '111', city: 'Austin', state: 'TX', zipCode: '78705',
    });
  });

  it('serves the building excerpts at their /apartments/ and /b/ paths', () => {
    expect(at('/apartments/austin-tx/lenox-grand/CmB93F/')).toMatchObject({
      zpid: '2056262612',
      label: 'excerpt-wrapped',
      address: { streetNumber: '13505', streetName: 'Burnet Rd', city: 'Austin', state: 'TX', zipCode: '78727' },
    });
    expect(at('/b/710-e-dean-keeton-st-austin-tx-CvBTSB/')).toMatchObject({ zpid: '450233449', label: 'excerpt-wrapped' });
  });

  it('serves the bot walls with their status, and every synthetic page flagged as synthetic', () => {
    expect(at('/homedetails/999000401_zpid/')).toMatchObject({ status: 403, label: 'real', address: null });
    expect(at('/homedetails/999000402_zpid/')).toMatchObject({ status: 200, label: 'real', address: null });
    const synthetic = catalog.filter((e) => e.label === 'synthetic');
    expect(synthetic).toHaveLength(12);
    expect(synthetic.every((e) => e.html.includes('SYNTHETIC'))).toBe(true);
    expect(synthetic.filter((e) => e.note === 'malformed on purpose').map((e) => e.address)).toEqual(Array(6).fill(null));
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

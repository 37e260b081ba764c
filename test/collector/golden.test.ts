// Every fixture against its hand-checked expected record (fixtures/portal/expected/*.json).
// Property objects and excerpts are checked twice: as a provider item (the object alone) and
// wrapped into a page the way the site embeds it, read end to end by the page reader.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CONTRACT_SCHEMAS, PortalProperty, PROPERTY_FIELDS } from '../../src/contract/index.js';
import { mapBuilding, mapProperty } from '../../src/collector/mapping/index.js';
import { extractPage } from '../../src/collector/page/index.js';
import { wrapBuildingPage, wrapPropertyPage } from '../../src/replay/wrap.js';

const DIR = new URL('../../fixtures/portal/', import.meta.url);
const SCRAPED_AT = '2026-10-09T12:00:00.000Z';
const LOOKUP_DATE = new Date(SCRAPED_AT);

type Json = Record<string, unknown>;
const text = (name: string) => readFileSync(new URL(name, DIR), 'utf8');
const json = (name: string): Json => JSON.parse(text(name));
const expected = (name: string): Json => json(`expected/${name}.json`).expected as Json;

function readHomePage(html: string, zpid: string | null) {
  const data = extractPage(html, { zpid, building: false });
  if (data.kind !== 'property') throw new Error(`expected a home, got ${data.kind}`);
  return mapProperty(data.property, data.extras, { scrapedAt: SCRAPED_AT });
}

function readBuildingPage(html: string) {
  const data = extractPage(html, { zpid: null, building: true });
  if (data.kind !== 'building') throw new Error(`expected a building, got ${data.kind}`);
  return mapBuilding(data.building, { now: LOOKUP_DATE, scrapedAt: SCRAPED_AT });
}

// TypeBox checks formats only when they are registered; photos are `format: uri`.
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => URL.canParse(v));
const schemaErrors = (record: unknown) =>
  [...Value.Errors(PortalProperty, [...CONTRACT_SCHEMAS] as TSchema[], record)].map((e) => `${e.path}: ${e.message}`);

describe('golden records', () => {
  const rent = () => json('excerpt-rent-unit-450233440-2026-10.json');
  const homes: Array<{ name: string; way: string; record: () => unknown }> = [
    {
      name: 'hdp-2146993218-condo-for-sale-2024',
      way: 'real page',
      record: () => readHomePage(text('hdp-2146993218-condo-for-sale-2024.html'), '2146993218'),
    },
    {
      name: 'property-15192198-for-sale-2023',
      way: 'property object, as a provider item',
      record: () => mapProperty(json('property-15192198-for-sale-2023.json'), null, { scrapedAt: SCRAPED_AT }),
    },
    {
      name: 'property-15192198-for-sale-2023',
      way: 'wrapped page, cache at pageProps',
      record: () =>
        readHomePage(
          wrapPropertyPage(json('property-15192198-for-sale-2023.json'), { placement: 'pageProps' }),
          '15192198',
        ),
    },
    {
      name: 'property-114303858-sold-condo-2024',
      way: 'property object, as a provider item',
      record: () =>
        mapProperty(json('property-114303858-sold-condo-2024.json').property as Json, null, { scrapedAt: SCRAPED_AT }),
    },
    {
      name: 'property-114303858-sold-condo-2024',
      way: 'wrapped page',
      record: () =>
        readHomePage(wrapPropertyPage(json('property-114303858-sold-condo-2024.json').property as Json), '114303858'),
    },
    {
      name: 'excerpt-rent-unit-450233440-2026-10',
      way: 'excerpt property, as a provider item',
      record: () => mapProperty(rent().property as Json, null, { scrapedAt: SCRAPED_AT }),
    },
    {
      name: 'excerpt-rent-unit-450233440-2026-10',
      way: 'wrapped page with the captured cache key and sibling entry',
      record: () =>
        readHomePage(
          wrapPropertyPage(rent().property as Json, {
            cacheKey: rent().cacheKey as string,
            otherCacheEntries: rent().otherGdpClientCacheKeys as Json,
          }),
          '450233440',
        ),
    },
  ];
  for (const { name, way, record } of homes) {
    it(`${name} (${way})`, () => {
      expect(record()).toEqual(expected(name));
    });
  }

  for (const name of ['excerpt-building-apartments-lenox-grand-2026-10', 'excerpt-building-b-CvBTSB-2026-10']) {
    const x = () => json(`${name}.json`);
    it(`${name} (building node, looked up ${SCRAPED_AT.slice(0, 10)})`, () => {
      expect(json(`expected/${name}.json`).lookupDate).toBe(SCRAPED_AT);
      expect(mapBuilding(x().building as Json, { now: LOOKUP_DATE, scrapedAt: SCRAPED_AT })).toEqual(expected(name));
    });
    it(`${name} (wrapped page)`, () => {
      expect(readBuildingPage(wrapBuildingPage(x().building as Json, x().pageContext as Json))).toEqual(expected(name));
    });
  }

  const synthetic = readdirSync(new URL('synthetic/', DIR)).filter(
    (n) => n.startsWith('synthetic-') && n.endsWith('.html'),
  );
  for (const file of synthetic) {
    const name = file.replace(/\.html$/, '');
    it(`${name} (synthetic page)`, () => {
      expect(readHomePage(text(`synthetic/${file}`), null)).toEqual(expected(name));
    });
  }

  it('has an expected record for every readable fixture, and each is a complete, valid contract record', () => {
    const real = readdirSync(DIR)
      .filter((n) => /^(hdp|property|excerpt)-.*\.(html|json)$/.test(n))
      .map((n) => n.replace(/\.(html|json)$/, ''));
    const names = [...real, ...synthetic.map((n) => n.replace(/\.html$/, ''))].sort();
    const files = readdirSync(new URL('expected/', DIR))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.replace(/\.json$/, ''))
      .sort();
    expect(files).toEqual(names);
    for (const name of names) {
      const doc = json(`expected/${name}.json`);
      expect((doc.checked as Json).checkedBy, name).toMatch(/\S/);
      const record = doc.expected as Json;
      expect(Object.keys(record), name).toEqual(PROPERTY_FIELDS);
      expect(schemaErrors(record), name).toEqual([]);
    }
  });
});

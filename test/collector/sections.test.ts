// meta.sections, decided from the page's data (collector/mapping/sections.ts): on every real and
// synthetic page fixture, on the fallback actor's recorded items, and on data broken on purpose.
// The exact maps below were checked by hand against the fixtures' JSON (key there or not, null or [],
// the listing status); a second check ties "present" to the hand-checked expected records
// (fixtures/portal/expected, fixtures/fallback/expected), which the mapper did not write.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapItem } from '../../src/collector/fallback/index.js';
import { buildingSections, propertySections } from '../../src/collector/mapping/sections.js';
import { extractPage } from '../../src/collector/page/index.js';
import { readPage } from '../../src/collector/read-page.js';
import { SECTION_NAMES, type SectionName, type Sections } from '../../src/contract/sections.js';
import { wrapBuildingPage, wrapPropertyPage } from '../../src/replay/wrap.js';
import { forSaleItem } from '../fakes/fake-actor-platform.js';
import { recordedBatch, recordedWrongUnit, todaysShape } from '../helpers/fallback-items.js';

type Json = Record<string, unknown>;
const DIR = new URL('../../fixtures/portal/', import.meta.url);
const text = (name: string) => readFileSync(new URL(name, DIR), 'utf8');
const json = (name: string): Json => JSON.parse(text(name)) as Json;
const clone = <T>(v: T): T => structuredClone(v);

/** Every section present except the ones named. */
const present = (others: Partial<Sections> = {}): Sections =>
  ({ ...Object.fromEntries(SECTION_NAMES.map((n) => [n, 'present'])), ...others }) as Sections;

function pageSections(html: string, zpid: string | null, building = false): Sections {
  const data = extractPage(html, { zpid, building });
  if (data.kind === 'property') return propertySections(data.property, data.extras);
  if (data.kind === 'building') return buildingSections(data.building);
  throw new Error(`expected a home or a building, got ${data.kind}`);
}

const ON_BUILDING_PAGES_NOT_FOUND = {
  priceHistory: 'not_found',
  taxHistory: 'not_found',
  agent: 'not_found',
  broker: 'not_found',
  estimate: 'not_found',
  rentEstimate: 'not_found',
} as const;

const PAGES: Array<{ name: string; sections: Sections; read: () => Sections }> = [
  {
    // The 2024 condo page: "taxHistory": [] on the page.
    name: 'hdp-2146993218-condo-for-sale-2024',
    read: () => pageSections(text('hdp-2146993218-condo-for-sale-2024.html'), '2146993218'),
    sections: present({ taxHistory: 'not_published' }),
  },
  {
    name: 'property-15192198-for-sale-2023',
    read: () => pageSections(wrapPropertyPage(json('property-15192198-for-sale-2023.json')), '15192198'),
    sections: present(),
  },
  {
    // Sold: the agent and broker of the sale are shown (a sold home counts as listed).
    name: 'property-114303858-sold-condo-2024',
    read: () =>
      pageSections(wrapPropertyPage(json('property-114303858-sold-condo-2024.json').property as Json), '114303858'),
    sections: present(),
  },
  {
    // The 2026 rental unit: "zestimate": null, "taxHistory": [].
    name: 'excerpt-rent-unit-450233440-2026-10',
    read: () =>
      pageSections(wrapPropertyPage(json('excerpt-rent-unit-450233440-2026-10.json').property as Json), '450233440'),
    sections: present({ taxHistory: 'not_published', estimate: 'not_published' }),
  },
  {
    name: 'excerpt-building-apartments-lenox-grand-2026-10',
    read: () =>
      pageSections(
        wrapBuildingPage(json('excerpt-building-apartments-lenox-grand-2026-10.json').building as Json),
        null,
        true,
      ),
    sections: present(ON_BUILDING_PAGES_NOT_FOUND),
  },
  {
    // "description": null on the /b/ building.
    name: 'excerpt-building-b-CvBTSB-2026-10',
    read: () =>
      pageSections(wrapBuildingPage(json('excerpt-building-b-CvBTSB-2026-10.json').building as Json), null, true),
    sections: present({ ...ON_BUILDING_PAGES_NOT_FOUND, description: 'not_published' }),
  },
  {
    // The reduced 2025-26 generation has no priceHistory, taxHistory or schools key at all.
    name: 'synthetic-priority-2026',
    read: () => pageSections(text('synthetic/synthetic-priority-2026.html'), null),
    sections: present({ priceHistory: 'not_found', taxHistory: 'not_found', schools: 'not_found' }),
  },
  {
    name: 'synthetic-degraded-2026',
    read: () => pageSections(text('synthetic/synthetic-degraded-2026.html'), null),
    sections: Object.fromEntries(SECTION_NAMES.map((n) => [n, 'not_found'])) as Sections,
  },
  {
    // OTHER: the stale attribution block ("Pat Stale") is not shown; "description": null.
    name: 'synthetic-off-market-other',
    read: () => pageSections(text('synthetic/synthetic-off-market-other.html'), null),
    sections: present({ agent: 'not_published', broker: 'not_published', description: 'not_published' }),
  },
  {
    name: 'synthetic-lot-acres',
    read: () => pageSections(text('synthetic/synthetic-lot-acres.html'), null),
    sections: present({
      taxHistory: 'not_published',
      schools: 'not_published',
      estimate: 'not_published',
      rentEstimate: 'not_published',
    }),
  },
  {
    // The legacy page's property has no rentZestimate key.
    name: 'synthetic-legacy-apollo',
    read: () => pageSections(text('synthetic/synthetic-legacy-apollo.html'), null),
    sections: present({ rentEstimate: 'not_found' }),
  },
  {
    name: 'synthetic-pending-escaped',
    read: () => pageSections(text('synthetic/synthetic-pending-escaped.html'), null),
    sections: present({ taxHistory: 'not_published', schools: 'not_published' }),
  },
];

/** Whether a record holds what a section stands for (a list with rows, a value). */
function holds(record: Json, section: SectionName): boolean {
  const field = { agent: 'agentName', broker: 'brokerName' }[section as string] ?? section;
  const v = record[field];
  return Array.isArray(v) ? v.length > 0 : v !== null && v !== undefined;
}

describe('sections of the real and synthetic pages', () => {
  it.each(PAGES.map((p) => [p.name, p] as const))('%s', (_name, page) => {
    expect(page.read()).toEqual(page.sections);
  });

  it.each(PAGES.map((p) => [p.name, p] as const))(
    '%s: present exactly where the hand-checked record holds the section',
    (name, page) => {
      const expected = (json(`expected/${name}.json`).expected ?? {}) as Json;
      const sections = page.read();
      for (const n of SECTION_NAMES) expect({ [n]: sections[n] === 'present' }).toEqual({ [n]: holds(expected, n) });
    },
  );

  it('the page worker sends the sections with the record', () => {
    const page = new TextEncoder().encode(text('hdp-2146993218-condo-for-sale-2024.html'));
    const read = readPage({
      page,
      want: { zpid: '2146993218', building: false },
      scrapedAt: '2026-10-09T12:00:00.000Z',
      now: '2026-10-09T12:00:00.000Z',
    });
    expect(read.kind === 'blocked' ? null : read.sections).toEqual(present({ taxHistory: 'not_published' }));
  });
});

describe('a section the page holds in a shape we cannot read is extraction_failed', () => {
  const base = () => clone(json('property-15192198-for-sale-2023.json'));
  const sectionsOf = (p: Json) => propertySections(p, null);
  /** The agent's other places removed, so attributionInfo is the only one. */
  const onlyAttribution = (p: Json) => {
    delete p.listedBy;
    delete p.listingProvider;
    delete p.postingContact;
    delete p.brokerageName;
    return p;
  };

  const cases: Array<[string, (p: Json) => void, Partial<Sections>]> = [
    [
      'priceHistory is an object, not a list',
      (p) => {
        p.priceHistory = { events: p.priceHistory };
      },
      { priceHistory: 'extraction_failed' },
    ],
    [
      'a price event with a date that does not parse and no time',
      (p) => {
        Object.assign((p.priceHistory as Json[])[1]!, { date: 'last spring', time: null });
      },
      { priceHistory: 'extraction_failed' },
    ],
    [
      'a price event whose price is text that is no number',
      (p) => {
        (p.priceHistory as Json[])[0]!.price = 'call for price';
      },
      { priceHistory: 'extraction_failed' },
    ],
    [
      'a tax year as a bare number',
      (p) => {
        (p.taxHistory as unknown[])[0] = 2021;
      },
      { taxHistory: 'extraction_failed' },
    ],
    [
      'a tax year whose tax paid is an object',
      (p) => {
        (p.taxHistory as Json[])[2]!.taxPaid = { amount: 1 };
      },
      { taxHistory: 'extraction_failed' },
    ],
    [
      'a school without a name',
      (p) => {
        delete (p.schools as Json[])[0]!.name;
      },
      { schools: 'extraction_failed' },
    ],
    [
      'photos with only WebP links (the record keeps JPEGs)',
      (p) => {
        for (const key of ['responsivePhotos', 'photos']) {
          p[key] = (p[key] as Json[]).map((ph) => ({ mixedSources: { webp: (ph.mixedSources as Json).webp } }));
        }
      },
      { photos: 'extraction_failed' },
    ],
    [
      'the attribution block is a string and nothing else names the agent or broker',
      (p) => {
        onlyAttribution(p).attributionInfo = 'Wong Real Estate Grp';
      },
      { agent: 'extraction_failed', broker: 'extraction_failed' },
    ],
    [
      'listedBy is an object, not a list, and nothing else names the agent',
      (p) => {
        onlyAttribution(p);
        p.listedBy = { LISTING_AGENT: 'x' };
        (p.attributionInfo as Json).agentName = null;
      },
      { agent: 'extraction_failed' },
    ],
    [
      'the estimate is text that is no number',
      (p) => {
        p.zestimate = 'unavailable';
      },
      { estimate: 'extraction_failed' },
    ],
    [
      'the rent estimate is an object',
      (p) => {
        p.rentZestimate = { value: 3058 };
      },
      { rentEstimate: 'extraction_failed' },
    ],
    [
      'the description is a list',
      (p) => {
        p.description = ['Imagine', 'the', 'Possibilities'];
      },
      { description: 'extraction_failed' },
    ],
  ];

  it.each(cases)('%s', (_what, breakIt, states) => {
    const p = base();
    breakIt(p);
    expect(sectionsOf(p)).toEqual(present(states));
  });

  it('a broken place the mapper does not need is no failure: the agent comes from listedBy when attributionInfo is broken', () => {
    const p = base();
    p.attributionInfo = 'garbled';
    expect(sectionsOf(p)).toEqual(present());
  });

  it('what the page says is empty is not_published, what it lacks is not_found', () => {
    const p = base();
    p.priceHistory = null;
    p.schools = [];
    p.zestimate = 0;
    p.rentZestimate = -1;
    p.description = '  ';
    delete p.taxHistory;
    for (const k of ['responsivePhotos', 'photos']) delete p[k];
    expect(sectionsOf(p)).toEqual(
      present({
        priceHistory: 'not_published',
        schools: 'not_published',
        estimate: 'not_published',
        rentEstimate: 'not_published',
        description: 'not_published',
        taxHistory: 'not_found',
        photos: 'not_found',
      }),
    );
  });

  it('only a map or street-view image is no photo: not_published', () => {
    const p = base();
    p.photos = [{ url: 'https://maps.googleapis.com/maps/api/streetview?size=800x600&location=1', mixedSources: {} }];
    delete p.responsivePhotos;
    expect(sectionsOf(p).photos).toBe('not_published');
  });

  it('a building whose gallery holds a photo without any link is extraction_failed', () => {
    const b = clone(json('excerpt-building-apartments-lenox-grand-2026-10.json').building as Json);
    for (const k of ['galleryPhotos', 'signaturePhotos', 'photos']) b[k] = [{ caption: 'Pool' }];
    expect(buildingSections(b)).toEqual(present({ ...ON_BUILDING_PAGES_NOT_FOUND, photos: 'extraction_failed' }));
  });
});

describe("sections of the fallback actor's items", () => {
  const OPTS = { now: new Date('2026-08-10T00:00:00.000Z'), scrapedAt: '2026-08-10T12:00:00.000Z' };
  // By hand from the recorded items: 7528947 has "zestimate": null; 2075961815 "listingTaxHistory": [];
  // 2053953599 (OTHER, agent and broker null) has only a satellite map in listingPhotos and no tax years.
  const EXPECTED: Record<string, Sections> = {
    7528947: present({ estimate: 'not_published' }),
    7521381: present(),
    2075961815: present({ taxHistory: 'not_published' }),
    7529341: present(),
    7536781: present(),
    2053953599: present({
      photos: 'not_published',
      taxHistory: 'not_published',
      agent: 'not_published',
      broker: 'not_published',
      estimate: 'not_published',
    }),
  };
  const items = [...recordedBatch(), recordedWrongUnit()];

  it.each(items.map((i) => [String(i.zpid), i] as const))("zpid %s, in today's shape and as recorded", (zpid, item) => {
    expect(mapItem(todaysShape(item), OPTS).sections).toEqual(EXPECTED[zpid]);
    expect(mapItem(item, OPTS).sections).toEqual(EXPECTED[zpid]);
  });

  it.each(items.map((i) => [String(i.zpid), i] as const))(
    'zpid %s: present exactly where the hand-checked record holds the section',
    (zpid, item) => {
      const expected = JSON.parse(
        readFileSync(new URL(`../../fixtures/fallback/expected/${zpid}.json`, import.meta.url), 'utf8'),
      ) as Json;
      const { sections } = mapItem(todaysShape(item), OPTS);
      for (const n of SECTION_NAMES) expect({ [n]: sections[n] === 'present' }).toEqual({ [n]: holds(expected, n) });
    },
  );

  it('the old raw shape reads like the page it came from', () => {
    expect(mapItem(forSaleItem(), OPTS).sections).toEqual(
      pageSections(wrapPropertyPage(json('property-15192198-for-sale-2023.json')), '15192198'),
    );
  });

  it('broken mapped fields are extraction_failed: a price event list that is text, an agent that is a string', () => {
    const item = todaysShape(recordedBatch().find((i) => i.zpid === 7521381)!);
    item.listingPriceHistory = 'see listing';
    item.agent = 'Chrissie Cline';
    (item.nearbySchools as Json[])[1] = { rating: 5 };
    expect(mapItem(item, OPTS).sections).toEqual(
      present({ priceHistory: 'extraction_failed', agent: 'extraction_failed', schools: 'extraction_failed' }),
    );
  });
});

// Every page the local replay serves, built once from fixtures/portal: the real page as captured,
// property objects and excerpts wrapped into pages (wrap.ts, built by us), and the synthetic pages.
// A page's path, zpid and address come from its hand-checked record (fixtures/portal/expected), not
// from the service's page reader, mapper or address parser: the fake is an oracle independent of them.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapBuildingPage, wrapPropertyPage } from './wrap.js';

export const DEFAULT_FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/portal/', import.meta.url));

/** How the page came to be: served as captured, real data wrapped by us, or written by us. */
export type CatalogLabel = 'real' | 'excerpt-wrapped' | 'synthetic';

/** An address in the pieces the site's suggestion endpoint uses (research §7). */
export interface CatalogAddress {
  streetNumber: string;
  /** Street with its directional and type, e.g. `E Dean Keeton St`. */
  streetName: string;
  /** Without its designator: `O31` for "APT O31". */
  unitNumber?: string;
  city: string;
  state: string;
  zipCode: string;
}

export interface CatalogEntry {
  /** Site path, e.g. `/homedetails/<slug>/2146993218_zpid/` or `/apartments/austin-tx/lenox-grand/CmB93F/`. */
  path: string;
  status: number;
  html: string;
  zpid: string | null;
  address: CatalogAddress | null;
  label: CatalogLabel;
  /** The fixture file the page comes from. */
  source?: string;
  /** Why this page is here, when it is not an ordinary readable page (bot wall, malformed). */
  note?: string;
}

export type Catalog = CatalogEntry[];

const readJson = (dir: string, name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, name), 'utf8'));

/** The fields of a hand-checked record (`expected/<fixture>.json`) the catalogue uses. */
interface CheckedRecord {
  zpid: string | null;
  detailUrl: string | null;
  streetAddress: string | null;
  unit: string | null;
  city: string | null;
  state: string | null;
  zipcode: string | null;
}

/** The hand-checked record of a fixture file; null when it has none (a malformed page). */
function checkedRecord(dir: string, source: string): CheckedRecord | null {
  const file = join(dir, 'expected', `${basename(source).replace(/\.(?:html|json)$/, '')}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { expected: CheckedRecord }).expected : null;
}

// The designators the fixtures' street lines write before a unit (`APT O31`, `UNIT 104`, `#111`).
const DESIGNATOR_AT_END = /\s*(?:#|\b(?:APT|UNIT|STE|SUITE)\.?)\s*$/i;

/**
 * The record's address in the suggestion endpoint's pieces: the first word of the street line is the
 * number, the rest the street; the unit is the record's when the street line ends with it (a building's
 * line names none: its unit is the one `price` describes, not part of its address).
 */
function addressOf(r: CheckedRecord): CatalogAddress | null {
  if (!r.streetAddress || !r.city || !r.state || !r.zipcode) return null;
  let line = r.streetAddress.trim();
  // The unit as the line's last word (`… APT O31`, `… #111`), not the tail of a number (`… 1104` for unit 104).
  const unitInLine = r.unit !== null && line.endsWith(r.unit) && /[\s#]$/.test(line.slice(0, -r.unit.length));
  if (unitInLine) line = line.slice(0, -r.unit!.length).replace(DESIGNATOR_AT_END, '');
  const m = /^(\S+)\s+(.+)$/.exec(line);
  if (!m) return null;
  return {
    streetNumber: m[1]!,
    streetName: m[2]!,
    ...(unitInLine ? { unitNumber: r.unit! } : {}),
    city: r.city,
    state: r.state,
    zipCode: r.zipcode,
  };
}

const pathOf = (url: string | null): string | null => (url ? new URL(url, 'https://www.zillow.com').pathname : null);

function entry(
  dir: string,
  html: string,
  label: CatalogLabel,
  source: string,
  fallbackPath?: string,
  note?: string,
): CatalogEntry {
  const record = checkedRecord(dir, source);
  const canonical = /<link\b[^>]*rel="canonical"[^>]*href="([^"]+)"/i.exec(html)?.[1] ?? null;
  const path = pathOf(record?.detailUrl ?? null) ?? pathOf(canonical) ?? fallbackPath;
  if (!path) throw new Error(`replay catalog: no site path for ${source}`);
  const zpid = record?.zpid ?? /\/(\d+)_zpid\/$/.exec(path)?.[1] ?? null;
  return {
    path,
    status: 200,
    html,
    zpid,
    address: record ? addressOf(record) : null,
    label,
    source,
    ...(note ? { note } : {}),
  };
}

// The bot walls get made-up zpid paths so a lookup can reach them; their bodies are real.
const WALL_PAGES = [
  { file: 'blocked-press-and-hold-2025-04.html', path: '/homedetails/999000401_zpid/', status: 403 },
  { file: 'blocked-press-and-hold-2025-03-reserialized.html', path: '/homedetails/999000402_zpid/', status: 200 },
];

function build(dir: string): Catalog {
  const out: Catalog = [];

  out.push(
    entry(
      dir,
      readFileSync(join(dir, 'hdp-2146993218-condo-for-sale-2024.html'), 'utf8'),
      'real',
      'hdp-2146993218-condo-for-sale-2024.html',
    ),
  );

  // Property objects: the 2023 one as some 2023 builds placed the cache (pageProps); the sold one as usual.
  const forSale = readJson(dir, 'property-15192198-for-sale-2023.json');
  out.push(
    entry(
      dir,
      wrapPropertyPage(forSale, { placement: 'pageProps' }),
      'excerpt-wrapped',
      'property-15192198-for-sale-2023.json',
    ),
  );
  const sold = readJson(dir, 'property-114303858-sold-condo-2024.json').property as Record<string, unknown>;
  out.push(entry(dir, wrapPropertyPage(sold), 'excerpt-wrapped', 'property-114303858-sold-condo-2024.json'));

  const rent = readJson(dir, 'excerpt-rent-unit-450233440-2026-10.json');
  const rentPage = wrapPropertyPage(rent.property as Record<string, unknown>, {
    cacheKey: rent.cacheKey as string,
    otherCacheEntries: rent.otherGdpClientCacheKeys as Record<string, unknown>,
  });
  out.push(entry(dir, rentPage, 'excerpt-wrapped', 'excerpt-rent-unit-450233440-2026-10.json'));

  for (const name of [
    'excerpt-building-apartments-lenox-grand-2026-10.json',
    'excerpt-building-b-CvBTSB-2026-10.json',
  ]) {
    const excerpt = readJson(dir, name);
    const context = excerpt.pageContext as Record<string, unknown>;
    out.push(
      entry(
        dir,
        wrapBuildingPage(excerpt.building as Record<string, unknown>, context),
        'excerpt-wrapped',
        name,
        pathOf(context.canonical as string) ?? undefined,
      ),
    );
  }

  for (const wall of WALL_PAGES) {
    const html = readFileSync(join(dir, wall.file), 'utf8');
    out.push({
      path: wall.path,
      status: wall.status,
      html,
      zpid: /(\d+)_zpid/.exec(wall.path)![1]!,
      address: null,
      label: 'real',
      source: wall.file,
      note: 'bot wall; the path is ours',
    });
  }

  const syntheticDir = join(dir, 'synthetic');
  for (const name of readdirSync(syntheticDir)
    .filter((n) => n.endsWith('.html'))
    .sort()) {
    const html = readFileSync(join(syntheticDir, name), 'utf8');
    out.push(
      entry(
        dir,
        html,
        'synthetic',
        `synthetic/${name}`,
        undefined,
        name.startsWith('malformed-') ? 'malformed on purpose' : undefined,
      ),
    );
  }
  return out;
}

const loaded = new Map<string, Catalog>();

/** The replay's pages; read from disk once per directory. Treat the result as read-only. */
export function loadCatalog(fixturesDir: string = DEFAULT_FIXTURES_DIR): Catalog {
  let catalog = loaded.get(fixturesDir);
  if (!catalog) {
    catalog = build(fixturesDir);
    loaded.set(fixturesDir, catalog);
  }
  return catalog;
}

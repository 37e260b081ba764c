// Finds the listing data embedded in a page without building a DOM: the data script is located by
// scanning start tags, its text is JSON.parsed, and the home's cache (a JSON string) is parsed again.
// A page given as bytes is read without decoding it: only the data script's text is decoded, and the
// extras (which the mapper needs only for fields the data lacks) decode the page on first use.
// Generations handled (see docs/mapping.md): __NEXT_DATA__ with gdpClientCache under
// props.pageProps.componentProps or props.pageProps, keyed by any query signature; the legacy
// hdpApolloPreloadedData.apiCache; apartment buildings at componentProps.initialReduxState.gdp.building.
import { LookupError } from '../../contract/errors.js';
import { isObject, obj, text, type Json } from '../mapping/values.js';
import { isBotWall } from './bot-wall.js';
import { DATA_SCRIPT_IDS, firstDataScript } from './bytes.js';
import { lazyExtras, type PageExtras } from './extras.js';
import { decodeEntities, findScripts, type ScriptBlock } from './html-text.js';

export type { PageExtras } from './extras.js';

export type PageData =
  | { kind: 'property'; property: Json; generation: string; zpid: string | null; extras: PageExtras }
  | { kind: 'building'; building: Json; extras: PageExtras }
  | { kind: 'blocked' };

export interface PageWant {
  /** The zpid asked for; picks the right entry when the cache holds several homes. */
  zpid: string | null;
  /** True for apartment-building links: the building node is preferred over a home cache. */
  building: boolean;
}

const bad = (reason: string, extra: Record<string, unknown> = {}): never => {
  throw new LookupError('upstream_bad_response', { details: { reason, ...extra } });
};

/** JSON.parse, retried on entity-escaped text and on raw line breaks a re-serializer put inside strings. */
function parseJson(raw: string, reason: string): unknown {
  // Built lazily: the first attempt succeeds on almost every page, and each copy costs a pass over 0.5 MB.
  const attempts = [() => raw, () => decodeEntities(raw), () => decodeEntities(raw).replace(/[\r\n\t]+/g, ' ')];
  let lastError: unknown;
  for (const candidate of attempts) {
    try {
      return JSON.parse(candidate());
    } catch (e) {
      lastError = e;
    }
  }
  // The parser's own message stays out of the answer (a client cannot act on it); it is the cause.
  throw new LookupError('upstream_bad_response', { details: { reason }, cause: lastError });
}

interface CacheEntry {
  key: string;
  property: Json;
}

/** The parsed cache (a JSON string on the page, an object in some captures), or null when absent. */
function parseCache(value: unknown, source: string): Json | null {
  if (value === undefined || value === null) return null;
  const cache = typeof value === 'string' ? parseJson(value, `${source}_invalid_json`) : value;
  if (!isObject(cache)) return bad(`${source}_not_an_object`);
  return cache;
}

/**
 * The home the page is about. Key names change per page type and year, so entries are chosen by
 * content: the one whose property.zpid is the zpid asked for, else the first with a property.
 * Entries for that same home (a cache can hold a partial and a full render) are merged, fullest last.
 */
function pickProperty(cache: Json, source: string, wantZpid: string | null): { property: Json; generation: string } {
  if (Object.keys(cache).length === 0) return bad(`${source}_empty`);
  const entries: CacheEntry[] = [];
  for (const [key, value] of Object.entries(cache)) {
    if (isObject(value) && isObject(value.property)) entries.push({ key, property: value.property });
  }
  if (entries.length === 0) return bad(`${source}_without_property`);
  const zpidOf = (e: CacheEntry) => text(e.property.zpid);
  const target = (wantZpid !== null && entries.find((e) => zpidOf(e) === wantZpid)) || entries[0]!;
  const same = entries
    .filter((e) => e === target || (zpidOf(e) !== null && zpidOf(e) === zpidOf(target)))
    .sort((a, b) => Object.keys(a.property).length - Object.keys(b.property).length);
  const fullest = same[same.length - 1]!;
  return {
    property: same.length === 1 ? fullest.property : Object.assign({}, ...same.map((e) => e.property)),
    generation: `${source}:${fullest.key.split('{')[0]}`,
  };
}

function fromNextData(body: string, extras: PageExtras, want: PageWant): PageData | null {
  const data = parseJson(body, 'next_data_invalid_json');
  const pageProps = obj(obj(data, 'props'), 'pageProps');
  const componentProps = obj(pageProps, 'componentProps');
  const buildingNode = obj(obj(componentProps, 'initialReduxState'), 'gdp').building;
  const building = isObject(buildingNode) && Object.keys(buildingNode).length > 0 ? buildingNode : null;
  const cache = parseCache(componentProps.gdpClientCache ?? pageProps.gdpClientCache, 'gdpClientCache');

  if (building && (want.building || cache === null)) return { kind: 'building', building, extras };
  if (cache === null) return null;
  const { property, generation } = pickProperty(cache, 'gdpClientCache', want.zpid);
  const zpid = text(property.zpid) ?? text(obj(data, 'query').zpid) ?? text(componentProps.zpid);
  return { kind: 'property', property, generation, zpid, extras };
}

function fromApolloPreloaded(body: string, extras: PageExtras, want: PageWant): PageData | null {
  const data = parseJson(body, 'apollo_invalid_json');
  const root = isObject(data) ? data : {};
  const cache = parseCache(root.apiCache, 'apiCache');
  if (cache === null) return null;
  const { property, generation } = pickProperty(cache, 'apiCache', want.zpid);
  const zpid = text(property.zpid) ?? text(root.zpid);
  return { kind: 'property', property, generation, zpid, extras };
}

/** The first data script that holds listing data; throws on a broken one, null when none does. */
function fromScripts(scripts: ScriptBlock[], extras: PageExtras, want: PageWant): PageData | null {
  for (const script of scripts) {
    if (script.body === null) return bad('data_script_unterminated', { script: script.attrs.id });
    const found =
      script.attrs.id === '__NEXT_DATA__'
        ? fromNextData(script.body, extras, want)
        : fromApolloPreloaded(script.body, extras, want);
    if (found) return found;
  }
  return null;
}

function fromText(html: string, want: PageWant): PageData {
  const scripts = findScripts(html, (a) => (DATA_SCRIPT_IDS as readonly string[]).includes(a.id ?? ''));
  const found = fromScripts(
    scripts,
    lazyExtras(() => html),
    want,
  );
  if (found) return found;
  if (isBotWall(html)) return { kind: 'blocked' };
  if (scripts.length > 0) return bad('no_listing_data');
  return bad(/<\/html\s*>\s*$/i.test(html) ? 'no_data_script' : 'truncated_page');
}

/**
 * Reads one listing page (its text, or its bytes as they arrived). Returns the home's property object,
 * the building node, or `blocked` for the bot wall; anything else (truncated page, broken JSON, no data)
 * is `upstream_bad_response`.
 */
export function extractPage(page: string | Buffer, want: PageWant): PageData {
  if (typeof page === 'string') return fromText(page, want);
  let text: string | undefined;
  const decoded = () => (text ??= page.toString('utf8'));
  try {
    const script = firstDataScript(page);
    const found = script && fromScripts([script], lazyExtras(decoded), want);
    if (found) return found;
  } catch {
    // The string path below gives the exact answer for every page the bytes path cannot read.
  }
  return fromText(decoded(), want);
}

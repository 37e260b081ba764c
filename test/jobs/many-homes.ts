// A replay catalog with many distinct homes, for jobs of thousands of items: one recorded page (a real
// listing's data, 29 KB) served again under other zpids, the zpid rewritten throughout the page and its path.
import { loadCatalog, type Catalog } from '../../src/replay/catalog.js';

const BASE_ZPID = '450233440';

/** The zpids manyHomesCatalog adds: `count` of them from `first`. */
export const manyZpids = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(first + i));

/** The recorded catalog plus a home for each of `zpids`. */
export function manyHomesCatalog(zpids: readonly string[]): Catalog {
  const catalog = loadCatalog();
  const base = catalog.find((e) => e.zpid === BASE_ZPID && e.path.includes('_zpid'))!;
  return [
    ...catalog,
    ...zpids.map((zpid) => ({
      ...base,
      zpid,
      path: base.path.replaceAll(BASE_ZPID, zpid),
      html: base.html.replaceAll(BASE_ZPID, zpid),
    })),
  ];
}

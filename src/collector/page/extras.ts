// Secondary sources on a listing page: JSON-LD, the meta tags the site fills for sharing,
// <title> and the canonical link. The mapper falls back to them when the embedded property
// object lacks a field (the reduced 2025-26 generation drops many).
import { attributes, decodeEntities, findScripts, pageTitle } from './html-text.js';

export interface PageExtras {
  /** JSON-LD objects, with arrays and `@graph` flattened. */
  jsonLd: Record<string, unknown>[];
  /** Meta content by name/property: description, og:*, zillow_fb:*, og:zillow_fb:*. */
  meta: Record<string, string>;
  /** The page <title>, whitespace collapsed. */
  title: string | null;
  /** The canonical link's href. */
  canonical: string | null;
}

const KEPT_META = /^(?:description|og:|zillow_fb:)/;

function flattenLd(v: unknown, out: Record<string, unknown>[]): void {
  if (Array.isArray(v)) for (const item of v) flattenLd(item, out);
  else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o['@graph'])) flattenLd(o['@graph'], out);
    else out.push(o);
  }
}

function jsonLd(html: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const blocks = findScripts(html, (a) => (a.type ?? '').toLowerCase() === 'application/ld+json');
  for (const { body } of blocks) {
    if (body === null) continue;
    try {
      flattenLd(JSON.parse(body), out);
    } catch {
      // A broken JSON-LD block is only a lost fallback, never a failed page.
      try {
        flattenLd(JSON.parse(decodeEntities(body)), out);
      } catch {
        /* ignored on purpose */
      }
    }
  }
  return out;
}

/** The extras of a page, each part read from the page text on first use (most pages never need them). */
export function lazyExtras(page: () => string): PageExtras {
  let head: Omit<PageExtras, 'jsonLd'> | undefined;
  let ld: Record<string, unknown>[] | undefined;
  const fromHead = () => (head ??= readHead(page()));
  return {
    get jsonLd() {
      return (ld ??= jsonLd(page()));
    },
    get meta() {
      return fromHead().meta;
    },
    get title() {
      return fromHead().title;
    },
    get canonical() {
      return fromHead().canonical;
    },
  };
}

function readHead(html: string): Omit<PageExtras, 'jsonLd'> {
  const headEnd = html.search(/<\/head\s*>/i);
  const head = headEnd === -1 ? html : html.slice(0, headEnd);
  const meta: Record<string, string> = {};
  let canonical: string | null = null;
  for (const m of head.matchAll(/<(meta|link)\b[^>]*>/gi)) {
    const a = attributes(m[0].replace(/\/?>$/, ''));
    if (m[1]!.toLowerCase() === 'link') {
      if (canonical === null && (a.rel ?? '').toLowerCase() === 'canonical' && a.href) canonical = a.href;
      continue;
    }
    const key = (a.property ?? a.name ?? '').toLowerCase();
    if (KEPT_META.test(key) && a.content !== undefined && !(key in meta)) meta[key] = a.content.trim();
  }
  return { meta, title: pageTitle(head), canonical };
}

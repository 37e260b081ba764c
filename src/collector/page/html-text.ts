// String-level HTML helpers for the few small parts of a page we read. The pages are 0.3-2 MB,
// so nothing here builds a DOM: tags are found by search and only their text is decoded (references
// by `entities`, the HTML spec's table).
import { decodeHTMLAttribute, decodeHTMLStrict } from 'entities/decode';

/**
 * Decodes character references: every named reference of HTML (`&eacute;`, `&hellip;`, `&rsquo;` …) and
 * numeric ones. Only with their `;`: the data script's JSON is decoded as a retry (extract.ts), and a
 * bare `&copy=` in one of its URLs must stay as written.
 */
export function decodeEntities(s: string): string {
  return s.includes('&') ? decodeHTMLStrict(s) : s;
}

/** The attributes of one start tag, names lower-cased, values decoded; order and quoting do not matter. */
export function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  // Skip the tag name itself.
  re.lastIndex = tag.search(/\s/) === -1 ? tag.length : tag.search(/\s/);
  for (let m = re.exec(tag); m; m = re.exec(tag)) {
    // In attributes a legacy reference followed by `=` or a letter stays as written (`?a=1&copy=2` is a URL).
    out[m[1]!.toLowerCase()] = decodeHTMLAttribute(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

export interface ScriptBlock {
  attrs: Record<string, string>;
  /** The raw text between the start tag and `</script>`, or null when the page ends first. */
  body: string | null;
}

const SCRIPT_START = /<script\b[^>]*>/gi;

/**
 * Scripts whose start tag matches `test`, found by scanning start tags only.
 * `limit` stops early: the data script is usually the one wanted.
 */
export function findScripts(
  html: string,
  test: (attrs: Record<string, string>) => boolean,
  limit = Infinity,
): ScriptBlock[] {
  const found: ScriptBlock[] = [];
  SCRIPT_START.lastIndex = 0;
  for (let m = SCRIPT_START.exec(html); m && found.length < limit; m = SCRIPT_START.exec(html)) {
    const attrs = attributes(m[0].slice(0, -1));
    if (!test(attrs)) continue;
    const start = m.index + m[0].length;
    const end = html.indexOf('</script', start);
    found.push({ attrs, body: end === -1 ? null : html.slice(start, end) });
    if (end === -1) break;
    SCRIPT_START.lastIndex = end;
  }
  return found;
}

/** The text of the page's first <title>, whitespace collapsed and decoded. */
export function pageTitle(html: string): string | null {
  const m = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const t = m ? decodeEntities(m[1]!).replace(/\s+/g, ' ').trim() : '';
  return t === '' ? null : t;
}

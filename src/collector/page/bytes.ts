// The page as it arrives: bytes. Decoding a whole 1 MB page costs more than reading its data, so the
// first data script is found in the Buffer and only its text is decoded. Anything this fast path cannot
// find is left to the string path (extract.ts), which decodes the page and reads it as before.
import { isAscii } from 'node:buffer';
import { attributes, type ScriptBlock } from './html-text.js';

/** The ids of the scripts that carry a page's listing data. */
export const DATA_SCRIPT_IDS = ['__NEXT_DATA__', 'hdpApolloPreloadedData'] as const;

const SCRIPT_TAG = /^<script\b/i;

interface DataScriptTag {
  at: number;
  attrs: Record<string, string>;
  textStart: number;
}

/** The first `<script … id="<id>" …>` start tag before `before`, or null. */
function firstTag(page: Buffer, id: string, before: number): DataScriptTag | null {
  const head = page.subarray(0, before);
  for (let i = head.indexOf(id); i !== -1; i = head.indexOf(id, i + id.length)) {
    const open = page.lastIndexOf('<', i);
    const close = page.indexOf('>', i);
    // The id must sit inside one start tag: no '>' between the tag's '<' and the id.
    if (open === -1 || close === -1 || page.indexOf('>', open) < i) continue;
    const tag = page.toString('utf8', open, close);
    if (!SCRIPT_TAG.test(tag)) continue;
    const attrs = attributes(tag);
    if (attrs.id === id) return { at: open, attrs, textStart: close + 1 };
  }
  return null;
}

/** The page's first data script tag in document order, or null. */
function firstDataScriptTag(page: Buffer): DataScriptTag | null {
  const next = firstTag(page, DATA_SCRIPT_IDS[0], page.length);
  // The other kind counts only when it comes first.
  return firstTag(page, DATA_SCRIPT_IDS[1], next?.at ?? page.length) ?? next;
}

/**
 * The page's first data script, as findScripts would find it in the decoded text. Only the first is
 * needed: when it holds no listing data, the string path reads the page (and any later script).
 */
export function firstDataScript(page: Buffer): ScriptBlock | null {
  const tag = firstDataScriptTag(page);
  if (!tag) return null;
  const end = page.indexOf('</script', tag.textStart);
  return { attrs: tag.attrs, body: end === -1 ? null : decodeJsonText(page, tag.textStart, end) };
}

/** Maximal runs of non-ASCII bytes in [start, end), found by halving with the vectorised isAscii. */
function nonAsciiRuns(page: Buffer, start: number, end: number, out: [number, number][]): void {
  if (isAscii(page.subarray(start, end))) return;
  if (end - start > 256) {
    const mid = (start + end) >>> 1;
    nonAsciiRuns(page, start, mid, out);
    nonAsciiRuns(page, mid, end, out);
    return;
  }
  for (let i = start; i < end; i += 1) {
    if (page[i]! < 0x80) continue;
    const last = out[out.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else out.push([i, i + 1]);
  }
}

const escapeUnits = (s: string): string => {
  let out = '';
  for (let i = 0; i < s.length; i += 1) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
};

/**
 * The text of a JSON byte range, with every non-ASCII character written as a \\uXXXX escape. JSON.parse
 * reads it to the same value (outside strings neither form is valid JSON), and the text stays one byte
 * per character: Node 20 decodes UTF-8 with non-ASCII in it several times slower than ASCII, and parses
 * two-byte text slower too. The escaped bytes are assembled in one buffer and decoded once.
 */
export function decodeJsonText(page: Buffer, start: number, end: number): string {
  const runs: [number, number][] = [];
  nonAsciiRuns(page, start, end, runs);
  if (runs.length === 0) return page.toString('latin1', start, end);
  const escapes = runs.map(([from, to]) => escapeUnits(page.toString('utf8', from, to)));
  const size = runs.reduce((n, [from, to], i) => n + escapes[i]!.length - (to - from), end - start);
  const out = Buffer.allocUnsafeSlow(size);
  let at = start;
  let written = 0;
  runs.forEach(([from, to], i) => {
    written += page.copy(out, written, at, from);
    written += out.write(escapes[i]!, written, 'latin1');
    at = to;
  });
  page.copy(out, written, at, end);
  return out.toString('latin1');
}

const LISTING_DATA = ['gdpClientCache', 'apiCache', 'initialReduxState'];

/** True when the bytes hold a data script and listing data: such a page is never a bot wall. */
export function hasListingDataBytes(page: Buffer): boolean {
  return LISTING_DATA.some((marker) => page.includes(marker)) && firstDataScriptTag(page) !== null;
}

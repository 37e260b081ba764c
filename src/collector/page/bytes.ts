// The page as it arrives: bytes. Decoding a whole 1 MB page costs more than reading its data, so the
// data scripts are found in the Buffer and only their text is decoded. Anything this fast path cannot
// find is left to the string path (extract.ts), which decodes the page and reads it as before.
import { isAscii } from 'node:buffer';
import { attributes, type ScriptBlock } from './html-text.js';

export const DATA_SCRIPT_IDS = ['__NEXT_DATA__', 'hdpApolloPreloadedData'] as const;

const SCRIPT_TAG = /^<script\b/i;

/** `<script … id="<one of ids>" …>` start tags in document order, with where their text starts. */
function dataScriptTags(page: Buffer): { at: number; attrs: Record<string, string>; textStart: number }[] {
  const tags: { at: number; attrs: Record<string, string>; textStart: number }[] = [];
  for (const id of DATA_SCRIPT_IDS) {
    for (let i = page.indexOf(id); i !== -1; i = page.indexOf(id, i + id.length)) {
      const open = page.lastIndexOf('<', i);
      const close = page.indexOf('>', i);
      // The id must sit inside one start tag: no '>' between the tag's '<' and the id.
      if (open === -1 || close === -1 || page.indexOf('>', open) < i) continue;
      const tag = page.toString('utf8', open, close);
      if (!SCRIPT_TAG.test(tag)) continue;
      const attrs = attributes(tag);
      if (attrs.id === id) tags.push({ at: open, attrs, textStart: close + 1 });
    }
  }
  return tags.sort((a, b) => a.at - b.at);
}

/** The data scripts of a page, as findScripts would return them for the decoded text. */
export function findDataScripts(page: Buffer): ScriptBlock[] {
  const found: ScriptBlock[] = [];
  let after = 0;
  for (const tag of dataScriptTags(page)) {
    // A tag inside the text of the previous data script is part of that text.
    if (tag.at < after) continue;
    const end = page.indexOf('</script', tag.textStart);
    found.push({ attrs: tag.attrs, body: end === -1 ? null : decodeJsonText(page, tag.textStart, end) });
    if (end === -1) break;
    after = end;
  }
  return found;
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
 * The text of a JSON byte range, with every non-ASCII character written as a \uXXXX escape. JSON.parse
 * reads it to the same value (outside strings neither form is valid JSON), and the text stays one byte
 * per character: Node 20 decodes UTF-8 with non-ASCII in it several times slower than ASCII.
 */
export function decodeJsonText(page: Buffer, start: number, end: number): string {
  const runs: [number, number][] = [];
  nonAsciiRuns(page, start, end, runs);
  if (runs.length === 0) return page.toString('latin1', start, end);
  const parts: string[] = [];
  let at = start;
  for (const [from, to] of runs) {
    parts.push(page.toString('latin1', at, from), escapeUnits(page.toString('utf8', from, to)));
    at = to;
  }
  parts.push(page.toString('latin1', at, end));
  return parts.join('');
}

const LISTING_DATA = ['gdpClientCache', 'apiCache', 'initialReduxState'];

/** True when the bytes hold a data script and listing data: such a page is never a bot wall. */
export function hasListingDataBytes(page: Buffer): boolean {
  return LISTING_DATA.some((marker) => page.includes(marker)) && dataScriptTags(page).length > 0;
}

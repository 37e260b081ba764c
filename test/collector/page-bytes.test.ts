// A page read from its bytes (decoding only the data script) gives exactly what reading its decoded
// text gives: the same data or the same coded error, and the same record, for every fixture page and
// for pages built to trip the byte-level search.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPage, isBotWall, isBotWallBytes, type PageWant } from '../../src/collector/page/index.js';
import { decodeJsonText } from '../../src/collector/page/bytes.js';
import { mapProperty } from '../../src/collector/mapping/index.js';

const DIR = new URL('../../fixtures/portal/', import.meta.url);
const pages = [
  ...readdirSync(DIR).filter((f) => f.endsWith('.html')),
  ...readdirSync(new URL('synthetic/', DIR))
    .filter((f) => f.endsWith('.html'))
    .map((f) => `synthetic/${f}`),
];
const WANTS: PageWant[] = [
  { zpid: null, building: false },
  { zpid: null, building: true },
];

/** What extractPage gives, with extras and mapping resolved to plain data (or the error's code and details). */
function outcome(page: string | Buffer, want: PageWant): unknown {
  try {
    const data = extractPage(page, want);
    if (data.kind === 'blocked') return data;
    const { jsonLd, meta, title, canonical } = data.extras;
    const extras = { jsonLd, meta, title, canonical };
    if (data.kind === 'building') return { ...data, extras };
    return { ...data, extras, record: mapProperty(data.property, data.extras, { scrapedAt: 'x' }) };
  } catch (e) {
    const { code, details } = e as { code: string; details: unknown };
    return { code, details };
  }
}

const script = (id: string, json: string, open = 'script') =>
  `<${open} id="${id}" type="application/json">${json}</script>`;
const nextData = (property: Record<string, unknown>) =>
  JSON.stringify({
    props: { pageProps: { componentProps: { gdpClientCache: JSON.stringify({ 'Q{}': { property } }) } } },
  });

const BUILT: Record<string, string> = {
  'non-ASCII text in the data (accents, quotes, emoji)': `<html><head><title>x</title></head><body>${script('__NEXT_DATA__', nextData({ zpid: 7, description: 'Café – “sunny” 🏡 über' }))}</body></html>`,
  'an upper-case SCRIPT tag': `<html><body>${script('__NEXT_DATA__', nextData({ zpid: 8 }), 'SCRIPT')}</body></html>`,
  'the id named in code before the data script': `<html><body><script>document.getElementById("__NEXT_DATA__")</script>${script('__NEXT_DATA__', nextData({ zpid: 9 }))}</body></html>`,
  'the id in another attribute': `<html><body><div data-x="__NEXT_DATA__"></div>${script('__NEXT_DATA__', nextData({ zpid: 10 }))}</body></html>`,
  'a data script inside another data script': `<html><body>${script('__NEXT_DATA__', `{"a":"<script id=\\"hdpApolloPreloadedData\\">"}`)}</body></html>`,
  'an unterminated data script': `<html><body>${script('__NEXT_DATA__', nextData({ zpid: 11 })).replace('</script>', '')}`,
  'invalid UTF-8 in the data': `<html><body>${script('__NEXT_DATA__', nextData({ zpid: 12, description: 'a@INVALID@b' }))}</body></html>`,
};

describe('extractPage from bytes', () => {
  for (const name of pages) {
    it(`reads ${name} as its text does`, () => {
      const bytes = readFileSync(new URL(name, DIR));
      for (const want of WANTS) expect(outcome(bytes, want)).toEqual(outcome(bytes.toString('utf8'), want));
      expect(isBotWallBytes(bytes)).toBe(isBotWall(bytes.toString('utf8')));
    });
  }

  for (const [name, html] of Object.entries(BUILT)) {
    it(`reads a page with ${name} as its text does`, () => {
      // A truncated three-byte sequence where the marker is.
      const [before, after = null] = html.split('@INVALID@');
      const bytes =
        after === null
          ? Buffer.from(html)
          : Buffer.concat([Buffer.from(before!), Buffer.from([0xe2, 0x80]), Buffer.from(after)]);
      for (const want of WANTS) expect(outcome(bytes, want)).toEqual(outcome(bytes.toString('utf8'), want));
    });
  }

  it('decodes JSON text with non-ASCII characters to the same value as UTF-8 decoding', () => {
    const json = JSON.stringify({ a: 'Café – “sunny” 🏡', b: ['ü'.repeat(300), 'x'.repeat(1000) + 'é'], c: '\\u00e9' });
    const bytes = Buffer.from(`xx${json}yy`);
    const text = decodeJsonText(bytes, 2, bytes.length - 2);
    expect(JSON.parse(text)).toEqual(JSON.parse(json));
    expect(/^[\x00-\x7f]*$/.test(text)).toBe(true);
  });
});

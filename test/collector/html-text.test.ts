// Character references in the page's text and attributes are decoded with HTML's whole table of named
// references, not only the handful written by hand before (issue 13 §5); attributes by the browser's rules.
import { describe, expect, it } from 'vitest';
import { attributes, decodeEntities, findScripts, pageTitle } from '../../src/collector/page/html-text.js';

describe('decodeEntities (text)', () => {
  it('decodes named references beyond the basic five', () => {
    expect(decodeEntities('Caf&eacute; &hellip; it&rsquo;s &ldquo;new&rdquo; &mdash; 2&nbsp;bd &frac12; &copy;')).toBe(
      'Café … it’s “new” — 2\u00a0bd ½ ©',
    );
  });

  it('keeps decoding the basics, numeric references and apostrophes', () => {
    expect(decodeEntities('&lt;b&gt; &amp; &quot;x&quot; &apos;y&#39; &#x1F3E0; &#233;')).toBe('<b> & "x" \'y\' 🏠 é');
  });

  it('leaves a reference without its semicolon as written (a URL inside JSON keeps its query)', () => {
    expect(decodeEntities('AT&T &amp Co')).toBe('AT&T &amp Co');
    expect(decodeEntities('{"url":"https://x.test/?a=1&copy=2&amp;b=3"}')).toBe(
      '{"url":"https://x.test/?a=1&copy=2&b=3"}',
    );
  });

  it('leaves unknown names alone and replaces an impossible code point with U+FFFD', () => {
    expect(decodeEntities('&bogus; &zpid; &#1114112;')).toBe('&bogus; &zpid; \ufffd');
  });

  it('returns a string without references unchanged', () => {
    const s = 'no references here';
    expect(decodeEntities(s)).toBe(s);
  });
});

describe('attributes', () => {
  it('decodes named references in values', () => {
    expect(attributes('<meta property="og:title" content="Caf&eacute; &hellip; &rsquo;s home"')).toEqual({
      property: 'og:title',
      content: 'Café … ’s home',
    });
  });

  it('leaves a legacy reference followed by = as written, so a query string survives', () => {
    expect(attributes('<link rel=canonical href="https://example.com/?a=1&copy=2&amp;b=3"')).toEqual({
      rel: 'canonical',
      href: 'https://example.com/?a=1&copy=2&b=3',
    });
  });
});

describe('pageTitle and findScripts', () => {
  it('the title is decoded with every named reference', () => {
    expect(pageTitle('<html><head><title>\n  Maison &agrave; vendre &ndash; 12 Rue d&rsquo;Arc\n</title>')).toBe(
      'Maison à vendre – 12 Rue d’Arc',
    );
  });

  it('a script is found by its decoded attributes', () => {
    const html = '<script id="a&eacute;">1</script><script type="application/ld&#43;json">2</script>';
    expect(findScripts(html, (a) => a.id === 'aé').map((s) => s.body)).toEqual(['1']);
    expect(findScripts(html, (a) => a.type === 'application/ld+json').map((s) => s.body)).toEqual(['2']);
  });
});

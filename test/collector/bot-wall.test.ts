import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPage, isBotWall } from '../../src/collector/page/index.js';
import { wrapPropertyPage } from '../../src/replay/wrap.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8');

// What every normal page inlines (research §6): PerimeterX's app id and script, and a captcha key.
const PX_SCRIPT = `<script id="scripts.perimeterX">window._pxAppId = 'PXHYx10rg3';</script><script>var c={GOOGLE_CAPTCHA_PUBLIC_KEY:"x"}</script>`;

describe('isBotWall', () => {
  it('detects the raw Press & Hold wall', () => {
    expect(isBotWall(fixture('blocked-press-and-hold-2025-04.html'))).toBe(true);
  });

  it('detects the wall after an HTML library re-serialized it (attribute order changed)', () => {
    expect(isBotWall(fixture('blocked-press-and-hold-2025-03-reserialized.html'))).toBe(true);
  });

  it('does not flag the real listing page, which carries the PerimeterX app id', () => {
    const page = fixture('hdp-2146993218-condo-for-sale-2024.html');
    expect(page).toContain("_pxAppId = 'PXHYx10rg3'");
    expect(isBotWall(page)).toBe(false);
  });

  it('does not flag a page that only inlines PerimeterX', () => {
    expect(isBotWall(`<html><head><title>1 Main St | Zillow</title>${PX_SCRIPT}</head><body></body></html>`)).toBe(
      false,
    );
  });

  it('never flags a page with listing data, even with an injected captcha modal and the wall title', () => {
    const head = '<title>Access to this page has been denied</title>';
    const page = wrapPropertyPage({ zpid: 1, homeStatus: 'FOR_SALE', price: 1 }, { head }).replace(
      '<body>',
      '<body><iframe id="px-captcha-modal"></iframe><div id="px-captcha"></div>',
    );
    expect(isBotWall(page)).toBe(false);
  });

  it.each([
    [
      'the wall title',
      '<html><head><title>\n Access to this page has been denied\n</title></head><body></body></html>',
    ],
    ['the captcha div', '<html><body><div id="px-captcha"></div></body></html>'],
    [
      'the captcha meta, either attribute order',
      '<html><head><meta content="px-captcha" name="description"/></head></html>',
    ],
  ])('detects a wall by %s alone', (_, page) => {
    expect(isBotWall(page)).toBe(true);
  });

  it('does not take px-captcha-wrapper or a px-captcha class for the captcha div', () => {
    expect(
      isBotWall('<html><body><div id="px-captcha-wrapper" class="px-captcha-container"></div></body></html>'),
    ).toBe(false);
  });

  it('makes the page reader answer blocked for both walls', () => {
    for (const name of ['blocked-press-and-hold-2025-04.html', 'blocked-press-and-hold-2025-03-reserialized.html']) {
      expect(extractPage(fixture(name), { zpid: '2146993218', building: false })).toEqual({ kind: 'blocked' });
    }
  });
});

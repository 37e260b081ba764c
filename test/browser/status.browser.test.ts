// The /status page in a real browser (headless Debian Chromium through playwright-core) against the real
// server after real lookups: it loads from the server alone (no CDN, no script), logs no console error,
// and shows the figures GET /v1/status answers. Photographed into test/browser/screenshots/ (gitignored).
import { mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const SCREENSHOTS = new URL('./screenshots/', import.meta.url);
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  [svc, browser] = await Promise.all([
    startTestService({ socket: 'other-program' }),
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the /status page', () => {
  it('shows the figures of the lookups made, from the server alone, with no console error', async () => {
    expect((await svc.get('/v1/portal/property?zpid=2146993218')).status).toBe(200);
    expect((await svc.get('/v1/portal/property?zpid=2146993218')).status).toBe(200);
    expect((await svc.get('/v1/portal/property?zpid=999999999')).status).toBe(404);
    const api = (await (await fetch(`${svc.url}/v1/status`)).json()) as {
      data: { last_hour: { lookups: number }; breaker: { state: string } };
    };
    expect(api.data.last_hour.lookups).toBe(3);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      const res = await page.goto(`${svc.url}/status`);
      expect(res?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Status · Property lookup API');
      // The same read as the JSON's (kept a few seconds): the same figures.
      const lookups = page.locator('#figures tr', { hasText: 'Lookups answered' });
      await expect(lookups.locator('td[data-window="hour"]').innerText()).resolves.toBe('3');
      await expect(lookups.locator('td[data-window="day"]').innerText()).resolves.toBe('3');
      const cache = page.locator('#figures tr', { hasText: 'Served from the cache' });
      await expect(cache.locator('td[data-window="hour"]').innerText()).resolves.toBe('50.0 %');
      const notFound = page.locator('#figures tr.error-code', { hasText: 'not_found' });
      await expect(notFound.locator('td[data-window="hour"]').innerText()).resolves.toBe('1');
      await expect(page.locator('#breaker').getAttribute('data-state')).resolves.toBe(api.data.breaker.state);
      // The brand: the header's links, this page marked as the current one; the stylesheet applied.
      await expect(page.locator('header.brand-bar nav a[href="/status"][aria-current="page"]').count()).resolves.toBe(
        1,
      );
      const barColor = await page.locator('header.brand-bar').evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(barColor).toBe('rgb(10, 63, 60)');
      await page.screenshot({ path: new URL('status.png', SCREENSHOTS).pathname, fullPage: true });

      // Linked from the landing page.
      await page.goto(`${svc.url}/`);
      await expect(page.locator('main a.card[href="/status"]').count()).resolves.toBe(1);

      expect(requested.filter((u) => !u.startsWith(`${svc.url}/`))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

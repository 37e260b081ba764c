// A real browser (headless Debian Chromium through playwright-core) against the real server:
// GraphiQL at /graphql works offline (every request stays on the server), takes the API key in its
// headers editor and runs the example operation; the REST docs page at /docs lists the endpoints.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startTestService();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** A page that records every URL it requests. */
async function openPage(): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  return { page, requested };
}

const offSite = (requested: string[]) =>
  requested.filter((u) => !u.startsWith(`${svc.url}/`) && !u.startsWith(`blob:${svc.url}/`) && !u.startsWith('data:'));

describe('GraphiQL at /graphql', () => {
  it('loads from the server alone, explains the key, and runs the example once the key is set', async () => {
    const { page, requested } = await openPage();
    try {
      await page.goto(`${svc.url}/graphql`);
      await expect(page.title()).resolves.toBe('Property lookup API · GraphiQL');
      const query = page.locator('.graphiql-query-editor');
      await query.getByText('x-api-key').first().waitFor();
      const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
      await headers.getByText('<your key>').waitFor();

      // As prefilled (the placeholder is not a key): the server's 401 shows in the response pane.
      const response = page.locator('.graphiql-response');
      await page.locator('.graphiql-execute-button').click();
      await response.getByText('invalid_api_key').waitFor({ timeout: 15_000 });

      // Type the real key into the headers editor, as a person would.
      await headers.locator('.view-lines').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type(JSON.stringify({ 'x-api-key': svc.keys.free }));
      await page.locator('.graphiql-execute-button').click();
      await response.getByText('PropertyLookup').waitFor({ timeout: 15_000 });
      const text = (await response.innerText()).replace(/\u00a0/g, ' '); // Monaco renders spaces as nbsp
      expect(text).toContain('"zpid": "2146993218"');
      expect(text).toContain('"plan": "free"');
      expect(offSite(requested)).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('the REST docs at /docs', () => {
  it('lists the endpoints, from local assets', async () => {
    const { page, requested } = await openPage();
    try {
      await page.goto(`${svc.url}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
      const paths = await page.locator('.opblock-summary-path').allInnerTexts();
      expect(paths.map((p) => p.replace(/\u200b/g, '').trim())).toEqual(['/v1/portal/property', '/v1/portal/batch', '/v1/account']);
      expect(await page.locator('body').innerText()).toContain('Property lookup API');
      expect(offSite(requested)).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

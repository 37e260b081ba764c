// The pages a person opens, in a real browser (headless Debian Chromium through playwright-core) against
// the real server: the landing page, the REST docs and GraphiQL each load from the server alone (no CDN),
// log no console error, and make a request that succeeds (a lookup from the landing page's form, a
// try-it-out on /docs, the GraphiQL example). Each page is photographed into test/browser/screenshots/
// (gitignored). A second visit takes GraphiQL's bundle from the browser's cache (hashed, immutable).
// One browser for the file (each page in its own tab): launching Chromium is the slow part.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_TITLE } from '../../src/rest/docs.js';
import { buildOpenApi } from '../../src/rest/openapi.js';
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
const ZPID = '2146993218';

let svc: TestService;
// A profile on disk, as a person's browser has: an in-memory (incognito) cache keeps no entry as large as
// GraphiQL's bundle. No other page loads that bundle, so GraphiQL's first visit still downloads it.
let profile: string;
let browser: BrowserContext;
beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'pl-chromium-'));
  [svc, browser] = await Promise.all([
    startTestService({ socket: 'other-program' }),
    chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

interface Watched {
  page: Page;
  /** Every URL the page requested. */
  requested: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Answers of 400 and above to the page's own requests (not API answers a test expects). */
  failed: string[];
}

async function open(): Promise<Watched> {
  const page = await browser.newPage();
  const watched: Watched = { page, requested: [], errors: [], failed: [] };
  page.on('request', (r) => watched.requested.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') watched.errors.push(m.text());
  });
  page.on('pageerror', (e) => watched.errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname.startsWith('/assets/'))
      watched.failed.push(`${r.status()} ${r.url()}`);
  });
  return watched;
}

const offSite = (requested: string[]) =>
  requested.filter((u) => !u.startsWith(`${svc.url}/`) && !u.startsWith(`blob:${svc.url}/`) && !u.startsWith('data:'));

const shot = (page: Page, name: string) =>
  page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });

/** What the test reads of Swagger UI's own state (docs.js keeps the instance as window.ui). */
interface SwaggerWindow {
  ui: { specSelectors: { specResolvedSubtree(path: string[]): unknown } };
}

/** Monaco renders spaces as no-break spaces. */
const plain = (text: string) => text.replace(/\u00a0/g, ' ').replace(/\u200b/g, '');

describe('the landing page', () => {
  it('shows the service, its links and readiness, and runs a lookup from its form', async () => {
    const w = await open();
    try {
      await w.page.goto(`${svc.url}/`);
      await expect(w.page.title()).resolves.toBe('Property lookup API');
      const ready = (await (await fetch(`${svc.url}/readyz`)).json()) as { status: string };
      await w.page.locator('#service-status', { hasText: ready.status }).waitFor({ timeout: 15_000 });
      for (const href of ['/docs', '/graphql', '/openapi.json', '/llms.txt']) {
        await expect(w.page.locator(`main a.card[href="${href}"]`).count()).resolves.toBe(1);
      }

      await w.page.fill('#try-key', svc.keys.free!);
      await w.page.selectOption('#try-by', 'zpid');
      await w.page.fill('#try-value', ZPID);
      await w.page.click('#try-form button[type=submit]');
      const output = w.page.locator('#try-output[data-status]');
      await output.waitFor({ timeout: 30_000 });
      expect(await output.getAttribute('data-status')).toBe('200');
      const text = await output.innerText();
      expect(text).toContain(`"zpid": "${ZPID}"`);
      expect(text).toContain('"credits": 1');

      // The same form with a wrong key shows the API's error.
      await w.page.fill('#try-key', 'not-a-key');
      await w.page.click('#try-form button[type=submit]');
      await w.page.locator('#try-output[data-status="401"]').waitFor({ timeout: 15_000 });
      expect(await w.page.locator('#try-output').innerText()).toContain('invalid_api_key');
      await w.page.fill('#try-key', svc.keys.free!);
      await w.page.click('#try-form button[type=submit]');
      await w.page.locator('#try-output[data-status="200"]').waitFor({ timeout: 15_000 });
      await shot(w.page, 'landing');

      // The browser console shows the 401 the test asked for as a failed resource; nothing else.
      expect(w.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
      expect(w.failed).toEqual([]);
      expect(offSite(w.requested)).toEqual([]);
    } finally {
      await w.page.close();
    }
  }, 90_000);
});

describe('the REST docs at /docs', () => {
  it('are branded, show every operation with its examples and the literal <zpid>, and try a lookup with the key', async () => {
    const w = await open();
    try {
      await w.page.goto(`${svc.url}/docs`);
      await expect(w.page.title()).resolves.toBe(DOCS_TITLE);
      await w.page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      await expect(w.page.locator('header.brand-bar .logo').innerText()).resolves.toContain('Property lookup API');

      type Media = { example?: unknown; examples?: Record<string, { summary?: string; value?: unknown }> };
      const doc = buildOpenApi(svc.config) as {
        paths: Record<
          string,
          Record<
            string,
            {
              requestBody?: { content: Record<string, Media> };
              responses: Record<string, { content?: Record<string, Media> }>;
            }
          >
        >;
        webhooks: Record<string, unknown>;
      };
      const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ path, method, op })),
      );
      const shownPaths = (await w.page.locator('.opblock-summary-path').allInnerTexts()).map((p) => plain(p).trim());
      // In the document's order (the single lookup first), then the webhooks the service sends, by event name.
      expect(shownPaths).toEqual([...operations.map((o) => o.path), ...Object.keys(doc.webhooks)]);

      // The page resolves the operations' references together once it has shown them (docs.js); then each
      // opens without resolving the whole document again (about half a second of CPU apiece here).
      await w.page.waitForFunction(
        () => (window as unknown as SwaggerWindow).ui.specSelectors.specResolvedSubtree(['paths']) !== undefined,
        null,
        { timeout: 30_000 },
      );

      // Authorize once with the key, then try the single lookup. Before the other operations are opened:
      // Swagger UI draws every open operation again on each change of its state (authorized, executed).
      await w.page.locator('.btn.authorize').first().click();
      await w.page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(svc.keys.free!);
      // The modal has a form per scheme (the x-api-key and the bearer one): the key goes in the first.
      await w.page.locator('.modal-ux .auth-btn-wrapper .authorize').first().click();
      await w.page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();
      // The key stays in the page, never in the browser's storage (persistAuthorization off).
      const stored = await w.page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
      );
      expect(stored).not.toContain(svc.keys.free!);
      const property = w.page
        .locator('.opblock-get', { has: w.page.locator('.opblock-summary-path', { hasText: '/v1/portal/property' }) })
        .first();
      await property.locator('.opblock-summary').first().click();
      // Executed as it opens: only one locator (zpid) has an example Swagger UI fills in.
      await expect(property.locator('tr[data-param-name="zpid"] input').inputValue()).resolves.toBe(ZPID);
      for (const other of ['url', 'address'])
        await expect(property.locator(`tr[data-param-name="${other}"] input`).inputValue(), other).resolves.toBe('');
      await property.locator('.btn.execute').click();
      const live = property.locator('.live-responses-table');
      await live.locator('.response-col_status', { hasText: '200' }).waitFor({ timeout: 30_000 });
      expect(plain(await live.innerText())).toContain(`"zpid": "${ZPID}"`);
      // The header and the top of the page, then the operation down to its live answer (the operation with
      // its documented responses below is 13,000 px).
      await w.page.evaluate(() => window.scrollTo(0, 0));
      await w.page.screenshot({ path: new URL('docs.png', SCREENSHOTS).pathname });
      const [top, answer] = [await property.boundingBox(), await live.boundingBox()];
      await w.page.screenshot({
        path: new URL('docs-try-it.png', SCREENSHOTS).pathname,
        fullPage: true,
        clip: { x: top!.x, y: top!.y, width: top!.width, height: answer!.y + answer!.height - top!.y },
      });

      // Every operation opened (the lookup's already is): each documented response has a row, and each
      // named example is offered. All opened at once, awaited together and read in one round trip.
      const ids = await w.page.evaluate(
        (ops) =>
          ops.map(({ path, method }) => {
            const blocks = [...document.querySelectorAll(`#swagger-ui .opblock-${method}`)].filter(
              (b) =>
                (b.querySelector('.opblock-summary-path') as HTMLElement | null)?.innerText
                  .replace(/\u00a0/g, ' ')
                  .replace(/\u200b/g, '')
                  .trim() === path,
            );
            for (const b of blocks)
              if (!b.classList.contains('is-open'))
                (b.querySelector('.opblock-summary-control') as HTMLElement).click();
            return blocks.map((b) => b.id);
          }),
        operations.map(({ path, method }) => ({ path, method })),
      );
      expect(ids.map((found, i) => `${operations[i]!.method} ${operations[i]!.path}: ${found.length}`)).toEqual(
        operations.map((o) => `${o.method} ${o.path}: 1`),
      );
      // Each open with its documented responses, and its request body editor where the body has an example.
      const opened = operations.map((o, i) => ({
        id: ids[i]![0]!,
        body: o.op.requestBody?.content['application/json']?.example !== undefined,
      }));
      await w.page.waitForFunction(
        (blocks) =>
          blocks.every(({ id, body }) => {
            const block = document.getElementById(id);
            return (
              block?.querySelector('.responses-table:not(.live-responses-table)') &&
              (!body || block.querySelector('textarea.body-param__text'))
            );
          }),
        opened,
        { timeout: 30_000 },
      );
      // Each block's request body and documented response rows: each row's selects and highlighted examples.
      const shown = await w.page.evaluate(
        (blocks) =>
          blocks.map(({ id }) => {
            const block = document.getElementById(id)!;
            return {
              body: block.querySelector<HTMLTextAreaElement>('textarea.body-param__text')?.value,
              rows: [...block.querySelectorAll('.responses-table:not(.live-responses-table) tr.response')].map(
                (tr) => ({
                  code: tr.getAttribute('data-code'),
                  options: [...tr.querySelectorAll('select')].map((s) => (s as HTMLElement).innerText).join('\n'),
                  highlighted: tr.querySelectorAll('.highlight-code').length,
                }),
              ),
            };
          }),
        opened,
      );
      for (const [i, { path, method, op }] of operations.entries()) {
        const { body, rows } = shown[i]!;
        // The request body's example is the body try-it-out starts with.
        const requestExample = op.requestBody?.content['application/json']?.example;
        if (requestExample !== undefined)
          expect(JSON.parse(body ?? 'null'), `${method} ${path} request`).toEqual(requestExample);
        for (const [status, response] of Object.entries(op.responses)) {
          const matching = rows.filter((r) => r.code === status);
          expect(matching, `${method} ${path} ${status}`).toHaveLength(1);
          const row = matching[0]!;
          const json = response.content?.['application/json'];
          const named = Object.entries(json?.examples ?? {});
          if (named.length > 0) {
            // Swagger UI's media-type and example selects: the examples' summaries are the options.
            const options = plain(row.options);
            for (const [key, example] of named)
              expect(options, `${method} ${path} ${status}: example ${key}`).toContain(example.summary ?? key);
          } else if (json?.example !== undefined) {
            expect(row.highlighted, `${method} ${path} ${status}`).toBeGreaterThan(0);
          }
        }
      }
      // Markdown descriptions keep a literal path fragment (not read as an HTML tag).
      expect(plain(await w.page.locator('#swagger-ui').innerText())).toContain('<zpid>_zpid/');

      expect(w.errors).toEqual([]);
      expect(w.failed).toEqual([]);
      expect(offSite(w.requested)).toEqual([]);
    } finally {
      await w.page.close();
    }
  }, 120_000);
});

describe('GraphiQL at /graphql', () => {
  it('runs the example with the key, from hashed assets the browser keeps for the next visit', async () => {
    const w = await open();
    try {
      // The server gives every request its own x-request-id: an answer with the id of an earlier one is
      // the browser's cached copy.
      const requestIds = new Map<string, string[]>();
      const pageIds: string[] = [];
      w.page.on('response', (r) => {
        requestIds.set(r.url(), [...(requestIds.get(r.url()) ?? []), r.headers()['x-request-id'] ?? '']);
        if (r.request().resourceType() === 'document' && r.url() === `${svc.url}/graphql`)
          pageIds.push(r.headers()['x-request-id'] ?? '');
      });

      await w.page.goto(`${svc.url}/graphql`);
      await expect(w.page.title()).resolves.toBe('Property lookup API · GraphiQL');
      // The example operation explains the key; the headers editor starts with the header to fill in, empty
      // (no made-up key to be refused).
      await w.page.locator('.graphiql-query-editor').getByText('x-api-key').first().waitFor({ timeout: 30_000 });
      // As the example says: open the Headers tab.
      await w.page.locator('.graphiql-editor-tools').getByText('Headers', { exact: true }).click();
      const headers = w.page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
      await headers.locator('.view-lines').waitFor({ timeout: 30_000 });
      expect(
        plain(await headers.locator('.view-lines').innerText())
          .replace(/\s+/g, ' ')
          .trim(),
      ).toBe('{ "x-api-key": "" }');
      const response = w.page.locator('.graphiql-response');
      // The real key, typed as a person would.
      await headers.locator('.view-lines').click();
      await w.page.keyboard.press('Control+A');
      await w.page.keyboard.press('Delete');
      await w.page.keyboard.type(JSON.stringify({ 'x-api-key': svc.keys.free }));
      await w.page.locator('.graphiql-execute-button').click();
      await response.getByText('PropertyLookup').waitFor({ timeout: 30_000 });
      const answer = plain(await response.innerText());
      expect(answer).toContain(`"zpid": "${ZPID}"`);
      expect(answer).toContain('"plan": "free"');
      await shot(w.page, 'graphiql');

      const bundle = w.requested.find((u) => /\/assets\/graphiql\.[0-9a-f]{12}\.js$/.test(u)) ?? '';
      expect(bundle).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/assets\/graphiql\.[0-9a-f]{12}\.js$/);
      // The editor's workers came from asset URLs (not inline blobs).
      expect(w.requested.some((u) => /\/assets\/graphql\.worker\.[0-9a-f]{12}\.js$/.test(u))).toBe(true);

      // A later visit in the same browser (after another page; the same URL again would be a reload):
      // the 5 MB bundle is not downloaded again, nor even revalidated.
      await w.page.goto(`${svc.url}/`);
      await w.page.goto(`${svc.url}/graphql`);
      await w.page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
      const [first, second] = requestIds.get(bundle)!;
      expect(first).toMatch(/./);
      expect(second).toBe(first);
      // The page itself is not cached (no-store): a new request.
      expect(pageIds).toHaveLength(2);
      expect(pageIds[1]).not.toBe(pageIds[0]);

      expect(w.errors).toEqual([]);
      expect(w.failed).toEqual([]);
      expect(offSite(w.requested)).toEqual([]);
    } finally {
      await w.page.close();
    }
  }, 120_000);
});

// The pages around the API (landing page, /llms.txt, /docs, GraphiQL) and their static assets, through
// the real server: content read from the code's own sources (error table, OpenAPI document), assets
// under hashed names with a year of caching and compressed copies, API answers still no-store.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ERROR_CODES, ERROR_CODES, MAX_BATCH_ITEMS } from '../../src/contract/index.js';
import { buildOpenApi } from '../../src/rest/openapi.js';
import { AssetRegistry, IMMUTABLE } from '../../src/site/assets.js';
import { mcpTools } from '../../src/web/mcp-tools.js';
import { portOf, rawRequest } from '../helpers/raw-http.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  // On a socket: the asterisk form and the compression checks send raw requests.
  svc = await startTestService({ socket: 'raw-http', env: { CACHE_TTL_MS: String(6 * 3_600_000) } });
});
afterAll(() => svc?.close());

const page = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(svc.url + path, { headers });
  return { res, text: await res.text() };
};

/** Every /assets/… URL a page's HTML refers to. */
const assetUrls = (html: string): string[] => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the landing page at /', () => {
  it('says what the service is and links every face and document', async () => {
    const { res, text } = await page('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(text).toContain('<title>Property lookup API</title>');
    for (const href of ['/docs', '/graphql', '/openapi.json', '/llms.txt']) expect(text).toContain(`href="${href}"`);
    // The operations table comes from the OpenAPI document.
    for (const path of Object.keys(buildOpenApi(svc.config).paths as object)) expect(text).toContain(path);
    // Costs read from the configuration (6 h here, not the default 24 h).
    expect(text).toContain('in the last 6 h');
    expect(text).toContain(`up to ${MAX_BATCH_ITEMS} in a batch`);
    for (const tool of mcpTools(svc.config)) expect(text).toContain(`<code>${tool.name}</code>`);
    // stdio is started with node itself: `npm run` would print its banners on stdout, the protocol's channel.
    expect(text).toContain(
      '<code>PORTAL_API_KEY=&lt;key&gt; node dist/mcp/stdio.js</code> (after <code>npm run build</code>)',
    );
    expect(text).not.toContain('npm run mcp');
    // No inline script: every script is a hashed asset.
    expect(text).not.toMatch(/<script>(?!<\/script>)/);
    expect(assetUrls(text).length).toBeGreaterThanOrEqual(2);
  });

  it('is only for the origin form: `GET *` (the asterisk form, which the router hands to /) is a 404 in the envelope', async () => {
    const r = await rawRequest(portOf(svc.url), 'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(r?.status).toBe(404);
    expect(r?.json.error.code).toBe('route_not_found');
  });
});

describe('/llms.txt', () => {
  it('is plain text with the endpoints, auth, costs, every REST error code and the links', async () => {
    const { res, text } = await page('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.startsWith('# Property lookup API\n\n> ')).toBe(true);
    expect(text).toContain('x-api-key');
    expect(text).toContain('costs 1 credit');
    expect(text).toContain('in the last 6 h');
    // The single lookup's rule as the OpenAPI document says it, with the configured lifetime.
    expect(text).toContain('a cache hit (6 h) costs 0');
    const paths = buildOpenApi(svc.config).paths as Record<string, Record<string, unknown>>;
    for (const [path, methods] of Object.entries(paths)) {
      for (const method of Object.keys(methods)) expect(text).toContain(`- ${method.toUpperCase()} ${path}`);
    }
    for (const code of REST_ERROR_CODES) expect(text).toContain(`- ${ERROR_CODES[code].status} ${code}: `);
    expect(text).toContain(
      '- 503 store_unavailable: The usage and cache store is unreachable. Retry in 30 seconds. (retry-after header)',
    );
    for (const href of ['/docs', '/openapi.json', '/graphql']) expect(text).toContain(`](${href})`);
    // The MCP tools, from their definitions.
    for (const tool of mcpTools(svc.config)) expect(text).toContain(`- ${tool.name} (${tool.title}): `);
    expect(text).toContain('POST /mcp');
    expect(text).toContain('(`PORTAL_API_KEY=<key> node dist/mcp/stdio.js`, after `npm run build`)');
    expect(text).not.toContain('npm run mcp');
    // GraphQL's query fields and mutations, from the schema.
    expect(text).toMatch(
      /POST \/graphql: GraphQL \(query fields: account, job, jobs, properties, property, propertyHistory, serviceStatus, watch, watches, webhookDeliveries; mutations, by POST only: cancelLookupJob, createLookupJob, redeliverWebhook, unwatchProperty, watchProperty\)/,
    );
    // GraphQL's own refusals are not REST codes.
    expect(text).not.toContain('persisted_query_not_found');
  });
});

describe('static assets', () => {
  it('every asset the pages use is served under a hashed name, cached for a year, and compressed on request', async () => {
    const pages = await Promise.all([page('/'), page('/docs'), page('/graphql', { accept: 'text/html' })]);
    const urls = [...new Set(pages.flatMap((p) => assetUrls(p.text)))];
    // landing: site.css, icon, landing.js; docs: swagger css + js, docs.js; GraphiQL: favicon, css, js, init.
    expect(urls.length).toBeGreaterThanOrEqual(10);
    for (const url of urls) {
      expect(url).toMatch(/^\/assets\/[a-z.-]+\.[0-9a-f]{12}\.(js|css|ico|svg)$/);
      const plain = await fetch(svc.url + url, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.status, url).toBe(200);
      expect(plain.headers.get('cache-control'), url).toBe(IMMUTABLE);
      expect(plain.headers.get('content-encoding'), url).toBeNull();
      expect(plain.headers.get('vary'), url).toBe('accept-encoding');
      const body = Buffer.from(await plain.arrayBuffer());
      expect(body.length, url).toBeGreaterThan(0);
      const types = { js: /^text\/javascript/, css: /^text\/css/, ico: /^image\/x-icon$/, svg: /^image\/svg\+xml$/ };
      expect(plain.headers.get('content-type'), url).toMatch(
        types[url.slice(url.lastIndexOf('.') + 1) as keyof typeof types],
      );
      // The same bytes again (the same encoding: each has its own ETag): a 304.
      const again = await fetch(svc.url + url, {
        headers: { 'accept-encoding': 'identity', 'if-none-match': plain.headers.get('etag')! },
      });
      expect(again.status, url).toBe(304);
    }
  });

  it("GraphiQL's bundle: a small page, the 5 MB script compressed (brotli or gzip, as accepted) to the same bytes", async () => {
    const { res, text } = await page('/graphql', { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(text.length).toBeLessThan(8_000); // was 9 MB, inline
    expect(res.headers.get('cache-control')).toBe('no-store');
    const js = assetUrls(text).find((u) => u.startsWith('/assets/graphiql.') && u.endsWith('.js'))!;
    const plain = Buffer.from(
      await (await fetch(svc.url + js, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer(),
    );
    expect(plain.length).toBeGreaterThan(4_000_000);
    // fetch would decode on its own; node:http shows what was sent.
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const raw = await rawGet(js, { 'accept-encoding': encoding });
      expect(raw.headers['content-encoding']).toBe(encoding);
      expect(raw.body.length).toBeLessThan(plain.length / 3);
      expect(decode(raw.body).equals(plain)).toBe(true);
    }
    const preferred = await rawGet(js, { 'accept-encoding': 'gzip, deflate, br' });
    expect(preferred.headers['content-encoding']).toBe('br');
  }, 60_000);

  it('an unknown asset is a 404 in the envelope, not cached', async () => {
    const res = await fetch(`${svc.url}/assets/graphiql.000000000000.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await res.json()).error.code).toBe('route_not_found');
  });

  it('the JSON API answers keep no-store', async () => {
    for (const path of ['/healthz', '/openapi.json', '/v1/account']) {
      const res = await fetch(svc.url + path, { headers: { 'x-api-key': svc.keys.free! } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});

describe('the OpenAPI document as /docs renders it', () => {
  it('has no text in angle brackets outside code spans: Markdown would read it as an HTML tag and drop it', () => {
    const found: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (
          (key === 'description' || key === 'summary') &&
          typeof value === 'string' &&
          /<[A-Za-z/!?]/.test(value.replace(/`[^`]*`/g, ''))
        )
          found.push(`${path}/${key}: ${value}`);
        walk(value, `${path}/${key}`);
      }
    };
    walk(buildOpenApi(svc.config), '');
    expect(found).toEqual([]);
  });
});

describe('AssetRegistry', () => {
  it('names a file by its content: other content, other URL; the same content, the same URL', () => {
    const a = new AssetRegistry();
    const one = a.add('x.js', 'one');
    expect(a.add('x.js', 'one').url).toBe(one.url);
    expect(a.add('x.js', 'two').url).not.toBe(one.url);
    expect(a.get(one.url)?.body.toString()).toBe('one');
    expect(() => a.add('x.exe', 'no')).toThrow(/unknown file type/);
  });
});

async function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(svc.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

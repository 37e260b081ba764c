// Property-based fuzzing through a real loopback socket (issue 9, "keep it proven"): request lines,
// headers (names, values with control bytes, duplicates, Host, Expect, content-length, chunking) and
// bodies that no HTTP client library would send reach Node's own parser. Every answer that comes back
// is in the envelope (GraphQL's format on /graphql) with the v1 headers and no 5xx; the server stays up.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portOf, rawExchange, type RawResponse } from '../helpers/raw-http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { batchBody, propertyQuery } from './arbitraries.js';
import { assertFuzz, expectGraphqlAnswer, expectRestAnswer, FUZZ_RUNS, FUZZ_TIMEOUT_MS } from './support.js';

const KEY = 'fuzz_paid_key_0001';
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    socket: 'raw-http',
    env: {
      KEYLESS_BURST: '1000000',
      HEADERS_TIMEOUT_MS: '5000',
      REQUEST_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '0',
    },
    accounts: { paid: { key: KEY, plan: 'paid', included: 1_000_000, overage: true, overageRateUsd: 0.01 } },
  });
});
afterAll(() => svc.close());

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const method = fc.oneof(
  fc.constantFrom('GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE'),
  token,
  fc.constant('G T'),
);
const path = fc.oneof(
  propertyQuery.map((q) => `/v1/portal/property?${q}`),
  fc.constantFrom(
    '/v1/portal/batch',
    '/v1/account',
    '/healthz',
    '/readyz',
    '/graphql?query=%7B__typename%7D',
    '/graphql',
    '/graphql?query=%7B&variables=%7B',
    '/',
    '/#',
    '/docs#top',
    '/graphql#x',
    '*',
    '/v1/portal/property%E0%A4%A',
    '//x',
    '/..%2f',
  ),
  fc.stringMatching(/^\/[\x21-\x7e]{0,40}$/),
);
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', '');
const headerValue = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((v) => v.replace(/[\r\n]/g, '')) },
);
const header = fc.oneof(
  fc.tuple(
    fc.constantFrom(
      'host',
      'x-api-key',
      'content-type',
      'accept',
      'expect',
      'transfer-encoding',
      'connection',
      'content-length',
      'origin',
    ),
    headerValue,
  ),
  fc.constant(['x-api-key', KEY] as [string, string]),
  fc.constant(['expect', '100-continue'] as [string, string]),
  fc.constant(['transfer-encoding', 'chunked'] as [string, string]),
  fc.tuple(token, headerValue),
  fc.tuple(fc.stringMatching(/^[\x21-\x7e ]{0,12}$/), headerValue),
);
const body = fc.oneof(fc.constant(''), batchBody, fc.string({ maxLength: 80 }), fc.constant('5\r\nhello\r\n0\r\n\r\n'));

describe('raw socket fuzz', () => {
  it(`any request line, headers and body through Node's parser (${FUZZ_RUNS} cases)`, {
    timeout: FUZZ_TIMEOUT_MS,
  }, async () => {
    const port = portOf(svc.url);
    let answered = 0;
    await assertFuzz(
      fc.asyncProperty(
        method,
        path,
        version,
        fc.boolean(),
        fc.array(header, { maxLength: 6 }),
        body,
        fc.constantFrom('exact', 'exact', 'none', 'short', 'long'),
        async (m, p, v, withHost, headers, text, length) => {
          const bytes = Buffer.byteLength(text);
          const declared = length === 'exact' ? bytes : length === 'short' ? Math.max(0, bytes - 1) : bytes + 5;
          const lines = [
            `${m} ${p} ${v}`.trimEnd(),
            ...(withHost ? ['Host: fuzz'] : []),
            ...headers.map(([k, val]) => `${k}: ${val}`),
            ...(length === 'none' ? [] : [`content-length: ${declared}`]),
            'Connection: close',
          ];
          const x = rawExchange(port, `${lines.join('\r\n')}\r\n\r\n${text}`);
          // The client has sent everything: a body shorter than declared ends here, not at a timeout.
          x.socket.on('connect', () => x.socket.end());
          const r = await x.response;
          await x.closed;
          if (r) {
            answered += 1;
            expectAnswer(r, m, p);
          }
        },
      ),
    );
    // Most requests are answered (a half-sent request may only be closed).
    expect(answered).toBeGreaterThan(FUZZ_RUNS / 2);
    const alive = await fetch(`${svc.url}/healthz`);
    expect(alive.status).toBe(200);
  });
});

/** The paths that answer a GET with a page for a person or an agent (src/web, /docs, GraphiQL), not an API answer. */
const PAGE_PATHS: readonly string[] = ['/', '/llms.txt', '/docs'];
const isPage = (path: string, r: RawResponse): boolean =>
  PAGE_PATHS.includes(path) ||
  path.startsWith('/assets/') ||
  // GraphiQL: /graphql answers a client that asks for text/html with the page.
  (path === '/graphql' && /^text\/html/.test(String(r.headers['content-type'] ?? '')));

/** The route a request target names: the router ends the path at a query or a fragment (`GET /#` is `/`). */
const routeOf = (target: string): string => target.split(/[?#]/, 1)[0]!;

function expectAnswer(r: RawResponse, m: string, target: string): void {
  const answer = { status: r.status, headers: r.headers, text: r.text };
  const p = routeOf(target);
  if (m === 'HEAD') {
    // No body; the status and headers still follow the contract.
    expect(r.status).toBeLessThan(500);
    expect(r.headers['x-api-version']).toBe('v1');
    return;
  }
  if (m === 'GET' && r.status === 200 && isPage(p, r)) {
    // The pages for people and agents (src/web): HTML, text, or a static asset, with the v1 headers.
    expect(r.headers['content-type']).toMatch(/^(text\/(html|plain)|application\/json)/);
    expect(r.headers['x-api-version']).toBe('v1');
    return;
  }
  if (p === '/graphql' && r.json && 'errors' in r.json) expectGraphqlAnswer(answer);
  else if (p === '/graphql' && r.json && 'data' in r.json && !('meta' in r.json)) expectGraphqlAnswer(answer);
  else expectRestAnswer(answer);
}

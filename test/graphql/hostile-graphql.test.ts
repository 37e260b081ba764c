// GraphQL abuse without a key (issue 9, items 4 and 5): client mistakes in variables or extensions are
// coded 400s logged below warn; introspection is bounded by the alias and introspection limits before
// validation, answered from a cache, and keyless requests draw on a per-address budget.
import { Writable } from 'node:stream';
import { getIntrospectionQuery } from 'graphql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccounts } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { INTROSPECTION_LIMITS, SHAPE_LIMITS } from '../../src/graphql/limits.js';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore } from '../../src/store/index.js';
import { DEFAULT_ACCOUNTS } from '../helpers/service.js';

type App = Awaited<ReturnType<typeof buildApp>>;
let replay: Awaited<ReturnType<typeof startReplayServer>>;
const logLines: Array<{ level: number; msg?: string }> = [];
let clockMs = Date.parse('2026-01-01T00:00:00Z');

async function service(env: Record<string, string> = {}): Promise<{ app: App; url: string }> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PORTAL_ORIGIN: replay.origin,
    PORTAL_SUGGEST_URL: replay.suggestUrl,
    ...env,
  });
  const store = new MemoryStore();
  await seedAccounts(store, Object.values(DEFAULT_ACCOUNTS), config.apiKeySecret);
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const app = await buildApp({
    config,
    store,
    collector: createCollector(config),
    logger: pino({ level: 'debug' }, sink),
    clock: () => new Date(clockMs),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

let svc: { app: App; url: string };
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  svc = await service();
});
afterAll(async () => {
  await svc.app.close();
  await replay.close();
});

const KEY = DEFAULT_ACCOUNTS.free!.key;

async function send(path: string, init: RequestInit = {}) {
  const res = await fetch(svc.url + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

const postJson = (body: unknown, key: string | null = KEY) =>
  send('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
  });

describe('variables or extensions that are not JSON (item 4)', () => {
  it.each([
    ['GET variables', () => send('/graphql?query=%7B__typename%7D&variables=%7Bnot'), 'variables'],
    ['GET extensions', () => send('/graphql?query=%7B__typename%7D&extensions=abc'), 'extensions'],
    [
      'GET variables with a key',
      () => send('/graphql?query=%7B__typename%7D&variables=abc', { headers: { 'x-api-key': KEY } }),
      'variables',
    ],
    [
      'form-encoded POST',
      () =>
        send('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'query=%7B__typename%7D&variables=abc',
        }),
      'variables or extensions',
    ],
  ] as const)('%s → 400 bad_param naming it, logged below warn', async (_name, request, param) => {
    const from = logLines.length;
    const r = await request();
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions).toMatchObject({
      code: 'bad_param',
      details: { param, reason: 'not valid JSON' },
    });
    expect(r.text).not.toMatch(/SyntaxError|Unexpected token|internal/);
    expect(logLines.slice(from).filter((l) => l.level >= 40)).toEqual([]);
  });
});

describe('introspection is bounded (item 5)', () => {
  const aliased = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `s${i}: __schema { queryType { name } }`).join(' ')} }`;

  it('one __schema per document: 60 aliased __schema without a key are refused before execution', async () => {
    const r = await postJson({ query: aliased(60) }, null);
    expect(r.status).toBe(200); // application/json: a refused document is a 200 with errors (GraphQL over HTTP)
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].extensions).toMatchObject({
      code: 'query_too_complex',
      details: { limit: 'introspection', max: { ...INTROSPECTION_LIMITS } },
    });
    expect(r.text.length).toBeLessThan(1_000);
  });

  it('aliases over the limit are refused before validation runs (no validation message beside the refusal)', async () => {
    // Undefined fields would each be a validation error, if validation ran.
    const query = `{ ${Array.from({ length: SHAPE_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: nope${i}`).join(' ')} }`;
    const r = await postJson({ query });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'query_too_complex', details: { limit: 'maxAliases' } });
  });

  it('without a key, an operation that needs one is refused before validation (401, no validation errors)', async () => {
    const query = `{ ${Array.from({ length: 50 }, (_, i) => `a${i}: nope${i}`).join(' ')} account { used } }`;
    const r = await postJson({ query }, null);
    expect(r.status).toBe(401);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions.code).toBe('missing_api_key');
  });

  it("GraphiQL's introspection query still works without a key, and a repeat gets the same answer", async () => {
    const first = await postJson({ query: getIntrospectionQuery() }, null);
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.__schema.queryType.name).toBe('Query');
    const second = await postJson({ query: getIntrospectionQuery() }, null);
    expect(second.text).toBe(first.text);
  });
});

describe('keyless budget per client address (item 5)', () => {
  it("past the burst: 429 rate_limited with retry-after in GraphQL's format; keyed requests unaffected; refills with time", async () => {
    const tight = await service({ KEYLESS_BURST: '3', KEYLESS_PER_SECOND: '1' });
    try {
      const ask = (key: string | null) =>
        fetch(`${tight.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
      for (let i = 0; i < 3; i += 1) expect((await ask(null)).status).toBe(200);
      const refused = await ask(null);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-api-version')).toBe('v1');
      const body = await refused.json();
      expect(body.errors[0].extensions).toMatchObject({ code: 'rate_limited', retryAfter: 1 });
      expect(body.errors[0].message).toMatch(/without an API key from this address/);
      expect((await ask(KEY)).status).toBe(200);
      clockMs += 1_000;
      expect((await ask(null)).status).toBe(200);
      expect((await ask(null)).status).toBe(429);
    } finally {
      await tight.app.close();
    }
  });
});

describe('every GraphQL error carries a code (found by the fuzz)', () => {
  it.each([
    ['a mutation of no field', { query: 'mutation { x }' }, 'bad_param'],
    ['a subscription', { query: 'subscription { x }' }, 'operation_not_supported'],
    [
      'a null directive argument',
      { query: 'query($f: Boolean = true) { account @skip(if: $f) { used } }', variables: { f: null } },
      'bad_param',
    ],
  ])('%s', async (_name, body, code) => {
    const r = await postJson(body);
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors.map((e: { extensions?: { code?: string } }) => e.extensions?.code)).toEqual([code]);
  });

  it('an empty batched array is a 400 bad_body, not an empty answer', async () => {
    const r = await postJson([]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'bad_body', details: { reason: 'empty array' } });
  });

  it('@defer inside a batched request is a 400 bad_body, not an empty object for that operation', async () => {
    const r = await postJson([{ query: '{ ... @defer { account { used } } }' }, { query: '{ __typename }' }]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({
      code: 'bad_body',
      details: { reason: 'incremental delivery in a batch' },
    });
  });
});

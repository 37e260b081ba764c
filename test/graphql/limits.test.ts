// Abuse limits checked before execution (depth, aliases, tokens, directives: coded query_too_complex
// errors), invalid variables (bad_param), CORS (none), and persisted operations.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPE_LIMITS } from '../../src/graphql/limits.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { gql, postGql } from './client.js';
import { AccountDocument } from '../../src/graphql/operations/generated/graphql.js';
import persisted from '../../src/graphql/operations/generated/persisted-documents.json' with { type: 'json' };

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');

describe('shape limits (graphql-armor), coded', () => {
  const cases: Array<[string, string, keyof typeof SHAPE_LIMITS]> = [
    [
      'too deep',
      `{ ${repeat(SHAPE_LIMITS.maxDepth + 1, () => 'a {')} b ${repeat(SHAPE_LIMITS.maxDepth + 1, () => '}')} }`,
      'maxDepth',
    ],
    ['too many aliases', `{ ${repeat(SHAPE_LIMITS.maxAliases + 1, (i) => `a${i}: account { used }`)} }`, 'maxAliases'],
    ['too many tokens', `{ account { ${repeat(SHAPE_LIMITS.maxTokens, () => 'used')} } }`, 'maxTokens'],
    [
      'too many directives',
      `{ account { used ${repeat(SHAPE_LIMITS.maxDirectives + 1, () => '@include(if: true)')} } }`,
      'maxDirectives',
    ],
  ];

  it.each(cases)('%s → query_too_complex (details.limit), HTTP 400, nothing executed', async (_name, query, limit) => {
    const before = svc.replay.requests.length;
    const r = await postGql(svc, { query });
    expect(r.status).toBe(400);
    const coded = (r.body.errors as Array<{ extensions?: { code?: string; details?: { limit?: string } } }>).filter(
      (e) => e.extensions?.code === 'query_too_complex',
    );
    expect(coded.length).toBeGreaterThan(0);
    expect(coded[0]!.extensions!.details).toEqual({ limit, max: SHAPE_LIMITS[limit] });
    expect(r.body.data).toBeUndefined();
    expect(svc.replay.requests.length).toBe(before);
  });

  it('under the limits, the same shapes run', async () => {
    const r = await postGql(svc, { query: `{ ${repeat(SHAPE_LIMITS.maxAliases, (i) => `a${i}: account { used }`)} }` });
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
  });

  it("a body over 1 MiB is refused with 413 and REST's code for a large body (bad_body)", async () => {
    const r = await postGql(svc, { query: '{ account { used } }', variables: { pad: 'x'.repeat(1024 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      errors: [
        {
          message: 'The request body is larger than 1 MB.',
          extensions: { code: 'bad_body', details: { reason: 'body is larger than 1 MB' } },
        },
      ],
    });
  });

  // A body without content-length (chunked) is counted as it streams: the limit holds for it too.
  const chunked = (text: string) =>
    svc.fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': svc.keys.free! },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < text.length; i += 64 * 1024)
            c.enqueue(new TextEncoder().encode(text.slice(i, i + 64 * 1024)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);

  it('a chunked body over 1 MiB (no content-length) is refused the same way', async () => {
    const res = await chunked(
      JSON.stringify({ query: '{ account { used } }', variables: { pad: 'x'.repeat(1024 * 1024) } }),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      errors: [
        {
          message: 'The request body is larger than 1 MB.',
          extensions: { code: 'bad_body', details: { reason: 'body is larger than 1 MB' } },
        },
      ],
    });
  });

  it('a chunked body under the limit runs', async () => {
    const res = await chunked(
      JSON.stringify({ query: '{ account { used } }', variables: { pad: 'x'.repeat(200 * 1024) } }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
  });

  it('introspection (GraphiQL, codegen) is not limited by depth', async () => {
    const query = `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } }`;
    const r = await postGql(svc, { query }, { key: null });
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
  });
});

describe('variables the executor cannot coerce', () => {
  it.each([
    ['a number for a String', 'query($z: String) { property(zpid: $z) { __typename } }', { z: 123 }],
    ['a required variable left out', 'query($z: String!) { property(zpid: $z) { __typename } }', {}],
    [
      'a LookupItem with an unknown key',
      'query($i: [LookupItem!]!) { properties(items: $i) { meta { count } } }',
      { i: [{ zip: '1' }] },
    ],
  ])('%s → bad_param naming the variable, HTTP 400, nothing executed', async (_name, query, variables) => {
    const before = svc.replay.requests.length;
    const r = await postGql(svc, { query, variables });
    expect(r.status).toBe(400);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors.length).toBeGreaterThan(0);
    for (const e of r.body.errors) {
      expect(e.message).toMatch(/^Variable "\$[iz]"/);
      expect(e.locations).toEqual([{ line: 1, column: 7 }]);
      expect(e.extensions).toEqual({ code: 'bad_param', details: { param: query.slice(6, 8) } });
    }
    expect(svc.replay.requests.length).toBe(before);
  });
});

describe('CORS: none, as on REST', () => {
  const origin = 'https://elsewhere.example';

  it('a cross-origin request gets no access-control-allow-* headers', async () => {
    const r = await postGql(svc, { query: '{ account { used } }' }, { headers: { origin } });
    expect(r.status).toBe(200);
    expect([...r.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('a preflight is not granted', async () => {
    const r = await svc.fetch(`${svc.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-api-key',
      },
    });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.headers.get('access-control-allow-headers')).toBeNull();
    // /graphql answers GET and POST only; OPTIONS gets the server's 405, as every REST route does.
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST');
    expect((await r.json()).error.code).toBe('method_not_allowed');
  });
});

describe('persisted operations', () => {
  const hashOf = (doc: { __meta__?: { hash?: string } }) => doc.__meta__!.hash!;

  it('a known sha256 hash runs its stored document', async () => {
    const hash = hashOf(AccountDocument as never);
    expect(Object.keys(persisted)).toContain(hash);
    const r = await postGql(svc, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(r.status).toBe(200);
    expect(r.body.data.account.plan).toBe('free');
  });

  it('an unknown hash is refused, coded', async () => {
    const r = await postGql(svc, { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('persisted_query_not_found');
  });

  it('arbitrary documents stay allowed (ordinary clients, GraphiQL)', async () => {
    const { account } = await gql(svc).request(AccountDocument);
    expect(account.plan).toBe('free');
    const r = await postGql(svc, { query: print(AccountDocument) });
    expect(r.body.data.account.plan).toBe('free');
  });
});

// Abuse limits checked before execution (depth, aliases, tokens, directives: coded query_too_complex
// errors), and persisted operations.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPE_LIMITS } from '../../src/graphql/plugins/use-armor.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { gql, postGql } from './client.js';
import { AccountDocument } from './gql/graphql.js';
import persisted from './gql/persisted-documents.json' with { type: 'json' };

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
    ['too many directives', `{ account { used ${repeat(SHAPE_LIMITS.maxDirectives + 1, () => '@include(if: true)')} } }`, 'maxDirectives'],
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

  it('a body over 1 MiB is refused with 413, as REST refuses a large batch body', async () => {
    const r = await postGql(svc, { query: '{ account { used } }', variables: { pad: 'x'.repeat(1024 * 1024) } });
    expect(r.status).toBe(413);
  });

  it('introspection (GraphiQL, codegen) is not limited by depth', async () => {
    const query = `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } }`;
    const r = await postGql(svc, { query }, { key: null });
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
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

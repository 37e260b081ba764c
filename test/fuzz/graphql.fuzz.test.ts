// Property-based fuzzing of the GraphQL face (issue 9, "keep it proven"): documents built from the
// schema (aliases, fragments, directives, variables, damaged or not) and garbage, any variables and
// extensions, over every transport (POST JSON, GET, form-encoded, application/graphql, batched arrays)
// and accept header. Every answer is in GraphQL's format, never a 5xx, and each error's code is one of
// the table's (src/contract/errors.ts), never a framework's own (BAD_REQUEST, GRAPHQL_PARSE_FAILED, …).
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { accept, apiKey, document, variables } from './arbitraries.js';
import { assertFuzz, expectGraphqlAnswer, FUZZ_RUNS, FUZZ_TIMEOUT_MS } from './support.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    // Keyless requests are fuzzed too: a budget large enough that the fuzz explores past it rarely.
    env: { KEYLESS_BURST: '1000000', RATE_LIMIT_PER_MINUTE: '0' },
    accounts: {
      paid: { key: 'fuzz_paid_key_0001', plan: 'paid', included: 1_000_000, overage: true, overageRateUsd: 0.01 },
    },
  });
});
afterAll(() => svc.close());

const transport = fc.constantFrom('post-json', 'get', 'post-form', 'post-graphql', 'batched', 'batched-any');
/** An operation of a batched body that may be anything JSON (`null`, a number, an array), not only an object. */
const anyOperation = fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
const extensions = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant({ persistedQuery: { version: 1, sha256Hash: 'abc' } }),
);
/** An operationName: none, a name that may or may not be in the document, or any JSON (only a string is right). */
const operationName = fc.oneof(fc.constant(undefined), fc.constantFrom('Q', 'A', ''), fc.jsonValue({ maxDepth: 1 }));
/** Variables or extensions as sent in a query string or form: JSON, or not. */
const asParam = (v: unknown, broken: boolean): string | undefined =>
  v === undefined ? undefined : broken ? JSON.stringify(v).slice(1) : JSON.stringify(v);

describe('GraphQL fuzz', () => {
  it(`any document, variables and extensions over any transport (${FUZZ_RUNS} cases)`, {
    timeout: FUZZ_TIMEOUT_MS,
  }, async () => {
    await assertFuzz(
      fc.asyncProperty(
        document,
        variables,
        extensions,
        transport,
        accept,
        fc.option(apiKey(['fuzz_paid_key_0001']), { nil: undefined }),
        fc.boolean(),
        anyOperation,
        operationName,
        async (query, vars, ext, how, acceptHeader, key, broken, junk, opName) => {
          const headers: Record<string, string> = {
            ...(key === undefined ? {} : { 'x-api-key': key }),
            ...(acceptHeader === undefined ? {} : { accept: acceptHeader }),
          };
          const params = new URLSearchParams({ query });
          const v = asParam(vars, broken);
          const e = asParam(ext, broken);
          if (v !== undefined) params.set('variables', v);
          if (e !== undefined) params.set('extensions', e);
          if (opName !== undefined)
            params.set('operationName', typeof opName === 'string' ? opName : JSON.stringify(opName));
          const request: InjectOptions =
            how === 'get'
              ? { method: 'GET', url: `/graphql?${params}`, headers }
              : how === 'post-form'
                ? {
                    method: 'POST',
                    url: '/graphql',
                    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
                    payload: params.toString(),
                  }
                : how === 'post-graphql'
                  ? {
                      method: 'POST',
                      url: '/graphql',
                      headers: { ...headers, 'content-type': 'application/graphql' },
                      payload: query,
                    }
                  : {
                      method: 'POST',
                      url: '/graphql',
                      headers: { ...headers, 'content-type': 'application/json' },
                      payload: JSON.stringify(
                        how === 'batched'
                          ? [{ query, variables: vars }, { query: '{ __typename }' }]
                          : how === 'batched-any'
                            ? [junk, { query, variables: vars }]
                            : { query, variables: vars, extensions: ext, operationName: opName },
                      ),
                    };
          const r = await svc.app.inject(request);
          // Printed as it happens: a failure that does not happen again when fast-check replays the case
          // (one seen under heavy load) leaves no counterexample otherwise.
          if (r.statusCode >= 500 || r.body.includes('"code":"internal"')) {
            console.error(`GraphQL fuzz: ${r.statusCode} for ${JSON.stringify(request)}\nanswer: ${r.body}`);
          }
          // A browser's GET may be answered with GraphiQL; the generated accept headers never ask for HTML.
          expectGraphqlAnswer({ status: r.statusCode, headers: r.headers, text: r.body });
        },
      ),
    );
    const alive = await svc.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: '{"query":"{ __typename }"}',
    });
    expect(alive.statusCode).toBe(200);
  });
});

// GraphQL's own codes come from the one error table (src/contract/errors.ts) like every other: the
// HTTP status, how the accept header bears on it (graphqlHttp), and the default message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, REST_ERROR_CODES, type ErrorCode } from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { postGql } from './client.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const GRAPHQL_JSON = 'application/graphql-response+json';

// [code, a request that gets it, whether the table's default message is the one sent]
const CASES: Array<[ErrorCode, unknown, boolean]> = [
  ['query_too_complex', { query: `{ ${'a { '.repeat(12)}b${' }'.repeat(12)} }` }, false],
  ['persisted_query_not_found', { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } }, true],
  ['missing_query', { variables: {} }, true],
  ['operation_not_supported', { query: 'subscription { x }' }, false],
];

describe("GraphQL's own codes", () => {
  it('are exactly the entries of the table that REST never answers with', () => {
    const graphqlOnly = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
      (c) => !(REST_ERROR_CODES as string[]).includes(c),
    );
    expect(graphqlOnly.sort()).toEqual(CASES.map(([c]) => c).sort());
  });

  it.each(CASES)('%s: the status and accept rule of the table', async (code, body, defaultMessage) => {
    const entry = ERROR_CODES[code] as { status: number; message: string; graphqlHttp?: 'request' | 'response' };
    const spec = await postGql(svc, body, { headers: { accept: GRAPHQL_JSON } });
    expect(spec.body.errors[0].extensions.code).toBe(code);
    expect(spec.status).toBe(entry.status);
    if (defaultMessage) expect(spec.body.errors[0].message).toBe(entry.message);

    const legacy = await postGql(svc, body, { headers: { accept: 'application/json' } });
    expect(legacy.body.errors[0].extensions.code).toBe(code);
    // `request`: like a validation error, 200 under application/json; `response`: the status whatever the accept.
    expect(legacy.status).toBe(entry.graphqlHttp === 'request' ? 200 : entry.status);
  });
});

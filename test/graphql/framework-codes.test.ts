// GraphQL answers carry only codes from the one error table (src/contract/errors.ts): the refusals
// Yoga, envelop and graphql-js make themselves (BAD_REQUEST, OPERATION_RESOLUTION_FAILURE,
// GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, a code-less parser error) reach a client with the
// table's code, and with the status the GraphQL-over-HTTP audit expects for each accept header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { ERROR_CODES } from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const JSON_ACCEPT = 'application/json';
const GRAPHQL_JSON = 'application/graphql-response+json';

const post = (payload: string, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST',
  url: '/graphql',
  headers: { 'content-type': 'application/json', ...headers },
  payload,
});
const get = (query: Record<string, string>): InjectOptions => ({
  method: 'GET',
  url: `/graphql?${new URLSearchParams(query)}`,
});

interface Case {
  name: string;
  request: InjectOptions;
  code: keyof typeof ERROR_CODES;
  /** The status under application/json, then under application/graphql-response+json. */
  status: [number, number];
  details?: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'a query that is a number',
    request: post('{"query":1}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'query', reason: 'number, not string' },
  },
  {
    name: 'variables that are a number',
    request: post('{"query":"{ __typename }","variables":1}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'variables', reason: 'number, not object' },
  },
  {
    name: 'variables that are an array',
    request: post('{"query":"{ __typename }","variables":[1]}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'variables', reason: 'array, not object' },
  },
  {
    name: 'extensions that are a string',
    request: post('{"query":"{ __typename }","extensions":"x"}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'extensions', reason: 'string, not object' },
  },
  {
    name: 'an operationName that is a number',
    request: post('{"query":"{ __typename }","operationName":1}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'operationName', reason: 'number, not string' },
  },
  {
    name: 'an operationName that is an object',
    request: post('{"query":"{ __typename }","operationName":{}}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'operationName', reason: 'object, not string' },
  },
  {
    name: 'an operationName naming no operation',
    request: post('{"query":"query A { __typename }","operationName":"B"}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'operationName' },
  },
  {
    name: 'two operations and no operationName',
    request: post('{"query":"query A { __typename } query B { __typename }"}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'operationName' },
  },
  {
    name: 'an operationName naming no operation, by GET',
    request: get({ query: 'query A { __typename }', operationName: 'B' }),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'operationName' },
  },
  {
    name: 'an unknown parameter',
    request: post('{"query":"{ __typename }","foo":1}'),
    code: 'bad_param',
    status: [400, 400],
    details: { param: 'foo', reason: 'unknown parameter' },
  },
  { name: 'a body that is a number', request: post('1'), code: 'bad_body', status: [400, 400] },
  { name: 'a body that is a string', request: post('"x"'), code: 'bad_body', status: [400, 400] },
  { name: 'a body that is not JSON', request: post('{"query":'), code: 'bad_body', status: [400, 400] },
  {
    name: 'a multipart form whose operations are not JSON',
    request: {
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\nnope\r\n--x--\r\n',
    },
    code: 'bad_body',
    status: [400, 400],
  },
  // A document that does not parse or fit the schema: 200 under application/json (GraphQL over HTTP).
  {
    name: 'a document that does not parse',
    request: post('{"query":"{"}'),
    code: 'bad_param',
    status: [200, 400],
    details: { param: 'query', reason: 'not a GraphQL document' },
  },
  {
    name: 'a document that does not parse, by GET',
    request: get({ query: '{' }),
    code: 'bad_param',
    status: [200, 400],
    details: { param: 'query', reason: 'not a GraphQL document' },
  },
  {
    name: 'a field the schema does not have',
    request: post('{"query":"{ nope }"}'),
    code: 'bad_param',
    status: [200, 400],
    details: { param: 'query', reason: 'does not fit the schema' },
  },
  {
    name: 'a variable never used',
    request: post('{"query":"query ($a: String) { __typename }"}'),
    code: 'bad_param',
    status: [200, 400],
    details: { param: 'query', reason: 'does not fit the schema' },
  },
  {
    name: 'a mutation by GET',
    request: get({ query: 'mutation { x }' }),
    code: 'method_not_allowed',
    status: [405, 405],
    details: { allowed: ['POST'] },
  },
];

describe('framework refusals answer with codes from the table', () => {
  for (const c of CASES) {
    it.each([
      [JSON_ACCEPT, c.status[0]],
      [GRAPHQL_JSON, c.status[1]],
    ])(`${c.name} (accept %s): ${c.code}, %i`, async (accept, status) => {
      const r = await svc.app.inject({
        ...c.request,
        headers: { ...c.request.headers, 'x-api-key': svc.keys.free!, accept },
      });
      expect(r.statusCode, r.body).toBe(status);
      const body = r.json();
      expect(body.errors, r.body).toHaveLength(1);
      const [error] = body.errors;
      expect(error.extensions.code, r.body).toBe(c.code);
      if (c.details) expect(error.extensions.details, r.body).toMatchObject(c.details);
      // Only the code and its details: no framework code or parser message beside them.
      expect(Object.keys(error.extensions).sort(), r.body).toEqual(c.details ? ['code', 'details'] : ['code']);
      expect(r.body).not.toMatch(
        /originalError|SyntaxError|BAD_REQUEST|OPERATION_RESOLUTION_FAILURE|GRAPHQL_(PARSE|VALIDATION)_FAILED/,
      );
    });
  }

  it('a batched request: each operation with a bad parameter gets its own coded error, the others run', async () => {
    const r = await svc.app.inject(
      post('[{"query":1},{"query":"{ __typename }","operationName":2},{"query":"{ __typename }"}]', {
        'x-api-key': svc.keys.free!,
      }),
    );
    expect(r.statusCode, r.body).toBe(200);
    const [query, operationName, fine] = r.json();
    expect(query.errors[0].extensions).toMatchObject({ code: 'bad_param', details: { param: 'query' } });
    expect(operationName.errors[0].extensions).toMatchObject({
      code: 'bad_param',
      details: { param: 'operationName' },
    });
    expect(fine).toEqual({ data: { __typename: 'Query' } });
  });

  it('a refusal repeated for the same cached document keeps its code', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await svc.app.inject(
        post('{"query":"{ nope }"}', { accept: GRAPHQL_JSON, 'x-api-key': svc.keys.free! }),
      );
      expect(r.json().errors[0].extensions.code, r.body).toBe('bad_param');
    }
  });
});

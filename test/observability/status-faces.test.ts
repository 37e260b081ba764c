// The public figures on every face (issue 23): GraphQL's serviceStatus and MCP's service_status answer
// GET /v1/status's data after a few lookups, GraphQL's in camelCase (its typed operation selects every field), without an API key (an operation
// asking only serviceStatus and introspection needs none; one asking anything else still does).
import { print } from 'graphql';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toGraphqlName } from '../../src/graphql/typebox.js';
import { ServiceStatusDocument } from '../../src/graphql/operations/generated/graphql.js';
import { MemoryStore } from '../../src/store/index.js';
import { gql, postGql } from '../graphql/client.js';
import { startTestService, type TestService } from '../helpers/service.js';

const KEY = 'test_status_faces_key_01';
const ACCOUNTS = { paid: { key: KEY, plan: 'paid' as const, included: 100 } };

/** REST's names as GraphQL's (the contract's mapping); by_code is a map (JSON), its error codes kept. */
const camel = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [toGraphqlName(k), k === 'by_code' ? v : camel(v)]));
};

/** The figures but when they were read (a read is kept a few seconds: two faces may straddle a new one). */
const figures = (data: Record<string, unknown>) => ({ ...data, generated_at: undefined, generatedAt: undefined });

describe('the public figures on GraphQL and MCP', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ store: new MemoryStore(), accounts: ACCOUNTS });
  });
  afterAll(() => svc?.close());

  it('answer the data of GET /v1/status, GraphQL without a key', async () => {
    expect((await svc.get('/v1/portal/property?zpid=2146993218', KEY)).status).toBe(200);
    expect((await svc.get('/v1/portal/property?zpid=2146993218', KEY)).status).toBe(200);
    expect((await svc.get('/v1/portal/property?zpid=12x', KEY)).status).toBe(400);
    const rest = (await svc.get('/v1/status', null)).body.data;
    expect(rest.last_hour).toMatchObject({ lookups: 3, found: 2, errors: { total: 1, by_code: { bad_param: 1 } } });

    // GraphQL, the typed operation, no key.
    const typed = await gql(svc, null).request(ServiceStatusDocument);
    expect(figures(typed.serviceStatus)).toEqual(figures(camel(rest) as Record<string, unknown>));
    expect(Date.parse(typed.serviceStatus.generatedAt)).not.toBeNaN();
    // A wrong key changes nothing, as on REST: none is read.
    const wrongKey = await postGql(svc, { query: print(ServiceStatusDocument) }, { key: 'not-a-key' });
    expect(wrongKey.status).toBe(200);
    expect(figures(wrongKey.body.data.serviceStatus)).toEqual(figures(camel(rest) as Record<string, unknown>));
    // With introspection too: still keyless; with anything else: the key is needed.
    const withTypename = await postGql(
      svc,
      { query: '{ __typename serviceStatus { lastHour { lookups } } }' },
      { key: null },
    );
    expect(withTypename.body).toEqual({ data: { __typename: 'Query', serviceStatus: { lastHour: { lookups: 3 } } } });
    const mixed = await postGql(svc, { query: '{ serviceStatus { generatedAt } account { plan } }' }, { key: null });
    expect(mixed.body.errors[0].extensions.code).toBe('missing_api_key');

    // MCP over HTTP (the endpoint takes a key, as every MCP request does).
    const client = new Client({ name: 'status-faces-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': KEY } },
        fetch: svc.fetch,
      }),
    );
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'service_status');
      expect(tool?.annotations?.readOnlyHint).toBe(true);
      const r = (await client.callTool({ name: 'service_status', arguments: {} })) as CallToolResult & {
        structuredContent: { data: Record<string, unknown> };
      };
      expect(r.isError).toBeFalsy();
      expect(figures(r.structuredContent.data)).toEqual(figures(rest));
    } finally {
      await client.close();
    }
    // None of it was billed.
    expect((await svc.get('/v1/account', KEY)).body.data.used).toBe(1);
  });
});

// The API key as `Authorization: Bearer <key>` wherever `x-api-key` is read (issue 24): REST, GraphQL and
// MCP over HTTP answer a Bearer caller as they answer the same key in x-api-key; both headers with different
// keys are 400 bad_param naming them, the same key in both is fine; an Authorization that is no Bearer token
// is 401 missing_api_key saying how to send the key; the keyless GraphQL budget counts a Bearer key as a key;
// GraphiQL opens with the header to fill in and no key.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyFrom, sendsApiKey } from '../../src/accounts/index.js';
import { GRAPHIQL_HEADERS } from '../../src/graphql/graphiql.js';
import { postGql } from '../graphql/client.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ZPID = '114303858';
let svc: TestService;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  // On a socket: MCP's client streams.
  svc = await startTestService({ socket: 'streaming' });
  key = svc.keys.paid!;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await svc?.close();
});

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

async function rest(path: string, headers: Record<string, string>) {
  const res = await svc.fetch(svc.url + path, { headers });
  return { status: res.status, body: await res.json() };
}

describe('apiKeyFrom: the one reader of the key, for Fastify and fetch headers alike', () => {
  const cases: [string, Record<string, string>, string | undefined | RegExp][] = [
    ['x-api-key alone', { 'x-api-key': 'k1' }, 'k1'],
    ['Bearer alone', { authorization: 'Bearer k1' }, 'k1'],
    ['bearer in lower case, spaces around', { authorization: 'bearer   k1  ' }, 'k1'],
    ['both, the same key', { 'x-api-key': 'k1', authorization: 'Bearer k1' }, 'k1'],
    ['both, different keys', { 'x-api-key': 'k1', authorization: 'Bearer k2' }, /bad_param/],
    ['Basic alone', { authorization: 'Basic dXNlcjpwdw==' }, /missing_api_key/],
    ['Bearer with no token', { authorization: 'Bearer' }, /missing_api_key/],
    ['Bearer with two tokens', { authorization: 'Bearer a b' }, /missing_api_key/],
    ['Basic beside x-api-key: the x-api-key', { 'x-api-key': 'k1', authorization: 'Basic dXNlcjpwdw==' }, 'k1'],
    ['an empty x-api-key beside Bearer: the Bearer key', { 'x-api-key': ' ', authorization: 'Bearer k2' }, 'k2'],
    ['neither', {}, undefined],
    ['an empty x-api-key', { 'x-api-key': '' }, undefined],
  ];
  it.each(cases)('%s', (_name, headers, expected) => {
    for (const form of [headers, new Headers(headers)]) {
      if (expected instanceof RegExp) {
        expect(() => apiKeyFrom(form)).toThrow(expect.objectContaining({ code: expect.stringMatching(expected) }));
        expect(sendsApiKey(form)).toBe(false);
      } else {
        expect(apiKeyFrom(form)).toBe(expected);
        expect(sendsApiKey(form)).toBe(expected !== undefined);
      }
    }
  });
});

describe('REST', () => {
  it('a lookup with Bearer answers as with x-api-key (the same home, billed to the same account)', async () => {
    const before = (await rest('/v1/account', { 'x-api-key': key })).body.data.used;
    const viaHeader = await rest(`/v1/portal/property?zpid=${ZPID}&max_age=0`, { 'x-api-key': key });
    const viaBearer = await rest(`/v1/portal/property?zpid=${ZPID}&max_age=0`, bearer(key));
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.status).toBe(200);
    // Both read live (max_age=0): the same record, read at another moment.
    expect({ ...viaBearer.body.data, scrapedAt: null }).toEqual({ ...viaHeader.body.data, scrapedAt: null });
    expect(viaBearer.body.meta.credits).toBe(viaHeader.body.meta.credits);
    const account = await rest('/v1/account', bearer(key));
    expect(account.status).toBe(200);
    expect(account.body.data.used).toBe(before + viaHeader.body.meta.credits + viaBearer.body.meta.credits);
    expect(account.body.data).toEqual((await rest('/v1/account', { 'x-api-key': key })).body.data);
  });

  it('the other routes that take a key take Bearer too: jobs, watches, batch', async () => {
    expect((await rest('/v1/portal/jobs', bearer(key))).status).toBe(200);
    expect((await rest('/v1/portal/watches', bearer(key))).status).toBe(200);
    const batch = await svc.post('/v1/portal/batch', { items: [{ zpid: ZPID }] }, null, bearer(key));
    expect(batch.status).toBe(200);
    expect(batch.body.data[0].ok).toBe(true);
  });

  it('both headers with different keys: 400 bad_param naming both, on every route; the same key in both is fine', async () => {
    const conflict = { 'x-api-key': key, ...bearer(svc.keys.free!) };
    for (const path of [`/v1/portal/property?zpid=${ZPID}`, '/v1/account', '/v1/portal/jobs', '/v1/portal/watches']) {
      const r = await rest(path, conflict);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code, path).toBe('bad_param');
      expect(r.body.error.details, path).toEqual({ headers: ['x-api-key', 'authorization'], reason: 'different keys' });
    }
    expect((await rest(`/v1/portal/property?zpid=${ZPID}`, { 'x-api-key': key, ...bearer(key) })).status).toBe(200);
  });

  it('no key, a malformed Authorization, an unknown Bearer key: 401 with messages naming both ways', async () => {
    const none = await rest('/v1/account', {});
    expect(none.status).toBe(401);
    expect(none.body.error).toEqual({
      code: 'missing_api_key',
      message: 'Send your API key in the x-api-key header or as Authorization: Bearer <key>.',
    });
    for (const authorization of ['Basic dXNlcjpwdw==', 'Bearer', 'Token abc']) {
      const r = await rest(`/v1/portal/property?zpid=${ZPID}`, { authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body.error.code).toBe('missing_api_key');
      expect(r.body.error.message).toMatch(/not Bearer <key>.*x-api-key header or as Authorization: Bearer <key>/);
      expect(r.body.error.details).toEqual({ header: 'authorization', reason: 'not a Bearer credential' });
    }
    // Beside a good x-api-key, another scheme's Authorization (a proxy's) is left alone.
    expect((await rest('/v1/account', { 'x-api-key': key, authorization: 'Basic dXNlcjpwdw==' })).status).toBe(200);
    const unknown = await rest('/v1/account', bearer('nope_nope_nope'));
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
  });
});

describe('GraphQL', () => {
  const QUERY = `{ property(zpid: "${ZPID}") { __typename ... on PropertyLookup { data { zpid price address } } } account { plan } }`;

  it('an operation with Bearer answers as with x-api-key', async () => {
    const viaHeader = await postGql(svc, { query: QUERY }, { key });
    const viaBearer = await postGql(svc, { query: QUERY }, { key: null, headers: bearer(key) });
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.errors).toBeUndefined();
    expect(viaBearer.body.data).toEqual(viaHeader.body.data);
    expect(viaBearer.body.data.property.data.zpid).toBe(ZPID);
    const batched = await postGql(svc, [{ query: QUERY }, { query: '{ account { plan } }' }], {
      key: null,
      headers: bearer(key),
    });
    expect(batched.status).toBe(200);
    expect(batched.body[1].data.account.plan).toBe('paid');
  });

  it('different keys in the two headers: 400 bad_param; a malformed Authorization alone: 401 missing_api_key', async () => {
    const conflict = await postGql(svc, { query: QUERY }, { key, headers: bearer(svc.keys.free!) });
    expect(conflict.status).toBe(400);
    expect(conflict.body.errors[0].extensions).toMatchObject({
      code: 'bad_param',
      details: { headers: ['x-api-key', 'authorization'] },
    });
    const basic = await postGql(svc, { query: QUERY }, { key: null, headers: { authorization: 'Basic eDp5' } });
    expect(basic.status).toBe(401);
    expect(basic.body.errors[0].extensions.code).toBe('missing_api_key');
    expect(basic.body.errors[0].message).toMatch(/Authorization: Bearer <key>/);
  });

  it('the keyless budget: a Bearer key is a key; an empty x-api-key (GraphiQL before one is entered) is none', async () => {
    const tight = await startTestService({ env: { KEYLESS_BURST: '1', KEYLESS_PER_SECOND: '1' } });
    try {
      const ask = (headers: Record<string, string>) =>
        postGql(tight, { query: '{ __typename }' }, { key: null, headers });
      expect((await ask({})).status).toBe(200);
      expect((await ask({})).status).toBe(429);
      expect((await ask({ 'x-api-key': '' })).status).toBe(429);
      expect((await ask({ authorization: 'Basic eDp5' })).status).toBe(429);
      expect((await ask(bearer(tight.keys.free!))).status).toBe(200);
      expect((await ask({ 'x-api-key': tight.keys.free! })).status).toBe(200);
    } finally {
      await tight.close();
    }
  });

  it("GraphiQL's page opens with the x-api-key header to fill in, no key prefilled", async () => {
    const res = await svc.fetch(`${svc.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const page = await res.text();
    const config = JSON.parse(/<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(page)![1]!);
    expect(config.options.headers).toBe(GRAPHIQL_HEADERS);
    expect(JSON.parse(config.options.headers)).toEqual({ 'x-api-key': '' });
    expect(config.options.shouldPersistHeaders).toBe(false);
    for (const k of Object.values(svc.keys)) expect(page).not.toContain(k);
    expect(config.options.defaultQuery).toMatch(/Authorization": "Bearer/);
  });
});

describe('MCP over HTTP', () => {
  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'bearer-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  it('a lookup with Bearer answers as with x-api-key', async () => {
    const viaHeader = await connect({ 'x-api-key': key });
    const viaBearer = await connect(bearer(key));
    const args = { name: 'lookup_property', arguments: { zpid: ZPID } };
    const a = (await viaHeader.callTool(args)) as { structuredContent: any; isError?: boolean };
    const b = (await viaBearer.callTool(args)) as { structuredContent: any; isError?: boolean };
    expect(b.isError).toBeFalsy();
    expect(b.structuredContent.data).toEqual(a.structuredContent.data);
    const usage = (await viaBearer.callTool({ name: 'account_usage', arguments: {} })) as { structuredContent: any };
    expect(usage.structuredContent.plan ?? usage.structuredContent.data?.plan).toBe('paid');
  });

  it('different keys in the two headers: 400 bad_param in the envelope, before any MCP message is read', async () => {
    const res = await svc.fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'x-api-key': key,
        ...bearer(svc.keys.free!),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'bad_param', details: { headers: ['x-api-key', 'authorization'] } });
  });
});

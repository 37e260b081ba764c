// The MCP server over streamable HTTP at /mcp, called with the SDK's own client through a real socket:
// the tools it lists, and each tool's answers by value against the same core as REST (billing, cache,
// error codes).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPERTY_FIELDS } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { startGatedProxy } from '../helpers/gated-proxy.js';
import { COMPACT_FIELDS } from '../../src/mcp/tools.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { VERSION } from '../../src/version.js';

let svc: TestService;
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
  );
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: any };

/** A tool's answer is its JSON twice: as text for any client, and as structured content. */
function expectBothForms(r: CallToolResult & { structuredContent: any }): void {
  const text = r.content[0];
  expect(text?.type).toBe('text');
  expect(JSON.parse((text as { text: string }).text)).toEqual(r.structuredContent);
}

const usedOf = async (name: string): Promise<number> => (await svc.get('/v1/account', svc.keys[name])).body.data.used;

beforeAll(async () => {
  svc = await startTestService({ socket: 'streaming' });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await svc.close();
});

describe('tools/list', () => {
  it('lists the tools with their JSON Schemas', async () => {
    const client = await connect(svc.keys.free!);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'account_charges',
      'account_usage',
      'lookup_properties',
      'lookup_property',
      'property_history',
      'service_status',
      'webhook_deliveries',
    ]);
    const one = tools.find((t) => t.name === 'lookup_property')!;
    expect(Object.keys(one.inputSchema.properties ?? {}).sort()).toEqual([
      'address',
      'full',
      'max_age',
      'stale',
      'status',
      'url',
      'zpid',
    ]);
    // The contract's own input schemas (contract/inputs.ts), as OpenAPI declares them.
    const props = one.inputSchema.properties as any;
    expect(props.status.anyOf.map((s: { const: string }) => s.const)).toEqual(['for_sale', 'sold', 'for_rent']);
    expect(props.zpid).toMatchObject({ type: 'string', pattern: '^\\d{1,12}$' });
    expect(props.address).toMatchObject({
      type: 'string',
      minLength: expect.any(Number),
      maxLength: expect.any(Number),
    });
    expect(props.full.type).toBe('boolean');
    const many = tools.find((t) => t.name === 'lookup_properties')!;
    const items = (many.inputSchema.properties as any).items;
    expect(items).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    expect(items.items.anyOf.map((s: any) => s.type)).toEqual(['string', 'object', 'object', 'object']);
    expect(JSON.stringify(items)).not.toContain('$id');
    expect(one.annotations?.readOnlyHint).toBe(true);
    // The cache lifetime agents are told is the configured one (CACHE_TTL_MS, 24 h by default).
    expect(one.description).toContain('in the last 24 h is served from the cache');
    expect(client.getInstructions()).toContain('homes read in the last 24 h are free');
  });
});

describe('lookup_property', () => {
  it('a live lookup: the compact home, billed once; the second call is a cache hit for 0 credits', async () => {
    const client = await connect(svc.keys.free!);
    const before = await usedOf('free');
    const first = await call(client, 'lookup_property', { zpid: '114303858' });
    expect(first.isError).toBeFalsy();
    expectBothForms(first);
    expect(first.structuredContent.data.zpid).toBe('114303858');
    expect(first.structuredContent.data.homeStatus).toBe('RECENTLY_SOLD');
    expect(Object.keys(first.structuredContent.data).sort()).toEqual([...COMPACT_FIELDS].sort());
    expect(first.structuredContent.meta).toMatchObject({ credits: 1, cached: false });
    expect(Object.keys(first.structuredContent.meta).sort()).toEqual(['cached', 'credits', 'fetched_at']);

    const second = await call(client, 'lookup_property', { zpid: '114303858' });
    expect(second.structuredContent.meta).toMatchObject({
      credits: 0,
      cached: true,
      fetched_at: first.structuredContent.meta.fetched_at,
    });
    expect(second.structuredContent.data).toEqual(first.structuredContent.data);
    expect(await usedOf('free')).toBe(before + 1);
    // The same cache as REST: the home is a hit there too.
    const rest = await svc.get('/v1/portal/property?zpid=114303858');
    expect(rest.headers.get('x-cache')).toBe('HIT');
    expect(rest.body.data.price).toBe(first.structuredContent.data.price);
  });

  it('full: true gives the whole record and meta, as REST does', async () => {
    const client = await connect(svc.keys.free!);
    const r = await call(client, 'lookup_property', { zpid: '114303858', full: true });
    const rest = await svc.get('/v1/portal/property?zpid=114303858');
    expect(Object.keys(r.structuredContent.data).sort()).toEqual([...PROPERTY_FIELDS].sort());
    expect(r.structuredContent.data).toEqual(rest.body.data);
    expect(r.structuredContent.meta).toMatchObject({
      credits: 0,
      cached: true,
      cache_key: 'zpid:114303858',
      source: rest.body.meta.source,
    });
  });

  it('bad input is an MCP tool error with the spec code and message, never billed', async () => {
    const client = await connect(svc.keys.free!);
    const before = await usedOf('free');
    const bad = await call(client, 'lookup_property', { zpid: 'abc' });
    expect(bad.isError).toBe(true);
    expectBothForms(bad);
    expect(bad.structuredContent.error).toEqual({
      code: 'bad_param',
      message: 'Invalid zpid: must be 1 to 12 digits.',
      details: { param: 'zpid', reason: 'must be 1 to 12 digits' },
    });
    expect((await call(client, 'lookup_property', { zpid: 114303858 })).structuredContent.error).toMatchObject({
      code: 'bad_param',
      details: { param: 'zpid', reason: 'must be a string' },
    });
    expect((await call(client, 'lookup_property', {})).structuredContent.error.code).toBe('missing_param');
    expect(
      (await call(client, 'lookup_property', { zpid: '1', address: '1 Main St, Austin, TX' })).structuredContent.error
        .code,
    ).toBe('bad_param');
    expect(
      (await call(client, 'lookup_property', { zpid: '114303858', status: 'pending' })).structuredContent.error,
    ).toMatchObject({ code: 'bad_param', details: { param: 'status' } });
    expect(
      (await call(client, 'lookup_property', { zpid: '114303858', full: 'yes' })).structuredContent.error,
    ).toMatchObject({ code: 'bad_param', details: { param: 'full' } });
    expect(await usedOf('free')).toBe(before);
  });

  it('a home the site does not have: not_found, not billed, not cached', async () => {
    const client = await connect(svc.keys.free!);
    const before = await usedOf('free');
    for (let i = 0; i < 2; i++) {
      const r = await call(client, 'lookup_property', { zpid: '999999999' });
      expect(r.isError).toBe(true);
      expect(r.structuredContent.error.code).toBe('not_found');
    }
    expect(svc.replay.requests.filter((q) => q.path.includes('999999999_zpid')).length).toBe(2);
    expect(await usedOf('free')).toBe(before);
  });

  it('an account out of lookups: credits_exhausted, with the cached home still free', async () => {
    const client = await connect(svc.keys.tiny!);
    expect((await call(client, 'lookup_property', { zpid: '2146993218' })).structuredContent.meta.credits).toBe(1);
    const refused = await call(client, 'lookup_property', { address: '661 Lakeview Ave, San Francisco, CA 94112' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.code).toBe('credits_exhausted');
    const cached = await call(client, 'lookup_property', { zpid: '114303858' });
    expect(cached.structuredContent.meta).toMatchObject({ credits: 0, cached: true });
    expect(await usedOf('tiny')).toBe(1);
  });
});

describe('lookup_properties', () => {
  it('each item answered in place; a home asked twice billed once; batch meta as REST', async () => {
    const client = await connect(svc.keys.paid!);
    const before = await usedOf('paid');
    const r = await call(client, 'lookup_properties', {
      items: [
        { zpid: '15192198' },
        'https://www.zillow.com/homedetails/15192198_zpid/',
        { zpid: 'nope' },
        { zpid: '114303858' },
      ],
    });
    expect(r.isError).toBeFalsy();
    expectBothForms(r);
    const data = r.structuredContent.data;
    expect(data.map((d: any) => [d.index, d.ok])).toEqual([
      [0, true],
      [1, true],
      [2, false],
      [3, true],
    ]);
    expect(data[0].data.zpid).toBe('15192198');
    expect(Object.keys(data[0].data).sort()).toEqual([...COMPACT_FIELDS].sort());
    expect(data[1].data).toEqual(data[0].data);
    expect(
      data
        .filter((d: any) => d.ok)
        .map((d: any) => d.meta.credits)
        .sort(),
    ).toEqual([0, 0, 1]);
    expect(data[2].error.code).toBe('bad_param');
    expect(r.structuredContent.meta).toMatchObject({ count: 4, succeeded: 3, failed: 1, cache_hits: 2, credits: 1 });
    expect(await usedOf('paid')).toBe(before + 1);
  });

  it('full: true gives whole records', async () => {
    const client = await connect(svc.keys.paid!);
    const r = await call(client, 'lookup_properties', { items: [{ zpid: '15192198' }], full: true });
    expect(Object.keys(r.structuredContent.data[0].data).sort()).toEqual([...PROPERTY_FIELDS].sort());
    expect(r.structuredContent.data[0].meta).toMatchObject({ credits: 0, cached: true, cache_key: 'zpid:15192198' });
  });

  it('more than 50 items, or none: the request-level codes as tool errors', async () => {
    const client = await connect(svc.keys.paid!);
    const tooMany = await call(client, 'lookup_properties', {
      items: Array.from({ length: 51 }, (_, i) => ({ zpid: String(i + 1) })),
    });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.structuredContent.error).toMatchObject({
      code: 'too_many_items',
      details: { max: 50, received: 51 },
    });
    expect((await call(client, 'lookup_properties', { items: [] })).structuredContent.error.code).toBe('bad_body');
    expect((await call(client, 'lookup_properties', {})).structuredContent.error.code).toBe('bad_body');
  });
});

describe('account_usage', () => {
  it("the caller's usage, compact or full, the same as GET /v1/account", async () => {
    const client = await connect(svc.keys.paid!);
    const rest = (await svc.get('/v1/account', svc.keys.paid)).body.data;
    const compact = await call(client, 'account_usage', {});
    expect(compact.structuredContent.data).toEqual({
      plan: 'paid',
      used: rest.used,
      included: 100,
      remaining: rest.remaining,
      period_end: rest.period_end,
    });
    const full = await call(client, 'account_usage', { full: true });
    expect(full.structuredContent.data).toEqual(rest);
  });
});

describe('the HTTP face', () => {
  it('a missing or unknown key is the envelope 401 before any MCP message is read', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const missing = await svc.post('/mcp', init, null, headers);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('missing_api_key');
    const unknown = await svc.post('/mcp', init, 'not_a_key_0000', headers);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
    // The SDK's client reports the HTTP status and the envelope it received.
    await expect(connect('not_a_key_0000')).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('"code":"invalid_api_key"'),
    });
  });

  it('answers carry the v1 headers; GET /mcp (no server-sent streams) is 405 in the envelope', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const ok = await svc.post('/mcp', init, svc.keys.free, { accept: 'application/json, text/event-stream' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-api-version')).toBe('v1');
    // The release (package.json), not the API's v1.
    expect(ok.body.result.serverInfo).toEqual({ name: 'portal-lookup', version: VERSION });
    const get = await svc.get('/mcp');
    expect(get.status).toBe(405);
    expect(get.body.error.code).toBe('method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('a JSON-RPC batch is refused whole: one small -32600 answer, HTTP 400, none of its messages run', async () => {
    const headers = { accept: 'application/json, text/event-stream' };
    const list = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const res = await svc.fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-api-key': svc.keys.paid! },
      body: JSON.stringify(list),
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    // One answer for the whole batch, not one per message (100 tool listings).
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per HTTP request.',
      },
    });
    expect(text.length).toBeLessThan(200);
    // A batch of billed calls: nothing of it runs, nothing billed.
    const before = await usedOf('paid');
    const calls = ['15192198', '2146993218'].map((zpid, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'lookup_property', arguments: { zpid } },
    }));
    const refused = await svc.post('/mcp', calls, svc.keys.paid, headers);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe(-32600);
    expect(await usedOf('paid')).toBe(before);
    // A key is still checked first, as on every route.
    expect((await svc.post('/mcp', list, null, headers)).body.error.code).toBe('missing_api_key');
  });
});

describe('an unknown tool', () => {
  it('is a tool error in the coded form: bad_param on name, naming the tools', async () => {
    const client = await connect(svc.keys.free!);
    const r = await call(client, 'no_such_tool', { zpid: '15192198' });
    expect(r.isError).toBe(true);
    expectBothForms(r);
    expect(r.structuredContent).toEqual({
      error: {
        code: 'bad_param',
        message:
          'Invalid name: no such tool; the tools are lookup_property, lookup_properties, property_history, account_usage, account_charges, webhook_deliveries, service_status.',
        details: {
          param: 'name',
          reason:
            'no such tool; the tools are lookup_property, lookup_properties, property_history, account_usage, account_charges, webhook_deliveries, service_status',
        },
      },
    });
  });
});

describe('the per-key rate window (a core rule: MCP counts as REST does)', () => {
  it('a batch of 50 lookups fills a window of 50; the next lookup is rate_limited with its wait in details.retry_after', async () => {
    const limited = await startTestService({ socket: 'streaming', env: { RATE_LIMIT_PER_MINUTE: '50' } });
    try {
      const client = new Client({ name: 'mcp-rate-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${limited.url}/mcp`), {
          requestInit: { headers: { 'x-api-key': limited.keys.paid! } },
        }),
      );
      clients.push(client);
      const batch = await call(client, 'lookup_properties', {
        items: Array.from({ length: 50 }, () => ({ zpid: '114303858' })),
      });
      expect(batch.structuredContent.meta).toMatchObject({ count: 50, succeeded: 50, credits: 1 });
      const refused = await call(client, 'lookup_property', { zpid: '114303858' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe('rate_limited');
      expect(refused.structuredContent.error.details.retry_after).toBeGreaterThan(0);
      expect(refused.structuredContent.error.details.retry_after).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });
});

/** Signals the first reservation released (the core's abort path ran to its end). */
class ReleaseSignallingStore extends MemoryStore {
  private wake: () => void = () => {};
  readonly released = new Promise<void>((resolve) => (this.wake = resolve));
  override async release(reservationId: string): Promise<boolean> {
    const done = await super.release(reservationId);
    this.wake();
    return done;
  }
}

describe('the client goes away mid-lookup over /mcp', () => {
  it('aborts the read and releases the credit: nothing billed, nothing cached', async () => {
    // The site behind a gate that is never opened: the read is in flight until the client hangs up.
    const proxy = await startGatedProxy(svc.replay.origin);
    const store = new ReleaseSignallingStore();
    const held = await startTestService({
      socket: 'client-abort',
      store,
      replayServer: svc.replay,
      env: { PORTAL_ORIGIN: proxy.origin },
    });
    try {
      const usedBefore = (await held.get('/v1/account')).body.data.used as number;
      const controller = new AbortController();
      const pending = fetch(`${held.url}/mcp`, {
        method: 'POST',
        headers: {
          'x-api-key': held.keys.free!,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'lookup_property', arguments: { zpid: '15192198' } },
        }),
        signal: controller.signal,
      }).catch((e: Error) => e);
      await proxy.received('/homedetails/15192198_zpid/');
      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await proxy.abandoned('/homedetails/15192198_zpid/');
      await store.released;
      expect((await held.get('/v1/account')).body.data.used).toBe(usedBefore);
      expect(await held.store.getEntries(['zpid:15192198'])).toEqual([null]);
    } finally {
      await held.close();
      await proxy.close();
    }
  });
});

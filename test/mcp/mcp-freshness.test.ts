// The MCP tools take the faces' freshness options (issue 10 §1, §2: max_age, stale) and the batch's
// cost preview (§5: dry_run), declared once in contract/inputs.ts, and a compact answer says when it
// is the last good record (meta.stale). Over streamable HTTP with the SDK's client, against the
// replay site walled for the home.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_QUERY_FIELDS, OPTION_FIELDS } from '../../src/contract/index.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const ZPID = '15192198';
const PAGE = recordedPage(ZPID);

let svc: TestService;
let client: Client;
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: any };

beforeAll(async () => {
  svc = await startTestService({ socket: 'streaming' });
  client = new Client({ name: 'mcp-freshness-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': svc.keys.free! } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('MCP tools: max_age and stale', () => {
  it('both lookup tools declare max_age and stale as the contract does', async () => {
    const { tools } = await client.listTools();
    for (const name of ['lookup_property', 'lookup_properties']) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.description).toContain('max_age');
      const props = tool.inputSchema.properties as any;
      expect(props.max_age).toMatchObject({ type: 'integer', minimum: 0, maximum: OPTION_FIELDS.max_age.maximum });
      expect(props.stale).toMatchObject({ type: 'boolean', description: OPTION_FIELDS.stale.description });
    }
  });

  it('max_age=0 reads a cached home live again; walled, the last good record answers, compact meta saying stale', async () => {
    const first = await call('lookup_property', { zpid: ZPID });
    expect(first.structuredContent.meta).toMatchObject({ credits: 1, cached: false });
    expect((await call('lookup_property', { zpid: ZPID, max_age: 0 })).structuredContent.meta).toMatchObject({
      credits: 1,
      cached: false,
    });

    svc.replay.faults.set(PAGE.path, { status: 403, body: WALL });
    try {
      const pages = svc.replay.requests.length;
      const stale = await call('lookup_property', { zpid: ZPID, max_age: 0 });
      expect(stale.isError).toBeFalsy();
      expect(stale.structuredContent.meta).toMatchObject({
        credits: 0,
        cached: true,
        stale: true,
        stale_reason: 'upstream_blocked',
      });
      expect(svc.replay.requests.length).toBeGreaterThan(pages);
      const refused = await call('lookup_property', { zpid: ZPID, max_age: 0, stale: false });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe('upstream_blocked');
      const batch = await call('lookup_properties', { items: [{ zpid: ZPID }], max_age: 0 });
      expect(batch.structuredContent.data[0].meta).toMatchObject({
        credits: 0,
        stale: true,
        stale_reason: 'upstream_blocked',
      });
      const batchRefused = await call('lookup_properties', { items: [{ zpid: ZPID }], max_age: 0, stale: false });
      expect(batchRefused.structuredContent.data[0]).toMatchObject({ ok: false, error: { code: 'upstream_blocked' } });
    } finally {
      svc.replay.faults.clear();
    }
  });

  it("a bad max_age or stale is the contract's bad_param, as in REST", async () => {
    const age = await call('lookup_property', { zpid: ZPID, max_age: 86_401 });
    expect(age.isError).toBe(true);
    expect(age.structuredContent.error).toMatchObject({ code: 'bad_param', details: { param: 'max_age' } });
    const stale = await call('lookup_properties', { items: [{ zpid: ZPID }], stale: 'no' });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent.error).toMatchObject({ code: 'bad_param', details: { param: 'stale' } });
  });
});

describe('MCP lookup_properties: dry_run', () => {
  it('declares it as the contract does', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'lookup_properties')!.inputSchema.properties as any;
    expect(props.dry_run).toMatchObject({ type: 'boolean', description: BATCH_QUERY_FIELDS.dry_run.description });
  });

  it('prices the batch as REST does, reading nothing and charging nothing', async () => {
    await call('lookup_property', { zpid: ZPID });
    const items = [{ zpid: ZPID }, { zpid: '999000777' }, { zpid: '999000777' }, { zpid: 'x' }];
    const rest = await svc.post('/v1/portal/batch?dry_run=true', { items });
    const [pages, ledger] = [svc.replay.requests.length, (await svc.store.ledger()).length];
    const r = await call('lookup_properties', { items, dry_run: true });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.data).toEqual(rest.body.data);
    expect(r.structuredContent.data.map((d: { would_cost: number }) => d.would_cost)).toEqual([0, 1, 0, 0]);
    const { took_ms: _a, ...meta } = r.structuredContent.meta;
    const { took_ms: _b, ...restMeta } = rest.body.meta;
    expect(meta).toEqual(restMeta);
    expect(meta).toMatchObject({ credits: 0, credits_estimate: 1, affordable: true });
    expect([svc.replay.requests.length, (await svc.store.ledger()).length]).toEqual([pages, ledger]);
  });

  it('a dry_run that is not a boolean is bad_param', async () => {
    const r = await call('lookup_properties', { items: [{ zpid: ZPID }], dry_run: 'yes' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: 'bad_param', details: { param: 'dry_run' } });
  });
});

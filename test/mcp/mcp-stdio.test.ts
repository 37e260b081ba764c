// The MCP server over stdio, spawned as an agent would start it (src/mcp/stdio.ts --demo: offline,
// the recorded pages replayed locally, an in-memory store, no Redis), called with the SDK's own client.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACT_FIELDS } from '../../src/mcp/tools.js';
import { startReplayServer } from '../../src/replay/server.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { startGatedProxy } from '../helpers/gated-proxy.js';
import { VERSION } from '../../src/version.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO_KEY = 'demo_key_local_only';
const clients: Client[] = [];

/** Starts `node src/mcp/stdio.ts [--demo]` (compiled: test/helpers/compiled-src.ts) with the given environment and connects to it. */
async function spawnServer(env: Record<string, string>, args = ['--demo']): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...entryArgs('mcp/stdio.ts'), ...args],
    cwd: ROOT,
    // No REDIS_URL reaches the child: the demo runs on its in-memory store.
    env: { ...getDefaultEnvironment(), PAGE_WORKERS: '1', LOG_LEVEL: 'warn', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/**
 * The demo server with the demo key and LOG_PRETTY on, its stderr read from the start: one process for
 * the two tests that need nothing else (a process start is most of each test's time).
 */
let prettyDemo: Promise<{ client: Client; firstStderrLine: Promise<string> }> | undefined;
function demoServer(): Promise<{ client: Client; firstStderrLine: Promise<string> }> {
  prettyDemo ??= (async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...entryArgs('mcp/stdio.ts'), '--demo'],
      cwd: ROOT,
      // API_KEY_SECRET unset: the development default.
      env: {
        ...getDefaultEnvironment(),
        PAGE_WORKERS: '1',
        LOG_LEVEL: 'warn',
        LOG_PRETTY: 'true',
        PORTAL_API_KEY: DEMO_KEY,
      },
      stderr: 'pipe',
    });
    let stderr = '';
    const firstStderrLine = new Promise<string>((resolve) => {
      transport.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('\n')) resolve(stderr.split('\n')[0]!);
      });
    });
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, firstStderrLine };
  })();
  return prettyDemo;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: any };

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

// Each test starts a Node process (the first and the LOG_PRETTY one share theirs): room for a busy machine.
describe('MCP over stdio (demo setup, offline)', { timeout: 120_000 }, () => {
  it('lists the tools, looks a home up live then from the cache, bills it once, and reports bad input by code', async () => {
    const { client } = await demoServer();
    // The release (package.json, read by the compiled server from the package.json above it).
    expect(client.getServerVersion()).toEqual({ name: 'portal-lookup', version: VERSION });
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
    // The background beside the core: the account's delivery log (none sent from here yet).
    expect((await call(client, 'webhook_deliveries', {})).structuredContent).toEqual({
      data: [],
      meta: { next_cursor: null },
    });

    const first = await call(client, 'lookup_property', { zpid: '114303858' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent.data.zpid).toBe('114303858');
    expect(Object.keys(first.structuredContent.data).sort()).toEqual([...COMPACT_FIELDS].sort());
    expect(first.structuredContent.meta).toMatchObject({ credits: 1, cached: false });
    const second = await call(client, 'lookup_property', { url: 'https://www.zillow.com/homedetails/114303858_zpid/' });
    expect(second.structuredContent.meta).toMatchObject({ credits: 0, cached: true });
    expect(second.structuredContent.data).toEqual(first.structuredContent.data);

    const bad = await call(client, 'lookup_property', { address: 'x' });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({ code: 'bad_param', details: { param: 'address' } });

    const batch = await call(client, 'lookup_properties', { items: [{ zpid: '114303858' }, { zpid: '2146993218' }] });
    expect(batch.structuredContent.meta).toMatchObject({ count: 2, succeeded: 2, cache_hits: 1, credits: 1 });

    const usage = await call(client, 'account_usage', {});
    expect(usage.structuredContent.data).toEqual({
      plan: 'free',
      used: 2,
      included: 50,
      remaining: 48,
      period_end: null,
    });
  });

  it('without PORTAL_API_KEY every tool answers missing_api_key, but service_status (public, as GET /v1/status)', async () => {
    const client = await spawnServer({});
    const r = await call(client, 'account_usage', {});
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toBe('missing_api_key');
    const lookup = await call(client, 'lookup_property', { zpid: '114303858' });
    expect(lookup.structuredContent.error.code).toBe('missing_api_key');
    const deliveries = await call(client, 'webhook_deliveries', {});
    expect(deliveries.structuredContent.error.code).toBe('missing_api_key');
    const status = await call(client, 'service_status', {});
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent.data.last_hour).toMatchObject({ minutes: 60, lookups: 0 });
  });

  it('a wrong key is invalid_api_key', async () => {
    const client = await spawnServer({ PORTAL_API_KEY: 'not_the_demo_key' });
    expect((await call(client, 'account_usage', {})).structuredContent.error.code).toBe('invalid_api_key');
  });

  it('LOG_PRETTY: readable lines on stderr, the development-secret warning among them, as npm start gives it', async () => {
    const { client, firstStderrLine } = await demoServer();
    const line = await firstStderrLine;
    expect(line).toMatch(/WARN.*API_KEY_SECRET is not set or is the development default/);
    expect(line.startsWith('{')).toBe(false);
    // The protocol still works beside it: stdout carried only protocol messages.
    expect((await call(client, 'account_usage', {})).structuredContent.data.plan).toBe('free');
  });

  it('a refused configuration: every problem on stderr, exit 78, nothing on stdout (the protocol channel)', async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        entryArgs('mcp/stdio.ts'),
        {
          cwd: ROOT,
          env: { ...getDefaultEnvironment(), PORTAL_API_KEY: DEMO_KEY, CACHE_TTL_MS: 'soon' },
        },
        (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(result.code).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/CACHE_TTL_MS/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('configured like npm start (ACCOUNTS_FILE, PORTAL_ORIGIN): a call the client cancels stops the read, unbilled', async () => {
    const replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
    // The site behind a gate that is never opened: the read is in flight until the call is cancelled.
    const proxy = await startGatedProxy(replay.origin);
    const dir = await mkdtemp(join(tmpdir(), 'mcp-stdio-'));
    const accountsFile = join(dir, 'accounts.json');
    await writeFile(accountsFile, JSON.stringify([{ key: 'stdio_key_0001', plan: 'free', allotment: 5 }]));
    try {
      const client = await spawnServer(
        {
          PORTAL_API_KEY: 'stdio_key_0001',
          ACCOUNTS_FILE: accountsFile,
          PORTAL_ORIGIN: proxy.origin,
          PORTAL_SUGGEST_URL: replay.suggestUrl,
        },
        [],
      );
      const controller = new AbortController();
      const call = client
        .callTool({ name: 'lookup_property', arguments: { zpid: '15192198' } }, undefined, {
          signal: controller.signal,
        })
        .catch((e: Error) => e);
      await proxy.received('/homedetails/15192198_zpid/');
      controller.abort();
      expect(await call).toBeInstanceOf(Error);
      // The client's notifications/cancelled reached the call: the server hung up on the site.
      await proxy.abandoned('/homedetails/15192198_zpid/');
      const usage = await client.callTool({ name: 'account_usage', arguments: {} });
      expect((usage as { structuredContent: unknown }).structuredContent).toEqual({
        data: { plan: 'free', used: 0, included: 5, remaining: 5, period_end: null },
      });
    } finally {
      await proxy.close();
      await replay.close();
    }
  });
});

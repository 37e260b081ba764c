// The typed TypeScript client (clients/typescript): its generated types match what the service serves
// at /openapi.json, its package is ready to publish (its own package.json and build), and its example program, run as a child process against `npm run demo` itself
// (src/demo.ts in a process of its own: the replayed listing site, the demo key), prints what the
// service really answered.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PortalApiError,
  PortalClient,
  PortalHttpError,
  PortalNetworkError,
  type ErrorCode,
} from '../../clients/typescript/client.js';
import type { RestErrorCode } from '../../src/contract/index.js';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/client-types.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { q, startTestService, type TestService } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO_KEY = 'demo_key_local_only';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({
    socket: 'other-program',
    accounts: { demo: { key: DEMO_KEY, plan: 'free', allotment: 50 } },
  });
});

afterAll(() => svc.close());

describe('the package (clients/typescript/package.json)', () => {
  it('builds with its own tsconfig into dist/: the modules and declarations its exports name, importable', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'clients/typescript/package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@portal-lookup/client', type: 'module', files: ['dist', 'README.md'] });
    expect(pkg.exports['.']).toEqual({ types: './dist/client.d.ts', import: './dist/client.js' });
    // The one dependency, at the range the project itself is tested with.
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ 'openapi-fetch': root.devDependencies['openapi-fetch'] });
    // Built beside the package (as npm run build does), in a folder of this run's own: its imports resolve as there.
    const out = mkdtempSync(join(ROOT, 'clients/typescript/.build-'));
    try {
      await promisify(execFile)(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'clients/typescript/tsconfig.json', '--outDir', out],
        { cwd: ROOT },
      );
      for (const target of [pkg.exports['.'].types, pkg.exports['.'].import, pkg.exports['./openapi-types'].types]) {
        expect(existsSync(join(out, target.replace('./dist/', '')))).toBe(true);
      }
      const built = await import(pathToFileURL(join(out, 'client.js')).href);
      expect(Object.keys(built).sort()).toEqual(
        ['PortalApiError', 'PortalClient', 'PortalHttpError', 'PortalNetworkError', 'backoffMs', 'retryAfterMs'].sort(),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('generated types', () => {
  it('clients/typescript/openapi-types.ts is what openapi-typescript makes of the served /openapi.json (npm run client:types)', async () => {
    expect(await generateClientTypes()).toBe(readFileSync(CLIENT_TYPES_FILE, 'utf8'));
  });
});

/** `npm run demo` (src/demo.ts) in a process of its own, on a free port; its URL read from the banner it prints. */
async function startDemo(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, entryArgs('demo.ts'), {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PAGE_WORKERS: '1', LOG_PRETTY: 'false', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let banner = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      banner += chunk.toString();
      const found = /Property lookup API demo: (http:\/\/\S+)/.exec(banner);
      if (found) resolve(found[1]!);
    });
    void exited.then(([code]) =>
      reject(new Error(`the demo exited (${String(code)}) before printing its URL: ${banner}`)),
    );
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The demo and the example each run in a Node process of their own: room for a busy machine.
describe('the example program against the demo (npm run demo)', { timeout: 120_000 }, () => {
  it('prints the home, the batch, the usage, a coded error, a job to its end and a watch, as the service answered them', async () => {
    const demo = await startDemo();
    try {
      await checkExample(demo.url);
    } finally {
      await demo.stop();
    }
  });
});

async function checkExample(url: string): Promise<void> {
  const get = async (path: string) =>
    (await (await fetch(`${url}${path}`, { headers: { 'x-api-key': DEMO_KEY } })).json()) as any;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'clients/typescript/example.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORTAL_URL: url, PORTAL_API_KEY: DEMO_KEY },
  });
  const steps = Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => {
        const { step, ...rest } = JSON.parse(line) as { step: string } & Record<string, unknown>;
        return [step, rest];
      }),
  );
  expect(Object.keys(steps)).toEqual(['property', 'batch', 'usage', 'error', 'job', 'watch']);

  // Read back over REST (all cache hits now): the example printed what the service holds.
  const home = (await get('/v1/portal/property?zpid=114303858')).data;
  const lakeview = (await get(`/v1/portal/property?${q({ address: '661 Lakeview Ave, San Francisco, CA 94112' })}`))
    .data;
  expect(steps.property).toEqual({
    zpid: '114303858',
    price: home.price,
    homeStatus: 'RECENTLY_SOLD',
    credits: 1,
    cached: false,
  });
  expect(typeof home.price).toBe('number');
  expect(steps.batch).toEqual({
    results: [
      { ok: true, zpid: '114303858', credits: 0 },
      { ok: true, zpid: lakeview.zpid, credits: 1 },
      { ok: false, code: 'bad_param' },
    ],
    credits: 1,
  });
  expect(steps.usage).toEqual({ plan: 'free', used: 2, remaining: 48 });
  expect(steps.error).toEqual({ code: 'not_found', status: 404, message: 'No property matches.' });
  // The job of two homes read before (cache hits, 0 credits) and a bad item, followed to its done.
  expect(steps.job).toEqual({
    status: 'completed',
    count: 3,
    succeeded: 2,
    failed: 1,
    credits: 0,
    lastEvent: 'done',
    results: [
      { ok: true, zpid: '114303858' },
      { ok: true, zpid: lakeview.zpid },
      { ok: false, code: 'bad_param' },
    ],
  });
  expect(steps.watch).toEqual({ zpid: '15192198', interval_hours: 24, listed: true, afterDelete: 'not_found' });
}

describe('PortalClient errors', () => {
  it("the client's ErrorCode is exactly the contract's REST codes (checked by the type check)", () => {
    type Same = [ErrorCode] extends [RestErrorCode] ? ([RestErrorCode] extends [ErrorCode] ? true : false) : false;
    const same: Same = true;
    // @ts-expect-error a code outside the spec's table is no ErrorCode
    const unknown: ErrorCode = 'no_such_code';
    expect([same, unknown]).toEqual([true, 'no_such_code']);
  });

  it('an unknown key throws PortalApiError with the code, status and request id', async () => {
    const client = new PortalClient({ baseUrl: svc.url, apiKey: 'not_a_key_0000' });
    const e = await client.usage().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PortalApiError);
    expect(e).toMatchObject({ code: 'invalid_api_key', status: 401, retryAfter: undefined });
    expect((e as PortalApiError).requestId).toMatch(/\S+/);
  });

  it('a batch over 50 items throws too_many_items; a failed item is in its place, not thrown', async () => {
    const client = new PortalClient({ baseUrl: svc.url, apiKey: DEMO_KEY });
    const e = await client
      .batch(Array.from({ length: 51 }, (_, i) => ({ zpid: String(i + 1) })))
      .catch((err: unknown) => err);
    expect(e).toMatchObject({ code: 'too_many_items', status: 400, details: { max: 50, received: 51 } });
    const r = await client.batch([{ zpid: '999999999' }]);
    expect(r.data[0]).toMatchObject({ index: 0, ok: false, error: { code: 'not_found' } });
  });

  it('batch with an idempotencyKey sends the Idempotency-Key header: the same batch again is the same answer, billed once; another under the key throws idempotency_key_reused', async () => {
    const client = new PortalClient({ baseUrl: svc.url, apiKey: DEMO_KEY });
    const first = await client.batch([{ zpid: '114303858' }], {}, { idempotencyKey: 'client-order-1' });
    expect(first.meta.credits).toBe(1);
    const charged = (await svc.store.ledger()).length;
    expect(await client.batch([{ zpid: '114303858' }], {}, { idempotencyKey: 'client-order-1' })).toEqual(first);
    expect((await svc.store.ledger()).length).toBe(charged);
    const e = await client
      .batch([{ zpid: '2146993218' }], {}, { idempotencyKey: 'client-order-1' })
      .catch((err: unknown) => err);
    expect(e).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
  });

  it('batchPreview sends dry_run=true: the cost preview, nothing read from the site', async () => {
    const client = new PortalClient({ baseUrl: svc.url, apiKey: DEMO_KEY });
    const before = svc.replay.requests.length;
    const r = await client.batchPreview([{ zpid: '999000103' }, { zpid: '999000103' }, { zpid: 'x' }]);
    expect(r.data.map((d) => d.would_cost)).toEqual([1, 0, 0]);
    expect(r.data[2]).toMatchObject({ ok: false, error: { code: 'bad_param' } });
    expect(r.meta).toMatchObject({ credits_estimate: 1, credits: 0, affordable: true });
    expect(svc.replay.requests.length).toBe(before);
  });

  it('property takes every option of the query: max_age=0 reads a cached home live again (typed: the type check fails without them)', async () => {
    const client = new PortalClient({ baseUrl: svc.url, apiKey: DEMO_KEY });
    await client.property({ zpid: '15192198' });
    expect((await client.property({ zpid: '15192198' }, { stale: true })).meta).toMatchObject({
      credits: 0,
      cached: true,
    });
    expect((await client.property({ zpid: '15192198' }, { max_age: 0, stale: false })).meta).toMatchObject({
      credits: 1,
      cached: false,
      age_seconds: 0,
    });
  });

  it('a wait the service asks for is read from retry-after', async () => {
    const client = new PortalClient({
      baseUrl: svc.url,
      apiKey: DEMO_KEY,
      // A store outage as the service answers it (503 store_unavailable, retry-after 30), without breaking the store.
      fetch: async () =>
        new Response(
          JSON.stringify({
            error: { code: 'store_unavailable', message: 'The usage and cache store is unreachable.' },
            meta: { took_ms: 1 },
          }),
          {
            status: 503,
            headers: { 'content-type': 'application/json', 'retry-after': '30', 'x-request-id': 'r-1' },
          },
        ),
    });
    await expect(client.property({ zpid: '114303858' })).rejects.toMatchObject({
      code: 'store_unavailable',
      status: 503,
      retryAfter: 30,
      requestId: 'r-1',
    });
  });

  /** A loopback server that answers every request with the given status, headers and body. */
  async function answering(
    status: number,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ url: string; server: Server }> {
    const server = createServer((_req, res) => res.writeHead(status, headers).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  it("a proxy's HTML 502 throws PortalHttpError with the status and the page, not a made-up code", async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const { url, server } = await answering(502, { 'content-type': 'text/html' }, page);
    try {
      const e = await new PortalClient({ baseUrl: url, apiKey: DEMO_KEY })
        .property({ zpid: '114303858' })
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(PortalHttpError);
      expect(e).not.toBeInstanceOf(PortalApiError);
      expect(e).toMatchObject({ status: 502, body: page });
      expect(e).not.toHaveProperty('code');
    } finally {
      server.close();
    }
  });

  it('an empty 413 throws PortalHttpError with an empty body', async () => {
    const { url, server } = await answering(413, { 'content-length': '0' }, '');
    try {
      const e = await new PortalClient({ baseUrl: url, apiKey: DEMO_KEY })
        .batch([{ zpid: '1' }])
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(PortalHttpError);
      expect(e).toMatchObject({ status: 413, body: '' });
    } finally {
      server.close();
    }
  });

  it("a closed port throws PortalNetworkError with fetch's failure as its cause", async () => {
    // A port that was just listened on and closed: nothing answers there.
    const { url, server } = await answering(200, {}, '');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const e = await new PortalClient({ baseUrl: url, apiKey: DEMO_KEY }).usage().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PortalNetworkError);
    expect((e as PortalNetworkError).message).toMatch(/^GET \/v1\/account: no answer read/);
    expect((e as PortalNetworkError).cause).toBeInstanceOf(TypeError);
  });
});

// The landing page and /llms.txt read the OpenAPI document, the contract's schemas and the error
// table: each app builds them once, on first request, not on every request.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/store/index.js';
import { landingPage } from '../../src/web/landing.js';
import { llmsText } from '../../src/web/llms.js';

// The real builders, counted.
vi.mock('../../src/web/landing.js', async (original) => {
  const real = await original<typeof import('../../src/web/landing.js')>();
  return { ...real, landingPage: vi.fn(real.landingPage) };
});
vi.mock('../../src/web/llms.js', async (original) => {
  const real = await original<typeof import('../../src/web/llms.js')>();
  return { ...real, llmsText: vi.fn(real.llmsText) };
});

const makeApp = () => {
  const config = loadConfig({ HOST: '127.0.0.1' });
  return buildApp({ config, store: new MemoryStore(), collector: createCollector(config), logger: pino({ level: 'silent' }) });
};
let apps: Array<Awaited<ReturnType<typeof makeApp>>> = [];
beforeAll(async () => {
  apps = [await makeApp(), await makeApp()];
});
afterAll(() => Promise.all(apps.map((a) => a.close())));

describe('/ and /llms.txt are built once per app', () => {
  it.each([
    ['/', landingPage, /^text\/html/],
    ['/llms.txt', llmsText, /^text\/plain/],
  ] as const)('%s: the same body every time, one build per app', async (path, builder, type) => {
    const built = vi.mocked(builder);
    built.mockClear();
    const [app1, app2] = apps as [typeof apps[0], typeof apps[0]];
    const first = await app1.inject({ method: 'GET', url: path });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(type);
    expect(first.body.length).toBeGreaterThan(500);
    const second = await app1.inject({ method: 'GET', url: path });
    expect(second.body).toBe(first.body);
    expect(built).toHaveBeenCalledTimes(1);
    // Another app (its own configuration) builds its own.
    expect((await app2.inject({ method: 'GET', url: path })).body).toBe(first.body);
    expect(built).toHaveBeenCalledTimes(2);
  });
});

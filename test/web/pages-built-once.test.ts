// The landing page and /llms.txt read the OpenAPI document, the contract's schemas and the error
// table: each app builds them once, on first request, not on every request.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { registerWeb } from '../../src/web/index.js';
import { landingPage } from '../../src/web/landing.js';
import { llmsText } from '../../src/web/llms.js';

const config = loadConfig({ HOST: '127.0.0.1' });
/** The real builders, counted. */
const calls = { landing: 0, llms: 0 };
const counted = {
  landing: (c: typeof config) => ((calls.landing += 1), landingPage(c)),
  llms: (c: typeof config) => ((calls.llms += 1), llmsText(c)),
};
const apps = [Fastify(), Fastify()];
beforeAll(async () => {
  for (const app of apps) {
    registerWeb(app, { config, figures: { status: () => Promise.reject(new Error('not asked')) } }, counted);
    await app.ready();
  }
});
afterAll(() => Promise.all(apps.map((a) => a.close())));

describe('/ and /llms.txt are built once per app', () => {
  it.each([
    ['/', 'landing', /^text\/html/],
    ['/llms.txt', 'llms', /^text\/plain/],
  ] as const)('%s: the same body every time, one build per app', async (path, builder, type) => {
    const [app1, app2] = apps as [ReturnType<typeof Fastify>, ReturnType<typeof Fastify>];
    expect(calls[builder]).toBe(0);
    const first = await app1.inject({ method: 'GET', url: path });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(type);
    // The page the real builder makes (called directly, not counted).
    expect(first.body).toBe({ landing: landingPage, llms: llmsText }[builder](config));
    for (let i = 0; i < 3; i += 1) expect((await app1.inject({ method: 'GET', url: path })).body).toBe(first.body);
    expect(calls[builder]).toBe(1);
    // Another app builds its own, once.
    expect((await app2.inject({ method: 'GET', url: path })).body).toBe(first.body);
    expect((await app2.inject({ method: 'GET', url: path })).body).toBe(first.body);
    expect(calls[builder]).toBe(2);
  });
});

// TRUST_PROXY: behind a proxy the keyless budget is per client X-Forwarded-For names (when the proxy is
// trusted), not one budget for everyone the proxy forwards.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { ConfigError, loadConfig, trustProxy } from '../../src/config.js';
import { MemoryStore } from '../../src/store/index.js';

type App = Awaited<ReturnType<typeof buildApp>>;
const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function service(env: Record<string, string>): Promise<App> {
  // A burst of one: the second keyless request of a budget is refused.
  const config = loadConfig({ HOST: '127.0.0.1', KEYLESS_BURST: '1', KEYLESS_PER_SECOND: '1', ...env });
  const app = await buildApp({
    config,
    store: new MemoryStore(),
    collector: createCollector(config),
    logger: pino({ level: 'silent' }),
    clock: () => new Date(0),
  });
  apps.push(app);
  return app;
}

/** A keyless request arriving from 127.0.0.1 (the proxy) on behalf of `client`. */
const keyless = (app: App, client: string) =>
  app
    .inject({
      method: 'POST',
      url: '/graphql',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      payload: JSON.stringify({ query: '{ __typename }' }),
    })
    .then((r) => r.statusCode);

describe('keyless budget behind a proxy (TRUST_PROXY)', () => {
  it('with the proxy trusted, two clients it forwards have a budget each', async () => {
    const app = await service({ TRUST_PROXY: '127.0.0.1' });
    expect(await keyless(app, '203.0.113.1')).toBe(200);
    expect(await keyless(app, '203.0.113.2')).toBe(200);
    expect(await keyless(app, '203.0.113.1')).toBe(429);
  });

  it("unset (the default), every client the proxy forwards shares the proxy's budget", async () => {
    const app = await service({});
    expect(await keyless(app, '203.0.113.1')).toBe(200);
    expect(await keyless(app, '203.0.113.2')).toBe(429);
  });

  it('from a peer outside the trusted list, X-Forwarded-For is not believed', async () => {
    const app = await service({ TRUST_PROXY: '10.0.0.0/8,loopback' });
    expect(await keyless(app, '203.0.113.1')).toBe(200);
    expect(await keyless(app, '203.0.113.2')).toBe(200);
    const other = await service({ TRUST_PROXY: '10.0.0.0/8' });
    // 127.0.0.1 is not in 10.0.0.0/8: both share 127.0.0.1's budget.
    expect(await keyless(other, '203.0.113.1')).toBe(200);
    expect(await keyless(other, '203.0.113.2')).toBe(429);
  });

  it('the address the trusted proxy saw decides, not what the client wrote before it', async () => {
    const app = await service({ TRUST_PROXY: '127.0.0.1' });
    // nginx appends the address it saw (the last entry); what the client wrote before it is not trusted.
    expect(await keyless(app, '198.51.100.7, 203.0.113.1')).toBe(200);
    expect(await keyless(app, '198.51.100.8, 203.0.113.1')).toBe(429);
  });

  it("TRUST_PROXY is read in each of Fastify's forms; anything else is refused at start", () => {
    expect(trustProxy('false')).toBe(false);
    expect(trustProxy('TRUE')).toBe(true);
    expect(trustProxy('loopback, 172.16.0.0/12,::1')).toEqual(['loopback', '172.16.0.0/12', '::1']);
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const bad of ['yes', '10.0.0.0/33', '1.2.3', 'loopback,', '10.0.0.1/8/1', 'fe80::/129', '1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

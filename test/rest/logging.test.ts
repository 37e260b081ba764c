// Logging at the default level (info): one JSON line per answered request, and API keys never
// reach a log line.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccounts } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore } from '../../src/store/index.js';

const KEY = 'test_log_key_secret_0001';
const lines: Array<Record<string, unknown>> = [];
let text = '';
let app: Awaited<ReturnType<typeof buildApp>>;
let replay: Awaited<ReturnType<typeof startReplayServer>>;

beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  const config = loadConfig({ PORTAL_ORIGIN: replay.origin, PORTAL_SUGGEST_URL: replay.suggestUrl, LOG_LEVEL: 'info' });
  const store = new MemoryStore();
  await seedAccounts(store, [{ key: KEY, plan: 'free' }], config.apiKeySecret);
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  app = await buildApp({ config, store, collector: createCollector(config), logger: createLogger('info', sink) });
});
afterAll(async () => {
  await app.close();
  await replay.close();
});

describe('logs at info', () => {
  it('one line per request, with its status; the key in no line', async () => {
    lines.length = 0;
    const ok = await app.inject({ url: '/v1/portal/property?zpid=2146993218', headers: { 'x-api-key': KEY } });
    const refused = await app.inject({
      url: '/v1/portal/property?zpid=2146993218',
      headers: { 'x-api-key': `${KEY}x` },
    });
    expect([ok.statusCode, refused.statusCode]).toEqual([200, 401]);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => l.statusCode)).toEqual([200, 401]);
    expect(requests[0]).toMatchObject({ level: 30, method: 'GET', url: '/v1/portal/property?zpid=2146993218' });
    expect(typeof requests[0]!.reqId).toBe('string');
    expect(text).not.toContain(KEY);
  });

  it('censors a key or secret logged by mistake', async () => {
    app.log.info({ apiKey: KEY, headers: { 'x-api-key': KEY }, config: { apiKeySecret: 's3cret-value' } }, 'oops');
    const oops = lines.find((l) => l.msg === 'oops')!;
    expect(oops).toMatchObject({
      apiKey: '[redacted]',
      headers: { 'x-api-key': '[redacted]' },
      config: { apiKeySecret: '[redacted]' },
    });
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('s3cret-value');
  });
});

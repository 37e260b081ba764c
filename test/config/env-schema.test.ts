// Every environment variable is checked against one schema at start-up (issue 12): wrong types, ranges,
// URLs that are not URLs and contradicting settings are all reported together, one line each.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('the configuration was accepted');
};

describe('the environment schema', () => {
  it('an empty environment gives the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      redisUrl: null,
      redisPrefix: 'pl:',
      selfHostedEnabled: true,
      logLevel: 'info',
      fallback: { url: null, token: null, actor: null, maxCostUsd: 0.05, maxCostCeilingUsd: 0.5, name: 'apify' },
      memoryCacheBytes: 128 * 1024 * 1024,
      creditWaitMs: 60_000 + 5_000 + 5_000,
      dailyLiveLookupBudget: null,
    });
  });

  it('strings become the declared types; blank is unset', () => {
    const c = loadConfig({
      PORT: '8080',
      SELF_HOSTED_ENABLED: 'off',
      LIVE_LOOKUPS_ENABLED: 'Yes',
      FALLBACK_MAX_COST_USD: '0.2',
      DAILY_LIVE_LOOKUP_BUDGET: '0',
      REDIS_URL: '  ',
      PORTAL_ORIGIN: 'http://127.0.0.1:9999/',
      LOG_LEVEL: 'warn',
      MEMORY_CACHE_MB: '2',
    });
    expect(c).toMatchObject({
      port: 8080,
      selfHostedEnabled: false,
      liveLookupsEnabled: true,
      dailyLiveLookupBudget: 0,
      redisUrl: null,
      portalOrigin: 'http://127.0.0.1:9999',
      logLevel: 'warn',
      memoryCacheBytes: 2 * 1024 * 1024,
    });
    expect(c.fallback.maxCostUsd).toBe(0.2);
  });

  it('WATCH_MIN_INTERVAL_SECONDS: unset gives WATCH_MIN_INTERVAL_HOURS in seconds; a fraction of a second down to 0.1 is accepted, less or not a number refused', () => {
    expect(loadConfig({}).watchMinIntervalSeconds).toBe(24 * 3600);
    expect(loadConfig({ WATCH_MIN_INTERVAL_HOURS: '2' }).watchMinIntervalSeconds).toBe(2 * 3600);
    expect(loadConfig({ WATCH_MIN_INTERVAL_SECONDS: '0.2' }).watchMinIntervalSeconds).toBe(0.2);
    expect(
      loadConfig({ WATCH_MIN_INTERVAL_SECONDS: '0.1', WATCH_MIN_INTERVAL_HOURS: '2' }).watchMinIntervalSeconds,
    ).toBe(0.1);
    expect(loadConfig({ WATCH_MIN_INTERVAL_SECONDS: '30' }).watchMinIntervalSeconds).toBe(30);
    expect(problemsOf({ WATCH_MIN_INTERVAL_SECONDS: '0.05' })).toEqual([
      'WATCH_MIN_INTERVAL_SECONDS must be a number >= 0.1 (got "0.05")',
    ]);
    expect(problemsOf({ WATCH_MIN_INTERVAL_SECONDS: '0' })).toEqual([
      'WATCH_MIN_INTERVAL_SECONDS must be a number >= 0.1 (got "0")',
    ]);
    expect(problemsOf({ WATCH_MIN_INTERVAL_SECONDS: 'fast' })).toEqual([
      'WATCH_MIN_INTERVAL_SECONDS must be a number >= 0.1 (got "fast")',
    ]);
  });

  it("every problem at once, in the schema's order, one line each, naming the variable, what it must be and what it got", () => {
    const problems = problemsOf({
      PORT: 'eighty',
      BATCH_CONCURRENCY: '0',
      SELF_HOSTED_ENABLED: 'maybe',
      PORTAL_ORIGIN: 'www.example.com',
      LOG_LEVEL: 'loud',
      PAGE_WORKERS: '1.5',
      SHUTDOWN_GRACE_MS: '9999999999',
    });
    expect(problems).toEqual([
      'PORT must be an integer >= 0 and <= 65535 (got "eighty")',
      'PORTAL_ORIGIN must be an http:// or https:// URL (got "www.example.com")',
      'SELF_HOSTED_ENABLED must be true or false (or 1/0, yes/no, on/off) (got "maybe")',
      'BATCH_CONCURRENCY must be an integer >= 1 (got "0")',
      'PAGE_WORKERS must be an integer >= 1 (got "1.5")',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'SHUTDOWN_GRACE_MS must be an integer >= 0 and <= 2147475647 (got "9999999999")',
    ]);
    for (const p of problems) expect(p).not.toContain('\n');
  });

  it('a credential is never echoed in its problem line', () => {
    const problems = problemsOf({ REDIS_URL: 'http://user:hunter2@cache:6379', PORTAL_PROXY_URL: 'proxy:hunter2' });
    expect(problems).toEqual([
      'REDIS_URL must be a redis:// or rediss:// URL',
      'PORTAL_PROXY_URL must be an http:// or https:// URL',
    ]);
  });

  it('a fallback URL without its token (or actor) is refused, naming what is missing', () => {
    expect(problemsOf({ FALLBACK_URL: 'https://api.example.com', FALLBACK_ACTOR: 'me/actor' })).toEqual([
      'FALLBACK_URL, FALLBACK_TOKEN and FALLBACK_ACTOR are set together or not at all: FALLBACK_TOKEN missing',
    ]);
    expect(() =>
      loadConfig({ FALLBACK_URL: 'https://api.example.com', FALLBACK_TOKEN: 't', FALLBACK_ACTOR: 'me/actor' }),
    ).not.toThrow();
  });

  it('a cost cap that is not positive, or a ceiling below it, is refused', () => {
    expect(problemsOf({ FALLBACK_MAX_COST_USD: '0' })).toEqual([
      'FALLBACK_MAX_COST_USD must be a number > 0 (got "0")',
    ]);
    expect(problemsOf({ FALLBACK_MAX_COST_USD: 'lots' })).toEqual([
      'FALLBACK_MAX_COST_USD must be a number > 0 (got "lots")',
    ]);
    expect(problemsOf({ FALLBACK_MAX_COST_CEILING_USD: '0.01' })).toEqual([
      'FALLBACK_MAX_COST_CEILING_USD (0.01) must not be below FALLBACK_MAX_COST_USD (0.05)',
    ]);
  });

  it('a rule across variables is skipped when one of them is already wrong on its own', () => {
    expect(problemsOf({ HEADERS_TIMEOUT_MS: 'soon', REQUEST_TIMEOUT_MS: '5' })).toEqual([
      'HEADERS_TIMEOUT_MS must be an integer >= 1 and <= 2147483647 (got "soon")',
    ]);
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '6', REQUEST_TIMEOUT_MS: '5' })).toEqual([
      'HEADERS_TIMEOUT_MS (6) must not exceed REQUEST_TIMEOUT_MS (5)',
    ]);
  });

  it('in production a missing API_KEY_SECRET is an error; elsewhere the development secret is used', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'API_KEY_SECRET must be set when NODE_ENV is production (without it API keys are hashed with the public development secret)',
    ]);
    expect(loadConfig({ NODE_ENV: 'production', API_KEY_SECRET: 's3cret-s3cret-s3cret' }).apiKeySecret).toBe(
      's3cret-s3cret-s3cret',
    );
    expect(loadConfig({ NODE_ENV: 'development' }).apiKeySecret).toBe('dev-only-secret-change-me');
  });

  it('production in any case, or prod, gets the production checks; other values are accepted as they are', () => {
    const missing =
      'API_KEY_SECRET must be set when NODE_ENV is production (without it API keys are hashed with the public development secret)';
    for (const env of ['Production', 'PRODUCTION', ' production ', 'prod', 'Prod'])
      expect(problemsOf({ NODE_ENV: env }), env).toEqual([missing]);
    for (const env of ['development', 'test', 'staging', 'preproduction'])
      expect(() => loadConfig({ NODE_ENV: env }), env).not.toThrow();
  });

  it('in production the public development secret, or one shorter than 16 characters, is refused', () => {
    expect(problemsOf({ NODE_ENV: 'production', API_KEY_SECRET: 'dev-only-secret-change-me' })).toEqual([
      'API_KEY_SECRET must not be the public development secret when NODE_ENV is production',
    ]);
    expect(problemsOf({ NODE_ENV: 'Production', API_KEY_SECRET: 's3cret-s3cret' })).toEqual([
      'API_KEY_SECRET must be at least 16 characters when NODE_ENV is production (got 13)',
    ]);
    expect(() => loadConfig({ NODE_ENV: 'production', API_KEY_SECRET: '0123456789abcdef' })).not.toThrow();
    // Outside production a short secret is the operator's choice.
    expect(() => loadConfig({ API_KEY_SECRET: 'short' })).not.toThrow();
  });

  it('METRICS_PORT must differ from PORT unless one picks a free port (0); METRICS_HOST is loopback by default', () => {
    expect(problemsOf({ PORT: '9100', METRICS_PORT: '9100' })).toEqual(['METRICS_PORT (9100) must differ from PORT']);
    expect(problemsOf({ METRICS_PORT: '4000' })).toEqual(['METRICS_PORT (4000) must differ from PORT']);
    expect(() => loadConfig({ PORT: '0', METRICS_PORT: '0' })).not.toThrow();
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '9100' })).not.toThrow();
    expect(loadConfig({ METRICS_PORT: '9100' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_HOST: '10.0.0.5' }).metricsHost).toBe('10.0.0.5');
  });

  it('SHUTDOWN_GRACE_MS leaves room for the stop backstop (grace + 8 s) within a timer', () => {
    expect(loadConfig({ SHUTDOWN_GRACE_MS: String(2_147_483_647 - 8_000) }).shutdownGraceMs).toBe(2_147_475_647);
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '2147483647' })).toEqual([
      'SHUTDOWN_GRACE_MS must be an integer >= 0 and <= 2147475647 (got "2147483647")',
    ]);
  });
});

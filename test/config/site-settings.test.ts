// The own collector's settings (issue 21): proxies (`{session}` in PORTAL_PROXY_URL, or PORTAL_PROXY_URLS in
// turn, exclusive), sessions, pacing, retries, budget, breaker and canary read into Config; what is not one
// refused at start; a production start without a proxy warned about; a private CA given to impit when only
// NODE_EXTRA_CA_CERTS names it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { ProxyPlan } from '../../src/collector/site/sessions.js';
import { trustExtraCertificates } from '../../src/collector/site/trust.js';
import { ConfigError, loadConfig, warnIfNoProxy } from '../../src/config.js';

const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e
      .report()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
};

describe('the own collector in the configuration', () => {
  it('defaults: direct, 4 documents in flight, sessions of 3 documents resting 2 s, 2 retries within 20 s, a probe a minute, no canary', () => {
    const c = loadConfig({});
    expect(c.portalProxyUrls).toEqual([]);
    expect(c.site).toEqual({
      maxConcurrency: 4,
      sessionDocuments: 3,
      sessionMaxAgeMs: 300_000,
      sessionGapMs: 2_000,
      warmUp: false,
      retries: 2,
      budgetMs: 20_000,
      breakerProbeMs: 60_000,
      canaryZpids: [],
      canaryIntervalMs: 3_600_000,
    });
  });

  it('PORTAL_PROXY_URL keeps its {session}; PORTAL_PROXY_URLS is a list; the two are exclusive', () => {
    expect(
      loadConfig({ PORTAL_PROXY_URL: 'http://user-session-{session}:pw@gw.example:7000' }).portalProxyUrls,
    ).toEqual(['http://user-session-{session}:pw@gw.example:7000']);
    expect(loadConfig({ PORTAL_PROXY_URLS: 'http://a:1, socks5://b:2' }).portalProxyUrls).toEqual([
      'http://a:1',
      'socks5://b:2',
    ]);
    expect(problems({ PORTAL_PROXY_URL: 'http://a:1', PORTAL_PROXY_URLS: 'http://b:2' }).join('\n')).toContain(
      'PORTAL_PROXY_URL and PORTAL_PROXY_URLS are exclusive',
    );
    expect(problems({ PORTAL_PROXY_URLS: 'http://a:1,ftp://b' }).join('\n')).toContain(
      'PORTAL_PROXY_URLS must be a comma list',
    );
    expect(problems({ PORTAL_CANARY_ZPIDS: '123,abc' }).join('\n')).toContain(
      'PORTAL_CANARY_ZPIDS (123,abc) must be a comma list of zpids',
    );
    expect(loadConfig({ PORTAL_CANARY_ZPIDS: '2146993218, 15192198' }).site.canaryZpids).toEqual([
      '2146993218',
      '15192198',
    ]);
  });

  it('a session gets its own proxy session; a list is used in turn', () => {
    const gateway = new ProxyPlan(['http://u-session-{session}:p@gw:1']);
    expect(gateway.forSession('abc')).toBe('http://u-session-abc:p@gw:1');
    expect(gateway.forSession('def')).toBe('http://u-session-def:p@gw:1');
    const list = new ProxyPlan(['http://a:1', 'http://b:2']);
    expect(['s1', 's2', 's3'].map((s) => list.forSession(s))).toEqual(['http://a:1', 'http://b:2', 'http://a:1']);
    expect(new ProxyPlan([]).forSession('x')).toBeNull();
  });

  it('a production start without a proxy is warned about, saying why; with one, or outside production, it is not', () => {
    const warned: string[] = [];
    const logger = { warn: (m: string) => void warned.push(m) };
    warnIfNoProxy(loadConfig({ NODE_ENV: 'production', API_KEY_SECRET: 'x'.repeat(32) }), logger);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/PORTAL_PROXY_URL.*datacenter addresses are refused/);
    warnIfNoProxy(
      loadConfig({ NODE_ENV: 'production', API_KEY_SECRET: 'x'.repeat(32), PORTAL_PROXY_URL: 'http://gw:1' }),
      logger,
    );
    warnIfNoProxy(loadConfig({}), logger);
    warnIfNoProxy(
      loadConfig({ NODE_ENV: 'production', API_KEY_SECRET: 'x'.repeat(32), SELF_HOSTED_ENABLED: 'false' }),
      logger,
    );
    expect(warned).toHaveLength(1);
  });
});

describe('a private CA for the site client', () => {
  it("NODE_EXTRA_CA_CERTS alone: impit (which reads SSL_CERT_FILE) is given a bundle of Node's roots and those certificates", () => {
    const extra = join(mkdtempSync(join(tmpdir(), 'extra-ca-')), 'extra.pem');
    const pem = readFileSync(process.env.SSL_CERT_FILE!, 'utf8');
    writeFileSync(extra, pem);
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: extra };
    trustExtraCertificates(env);
    const bundle = readFileSync(env.SSL_CERT_FILE!, 'utf8');
    expect(bundle).toContain(pem.trim());
    expect(bundle).toContain(tls.rootCertificates[0]!.trim());
    // Both set: both honoured, the operator's SSL_CERT_FILE in place of Node's roots.
    const own = join(mkdtempSync(join(tmpdir(), 'own-ca-')), 'own.pem');
    const ownPem = tls.rootCertificates[1]!;
    writeFileSync(own, `${ownPem}\n`);
    const both: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: extra, SSL_CERT_FILE: own };
    trustExtraCertificates(both);
    const bundled = readFileSync(both.SSL_CERT_FILE!, 'utf8');
    expect(bundled).toContain(ownPem.trim());
    expect(bundled).toContain(pem.trim());
    expect(bundled).not.toContain(tls.rootCertificates[0]!.trim());
    // A NODE_EXTRA_CA_CERTS that cannot be read changes nothing (Node itself only warns).
    const missing: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' };
    trustExtraCertificates(missing);
    expect(missing.SSL_CERT_FILE).toBeUndefined();
    // A SSL_CERT_FILE Node cannot parse does not stop the start (Node 24 adds it to its own roots).
    const bad = join(mkdtempSync(join(tmpdir(), 'bad-ca-')), 'bad.pem');
    writeFileSync(bad, '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n');
    expect(() => trustExtraCertificates({ SSL_CERT_FILE: bad })).not.toThrow();
  });
});

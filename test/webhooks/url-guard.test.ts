// The webhook URL guard: form (http(s), credentials, length), then every address the host resolves to,
// with and without WEBHOOK_ALLOW_PRIVATE. Names are resolved by a table resolver, except `localhost`,
// resolved by the system as in production.
import { describe, expect, it } from 'vitest';
import { addressRefusal, checkWebhookUrl, type CheckedAddress, type Resolver } from '../../src/webhooks/url-guard.js';

const NAMES: Record<string, CheckedAddress[]> = {
  'public.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ],
  'mixed.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.1.2.3', family: 4 },
  ],
  'v6private.example': [{ address: 'fd12:3456::1', family: 6 }],
};
const tableResolver: Resolver = async (host) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return found;
};

/** Why the guard refuses `url`, or null; `resolver` 'system': the real DNS lookup. */
async function refusal(
  url: unknown,
  allowPrivate = false,
  resolver: Resolver | 'system' = tableResolver,
): Promise<string | null> {
  try {
    await checkWebhookUrl(url, 'webhook_url', { allowPrivate, resolve: resolver === 'system' ? undefined : resolver });
    return null;
  } catch (e) {
    const err = e as { code: string; details: { param: string; reason: string } };
    expect(err.code).toBe('bad_param');
    expect(err.details.param).toBe('webhook_url');
    return err.details.reason;
  }
}

describe('addressRefusal', () => {
  const table: [string, RegExp | null][] = [
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /CGNAT/],
    ['100.127.255.255', /CGNAT/],
    ['169.254.169.254', /link-local/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['172.15.255.255', null],
    ['172.32.0.1', null],
    ['100.63.255.255', null],
    ['100.128.0.1', null],
    ['8.8.8.8', null],
    ['192.169.0.1', null],
    ['169.253.0.1', null],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['fc00::1', /unique local/],
    ['fdff::1', /unique local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback.*IPv4 in IPv6/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /link-local/],
    ['::127.0.0.1', /loopback/],
    ['64:ff9b::a00:1', /private/],
    ['::ffff:8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['2001:db8::1', null],
    // Ranges that reach internal hosts on some networks: benchmarking (fake-IP proxies), IETF special, site-local,
    // IPv4-translated (SIIT), 6to4 carrying a private IPv4 address, local-use NAT64.
    ['198.18.0.1', /reserved/],
    ['198.19.255.255', /reserved/],
    ['192.0.0.8', /reserved/],
    ['198.17.255.255', null],
    ['198.20.0.1', null],
    ['192.0.1.1', null],
    ['fec0::1', /site-local/],
    ['feff::1', /site-local/],
    ['::ffff:0:7f00:1', /loopback.*IPv4 in IPv6/],
    ['::ffff:0:808:808', null],
    ['2002:7f00:1::', /loopback.*IPv4 in IPv6/],
    ['2002:a9fe:a9fe::1', /link-local/],
    ['2002:808:808::1', null],
    ['64:ff9b:1::7f00:1', /NAT64/],
    ['64:ff9b:1:ffff::1', /NAT64/],
  ];
  for (const [ip, expected] of table) {
    it(`${ip} → ${expected ?? 'allowed'}`, () => {
      const why = addressRefusal(ip);
      if (expected === null) expect(why).toBeNull();
      else expect(why).toMatch(expected);
    });
  }
});

describe('checkWebhookUrl', () => {
  it('accepts a public https or http URL, normalised, with the addresses it checked', async () => {
    const checked = await checkWebhookUrl('HTTPS://Public.Example/hooks?a=1', 'webhook_url', {
      allowPrivate: false,
      resolve: tableResolver,
    });
    expect(checked.url.href).toBe('https://public.example/hooks?a=1');
    expect(checked.addresses).toEqual(NAMES['public.example']);
    expect(await refusal('http://public.example:8080/x')).toBeNull();
    expect(await refusal('https://8.8.8.8/x')).toBeNull();
    expect(await refusal('https://[2606:4700:4700::1111]/x')).toBeNull();
  });

  it('refuses bad forms: not a string, other schemes, credentials, too long, no URL', async () => {
    const cases: [unknown, RegExp][] = [
      [42, /http\(s\) URL/],
      [null, /http\(s\) URL/],
      ['', /http\(s\) URL/],
      ['not a url', /http\(s\) URL/],
      ['ftp://public.example/x', /http or https/],
      ['file:///etc/passwd', /http or https/],
      ['javascript:alert(1)', /http or https/],
      ['gopher://public.example/', /http or https/],
      ['https://user:pw@public.example/x', /credentials/],
      ['https://user@public.example/x', /credentials/],
      [`https://public.example/${'a'.repeat(2048)}`, /at most 2048/],
    ];
    for (const [url, reason] of cases) expect(await refusal(url), String(url).slice(0, 40)).toMatch(reason);
  });

  it('refuses every private form of address literal, and accepts them with WEBHOOK_ALLOW_PRIVATE', async () => {
    const urls = [
      'http://127.0.0.1:9/x',
      'http://0x7f.1/x',
      'http://2130706433/x',
      'http://10.0.0.1/',
      'http://172.20.1.1/',
      'http://192.168.0.10/',
      'http://100.64.1.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://[::1]/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[ff02::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://[64:ff9b:1::a00:1]/',
      'http://198.18.0.1/',
      'http://[fec0::1]/',
    ];
    for (const url of urls) {
      expect(await refusal(url), url).toMatch(/resolves to a/);
      expect(await refusal(url, true), url).toBeNull();
    }
  });

  it('refuses names that resolve to loopback or private addresses (any one of them), unless allowed', async () => {
    expect(await refusal('http://localhost:8080/x', false, 'system')).toMatch(/loopback/);
    expect(await refusal('http://localhost:8080/x', true, 'system')).toBeNull();
    expect(await refusal('https://mixed.example/x')).toMatch(/private address \(10\.1\.2\.3\)/);
    expect(await refusal('https://v6private.example/x')).toMatch(/unique local/);
    expect(await refusal('https://mixed.example/x', true)).toBeNull();
  });

  it('refuses a host that does not resolve, even when private addresses are allowed', async () => {
    expect(await refusal('https://nowhere.example/x')).toMatch(/does not resolve/);
    expect(await refusal('https://nowhere.example/x', true)).toMatch(/does not resolve/);
  });

  it('refuses a host whose resolution never answers, once the time limit passes (the system resolver has none)', async () => {
    const silent: Resolver = () => new Promise(() => undefined);
    const refused = checkWebhookUrl('https://slow.example/x', 'webhook_url', {
      allowPrivate: true,
      resolve: silent,
      timeoutMs: 20,
    });
    await expect(refused).rejects.toMatchObject({
      code: 'bad_param',
      details: { param: 'webhook_url', reason: 'host slow.example did not resolve within 20 ms' },
    });
  });
});

// The webhook URL guard: form (http(s), credentials, length), then every address the host resolves to,
// with and without WEBHOOK_ALLOW_PRIVATE: only globally routable unicast passes (ipaddr.js's range()),
// every special range of both families is refused, WEBHOOK_ALLOW_PRIVATE lets through loopback, private
// and link-local only, and IPv6 forms that carry an IPv4 address are refused whatever it is. Names are
// resolved by a table resolver, except `localhost`, resolved by the system as in production.
import ipaddr from 'ipaddr.js';
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
  'docs.example': [{ address: '192.0.2.10', family: 4 }],
  'nat64.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '64:ff9b::a00:1', family: 6 },
  ],
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
  // [address, refused with (null: allowed), allowed with WEBHOOK_ALLOW_PRIVATE]
  const table: [string, RegExp | null, boolean][] = [
    // IPv4: globally routable unicast, the edges of the special ranges beside it.
    ['8.8.8.8', null, true],
    ['93.184.216.34', null, true],
    ['1.0.0.0', null, true],
    ['172.15.255.255', null, true],
    ['172.32.0.1', null, true],
    ['100.63.255.255', null, true],
    ['100.128.0.1', null, true],
    ['192.169.0.1', null, true],
    ['169.253.0.1', null, true],
    ['198.17.255.255', null, true],
    ['198.20.0.1', null, true],
    ['192.0.1.1', null, true],
    ['192.0.3.0', null, true],
    ['198.51.99.255', null, true],
    ['198.51.101.0', null, true],
    ['203.0.112.255', null, true],
    ['203.0.114.0', null, true],
    ['223.255.255.255', null, true],
    // IPv4 special ranges: what WEBHOOK_ALLOW_PRIVATE lets through (loopback, private, CGNAT, link-local) …
    ['127.0.0.1', /loopback/, true],
    ['127.255.255.254', /loopback/, true],
    ['10.0.0.1', /private/, true],
    ['10.255.255.255', /private/, true],
    ['172.16.0.1', /private/, true],
    ['172.31.255.255', /private/, true],
    ['192.168.1.1', /private/, true],
    ['100.64.0.1', /CGNAT/, true],
    ['100.127.255.255', /CGNAT/, true],
    ['169.254.169.254', /link-local/, true],
    // … and what it never does.
    ['0.0.0.0', /unspecified/, false],
    ['0.1.2.3', /unspecified/, false],
    ['255.255.255.255', /broadcast/, false],
    ['224.0.0.1', /multicast/, false],
    ['239.255.255.250', /multicast/, false],
    ['192.0.0.8', /reserved/, false],
    ['192.0.2.1', /reserved.*documentation/, false],
    ['198.51.100.7', /reserved.*documentation/, false],
    ['203.0.113.255', /reserved.*documentation/, false],
    ['198.18.0.1', /reserved.*benchmarking/, false],
    ['198.19.255.255', /reserved.*benchmarking/, false],
    ['192.88.99.1', /reserved/, false],
    ['240.0.0.1', /reserved/, false],
    ['254.255.255.255', /reserved/, false],
    ['192.31.196.1', /AS112/, false],
    ['192.175.48.1', /AS112/, false],
    ['192.52.193.1', /AMT/, false],
    // IPv6: globally routable unicast (2000::/3 outside the special ranges).
    ['2606:4700:4700::1111', null, true],
    ['2606:2800:220:1:248:1893:25c8:1946', null, true],
    ['2001:200::1', null, true],
    ['2001:db7:ffff::1', null, true],
    ['2001:db9::1', null, true],
    ['2003::1', null, true],
    ['3ffe::1', null, true],
    // IPv6 special ranges WEBHOOK_ALLOW_PRIVATE lets through …
    ['::1', /loopback/, true],
    ['fe80::1', /link-local/, true],
    ['febf::1', /link-local/, true],
    ['fe80::1%eth0', /link-local/, true],
    ['fc00::1', /unique local/, true],
    ['fdff::1', /unique local/, true],
    ['fec0::1', /site-local/, true],
    ['feff::1', /site-local/, true],
    // … and those it never does: forms that carry an IPv4 address (whatever it is: public ones too) …
    ['::ffff:127.0.0.1', /IPv4-mapped/, false],
    ['::ffff:7f00:1', /IPv4-mapped/, false],
    ['::ffff:10.0.0.1', /IPv4-mapped/, false],
    ['::ffff:169.254.169.254', /IPv4-mapped/, false],
    ['::ffff:8.8.8.8', /IPv4-mapped/, false],
    ['::ffff:0:7f00:1', /IPv4-translated/, false],
    ['::ffff:0:808:808', /IPv4-translated/, false],
    ['64:ff9b::7f00:1', /NAT64/, false],
    ['64:ff9b::a00:1', /NAT64/, false],
    ['64:ff9b::808:808', /NAT64/, false],
    ['64:ff9b:1::7f00:1', /NAT64/, false],
    ['64:ff9b:1:ffff::1', /NAT64/, false],
    ['2002:7f00:1::', /6to4/, false],
    ['2002:a9fe:a9fe::1', /6to4/, false],
    ['2002:808:808::1', /6to4/, false],
    ['2001::1', /Teredo/, false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/, false],
    // (ipaddr.js reads the deprecated IPv4-compatible ::a.b.c.d as IPv4-mapped; ::7f00:1, the same
    // address in hex, is outside 2000::/3: refused either way.)
    ['::127.0.0.1', /IPv4-mapped/, false],
    ['::7f00:1', /outside global unicast/, false],
    ['::808:808', /outside global unicast/, false],
    // … and the rest.
    ['::', /unspecified/, false],
    ['ff02::1', /multicast/, false],
    ['ff0e::1', /multicast/, false],
    ['100::1', /discard-only/, false],
    ['100::ffff:ffff:ffff:ffff', /discard-only/, false],
    ['2001:db8::1', /documentation/, false],
    ['2001:db8:ffff:ffff::1', /documentation/, false],
    ['3fff::1', /documentation/, false],
    ['2001:1::1', /reserved/, false],
    ['2001:2::1', /benchmarking/, false],
    ['2001:3::1', /AMT/, false],
    ['2001:4:112::1', /AS112/, false],
    ['2620:4f:8000::1', /AS112/, false],
    ['2001:10::1', /ORCHID/, false],
    ['2001:20::1', /ORCHIDv2/, false],
    ['2001:30::1', /drone/, false],
    ['5f00::1', /segment routing/, false],
    ['4000::1', /outside global unicast/, false],
    ['e000::1', /outside global unicast/, false],
    ['1::1', /outside global unicast/, false],
  ];
  for (const [ip, expected, allowedWhenPrivate] of table) {
    it(`${ip} → ${expected ?? 'allowed'}${expected && allowedWhenPrivate ? ', allowed with WEBHOOK_ALLOW_PRIVATE' : ''}`, () => {
      const why = addressRefusal(ip);
      if (expected === null) expect(why).toBeNull();
      else expect(why).toMatch(expected);
      const withPrivate = addressRefusal(ip, true);
      if (allowedWhenPrivate) expect(withPrivate).toBeNull();
      else expect(withPrivate).toBe(why);
    });
  }

  // Every range ipaddr.js names, read from its own tables: the first address of each, and one inside it, is
  // refused by a rule of its own (never the catch-all for a range the guard does not know).
  const special = (family: typeof ipaddr.IPv4 | typeof ipaddr.IPv6) =>
    Object.entries((family.prototype as unknown as { SpecialRanges: Record<string, unknown> }).SpecialRanges).flatMap(
      ([name, ranges]) => {
        const list = (Array.isArray((ranges as unknown[])[0]) ? ranges : [ranges]) as [
          ipaddr.IPv4 | ipaddr.IPv6,
          number,
        ][];
        return list.map(([net, bits]) => [name, net, bits] as const);
      },
    );
  for (const [name, net, bits] of [...special(ipaddr.IPv4), ...special(ipaddr.IPv6)]) {
    const first = net.toString();
    const bytes = net.toByteArray();
    // An address inside the range: the last byte set when the prefix leaves it free.
    if (bits < bytes.length * 8) bytes[bytes.length - 1] = 7;
    const inside = ipaddr.fromByteArray(bytes).toString();
    it(`ipaddr.js ${name} ${first}/${bits}: ${first} and ${inside} refused`, () => {
      for (const ip of [first, inside]) {
        const why = addressRefusal(ip);
        expect(why, ip).not.toBeNull();
        expect(why, ip).not.toMatch(/special-purpose/);
      }
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

  it('refuses every local form of address literal, and accepts them with WEBHOOK_ALLOW_PRIVATE', async () => {
    const urls = [
      'http://127.0.0.1:9/x',
      'http://0x7f.1/x',
      'http://2130706433/x',
      'http://10.0.0.1/',
      'http://172.20.1.1/',
      'http://192.168.0.10/',
      'http://100.64.1.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[fec0::1]/',
    ];
    for (const url of urls) {
      expect(await refusal(url), url).toMatch(/resolves to a/);
      expect(await refusal(url, true), url).toBeNull();
    }
  });

  it('refuses every other special address literal, even with WEBHOOK_ALLOW_PRIVATE', async () => {
    const urls: [string, RegExp][] = [
      ['http://0.0.0.0/', /unspecified/],
      ['http://0/', /unspecified/],
      ['http://224.0.0.1/', /multicast/],
      ['http://255.255.255.255/', /broadcast/],
      ['http://240.0.0.1/', /reserved/],
      ['http://192.0.2.1/', /documentation/],
      ['http://198.51.100.1/', /documentation/],
      ['http://203.0.113.1/', /documentation/],
      ['http://198.18.0.1/', /benchmarking/],
      ['http://[::]/', /unspecified/],
      ['http://[ff02::1]/', /multicast/],
      ['http://[::ffff:127.0.0.1]/', /IPv4-mapped/],
      ['http://[::ffff:a9fe:a9fe]/', /IPv4-mapped/],
      ['http://[::ffff:8.8.8.8]/', /IPv4-mapped/],
      ['http://[::ffff:0:7f00:1]/', /IPv4-translated/],
      ['http://[::127.0.0.1]/', /outside global unicast/],
      ['http://[2002:7f00:1::]/', /6to4/],
      ['http://[64:ff9b::7f00:1]/', /NAT64/],
      ['http://[64:ff9b:1::a00:1]/', /NAT64/],
      ['http://[2001::1]/', /Teredo/],
      ['http://[100::1]/', /discard-only/],
      ['http://[2001:db8::1]/', /documentation/],
    ];
    for (const [url, reason] of urls) {
      expect(await refusal(url), url).toMatch(reason);
      expect(await refusal(url, true), url).toMatch(reason);
    }
  });

  it('refuses names that resolve to loopback or private addresses (any one of them), unless allowed', async () => {
    expect(await refusal('http://localhost:8080/x', false, 'system')).toMatch(/loopback/);
    expect(await refusal('http://localhost:8080/x', true, 'system')).toBeNull();
    expect(await refusal('https://mixed.example/x')).toMatch(/private address \(10\.1\.2\.3\)/);
    expect(await refusal('https://v6private.example/x')).toMatch(/unique local/);
    expect(await refusal('https://mixed.example/x', true)).toBeNull();
  });

  it('judges the addresses a name resolves to, not the name: documentation and NAT64 answers are refused', async () => {
    expect(await refusal('https://docs.example/x')).toMatch(
      /reserved address \(IETF, documentation.*\) \(192\.0\.2\.10\)/,
    );
    expect(await refusal('https://docs.example/x', true)).toMatch(/documentation/);
    expect(await refusal('https://nat64.example/x')).toMatch(/resolves to a NAT64 address.*\(64:ff9b::a00:1\)/);
    expect(await refusal('https://nat64.example/x', true)).toMatch(/NAT64/);
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

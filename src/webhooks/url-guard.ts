// Webhook URLs: what a client may point deliveries at. http(s) only, no credentials, at most 2048
// characters, and a host whose every address is globally routable unicast as ipaddr.js classifies it
// (range() === 'unicast'; for IPv6, within 2000::/3 too). Every other range is refused: loopback,
// private, CGNAT, link-local, unique-local, site-local, multicast, broadcast, unspecified, documentation,
// benchmarking, reserved, discard-only, and every IPv6 form that carries an IPv4 address (IPv4-mapped,
// IPv4-translated, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo), whatever that IPv4 address is.
// WEBHOOK_ALLOW_PRIVATE lets loopback, private (CGNAT, unique-local, site-local) and link-local through,
// nothing more. Checked at create and again at every delivery attempt (after DNS resolution), which then
// connects to the very addresses checked (no window for DNS rebinding).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { LookupError } from '../contract/errors.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export interface CheckedUrl {
  url: URL;
  /** The addresses the host resolved to, all allowed; a delivery connects only to these. */
  addresses: CheckedAddress[];
}

export type Resolver = (host: string) => Promise<CheckedAddress[]>;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

const bad = (param: string, reason: string): LookupError =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** The URL's form alone (no DNS): http(s), no credentials, a host, at most 2048 characters. */
export function parseWebhookUrl(raw: unknown, param: string): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw bad(param, 'must be an http(s) URL');
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw bad(param, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad(param, 'must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(param, 'must use http or https');
  if (url.username !== '' || url.password !== '') throw bad(param, 'must not carry credentials');
  if (url.hostname === '') throw bad(param, 'must name a host');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH)
    throw bad(param, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  return url;
}

/** A URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** What one ipaddr.js range means for a webhook: refused why, and whether WEBHOOK_ALLOW_PRIVATE lets it through. */
interface RangeRule {
  why: string;
  /** A host on the service's own machine or network: allowed when WEBHOOK_ALLOW_PRIVATE is set. */
  local: boolean;
}

const local = (why: string): RangeRule => ({ why, local: true });
const never = (why: string): RangeRule => ({ why, local: false });
const EMBEDS_IPV4 = 'IPv6 forms that carry an IPv4 address are refused';

/**
 * Every range ipaddr.js names other than `unicast`, by family. A name missing here (a range a later
 * ipaddr.js adds) is refused as special-purpose, never allowed.
 */
const IPV4_RULES: Record<string, RangeRule> = {
  loopback: local('loopback address'),
  private: local('private address'),
  carrierGradeNat: local('private address (CGNAT)'),
  linkLocal: local('link-local address'),
  unspecified: never('unspecified address'),
  broadcast: never('broadcast address'),
  multicast: never('multicast address'),
  // 192.0.0.0/24 IETF, 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24 documentation, 192.88.99.0/24
  // 6to4 relay, 198.18.0.0/15 benchmarking (fake-IP proxies hand it out for any name), 240.0.0.0/4.
  reserved: never('reserved address (IETF, documentation, benchmarking or future use)'),
  as112: never('reserved address (AS112 sink)'),
  amt: never('reserved address (AMT relay)'),
};

const IPV6_RULES: Record<string, RangeRule> = {
  loopback: local('loopback address'),
  uniqueLocal: local('private address (unique local)'),
  deprecatedSiteLocal: local('private address (site-local)'),
  linkLocal: local('link-local address'),
  unspecified: never('unspecified address'),
  multicast: never('multicast address'),
  // Forms that reach an IPv4 address, often a private one: refused whatever that address is.
  ipv4Mapped: never(`IPv4-mapped address (${EMBEDS_IPV4})`),
  rfc6145: never(`IPv4-translated address (${EMBEDS_IPV4})`),
  rfc6052: never(`NAT64 address (${EMBEDS_IPV4})`),
  '6to4': never(`6to4 address (${EMBEDS_IPV4})`),
  teredo: never(`Teredo address (${EMBEDS_IPV4})`),
  discard: never('discard-only address'),
  benchmarking: never('reserved address (benchmarking)'),
  // 2001::/23 IETF protocol assignments, 2001:db8::/32 and 3fff::/20 documentation.
  reserved: never('reserved address (IETF or documentation)'),
  amt: never('reserved address (AMT relay)'),
  as112v6: never('reserved address (AS112 sink)'),
  deprecatedOrchid: never('reserved address (ORCHID)'),
  orchid2: never('reserved address (ORCHIDv2)'),
  droneRemoteIdProtocolEntityTags: never('reserved address (drone remote ID)'),
  segmentRouting: never('reserved address (segment routing)'),
};

/** 2000::/3, the only block IANA allocates for global unicast: ipaddr.js calls `unicast` all it does not name. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const OUTSIDE_GLOBAL_V6 = never(
  'reserved address (outside global unicast 2000::/3, such as IPv4-compatible ::a.b.c.d)',
);

/** The rule that refuses `ip`, or null when it is globally routable unicast. */
function refusalRule(ip: string): RangeRule | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    if (isIP(ip) === 0) throw new Error('not an IP address');
    address = ipaddr.parse(ip);
  } catch {
    return never('not an IP address');
  }
  const range: string = address.range();
  if (range === 'unicast') {
    if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return OUTSIDE_GLOBAL_V6;
    return null;
  }
  return (address.kind() === 'ipv4' ? IPV4_RULES : IPV6_RULES)[range] ?? never(`special-purpose address (${range})`);
}

/**
 * Why `ip` may not receive webhooks, or null when it may. Only globally routable unicast passes (ipaddr.js's
 * `unicast`, and for IPv6 within 2000::/3); `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) lets loopback, private
 * (CGNAT, unique-local and site-local included) and link-local through too, never anything else.
 */
export function addressRefusal(ip: string, allowPrivate = false): string | null {
  const rule = refusalRule(ip);
  if (rule === null || (allowPrivate && rule.local)) return null;
  return rule.why;
}

export interface GuardOptions {
  allowPrivate: boolean;
  resolve?: Resolver;
  /** A resolution still unanswered after this long is refused (the system resolver has no limit of its own). */
  timeoutMs?: number;
}

/** The resolver's answer, or a rejection once `ms` have passed. */
function within<T>(work: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('resolution timed out')), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The URL checked in full: its form, then every address its host resolves to (an IP literal is its own
 * address). Throws LookupError bad_param with details.param and details.reason.
 */
export async function checkWebhookUrl(raw: unknown, param: string, options: GuardOptions): Promise<CheckedUrl> {
  const url = parseWebhookUrl(raw, param);
  const host = hostOf(url);
  const literal = isIP(host);
  let addresses: CheckedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await within((options.resolve ?? systemResolver)(host), options.timeoutMs);
    } catch (e) {
      throw bad(
        param,
        (e as Error).message === 'resolution timed out'
          ? `host ${host} did not resolve within ${options.timeoutMs} ms`
          : `host ${host} does not resolve`,
      );
    }
    if (addresses.length === 0) throw bad(param, `host ${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const why = addressRefusal(address, options.allowPrivate);
    if (why !== null)
      throw bad(param, `host ${host} resolves to ${/^[aeiou]/i.test(why) ? 'an' : 'a'} ${why} (${address})`);
  }
  return { url, addresses };
}

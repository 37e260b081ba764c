// Webhook URLs: what a client may point deliveries at. http(s) only, no credentials, at most 2048
// characters, and (unless WEBHOOK_ALLOW_PRIVATE) a host whose every address is public: never
// loopback, private, CGNAT, link-local, unique-local, site-local, multicast, unspecified or reserved,
// nor an IPv6 form that carries such an IPv4 address. Checked at create and again at every delivery
// attempt, which then connects to the very addresses checked (no window for DNS rebinding).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
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

function ipv4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** Why an IPv4 address may not be a webhook's, or null when it is public. */
function ipv4Refusal(ip: string): string | null {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(ip);
  if (a === 0) return 'unspecified address';
  if (a === 127) return 'loopback address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private address';
  if (a === 100 && b >= 64 && b <= 127) return 'private address (CGNAT)';
  if (a === 169 && b === 254) return 'link-local address';
  // IETF special use (192.0.0.0/24) and benchmarking (198.18.0.0/15, which fake-IP proxies hand out for any name).
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19))) return 'reserved address';
  if (a >= 224 && a <= 239) return 'multicast address';
  if (a >= 240) return a === 255 && b === 255 && c === 255 && d === 255 ? 'broadcast address' : 'reserved address';
  return null;
}

/** The 16 bytes of an IPv6 address (a trailing dotted quad allowed). */
function ipv6Bytes(ip: string): number[] {
  let text = ip.replace(/%.*$/, '');
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const tail: number[] = [];
  if (quad) {
    tail.push(...ipv4Bytes(quad[1]!));
    text = text.slice(0, -quad[1]!.length) + '0:0';
  }
  const [head = '', rest] = text.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const all = [...h, ...Array(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (quad) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Why an IPv6 address may not be a webhook's, or null when it is public. */
function ipv6Refusal(ip: string): string | null {
  const b = ipv6Bytes(ip);
  const zeroTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  const embedded = b.slice(12).join('.');
  if (zeroTo(16)) return 'unspecified address';
  if (zeroTo(15) && b[15] === 1) return 'loopback address';
  // ::ffff:a.b.c.d (IPv4-mapped), ::ffff:0:a.b.c.d (IPv4-translated), ::a.b.c.d (IPv4-compatible),
  // 64:ff9b::a.b.c.d (NAT64), 2002:aabb:ccdd:: (6to4): the IPv4 address decides.
  const mapped = zeroTo(10) && b[10] === 0xff && b[11] === 0xff;
  const translated = zeroTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0;
  const nat64 = b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
  const v4 =
    mapped || translated || zeroTo(12) || (nat64 && b.slice(4, 12).every((x) => x === 0))
      ? embedded
      : b[0] === 0x20 && b[1] === 0x02
        ? b.slice(2, 6).join('.')
        : null;
  if (v4 !== null) {
    const why = ipv4Refusal(v4);
    return why === null ? null : `${why} (IPv4 in IPv6)`;
  }
  // 64:ff9b:1::/48 is NAT64 for a network's own use: whatever it reaches is local.
  if (nat64 && b[4] === 0 && b[5] === 1) return 'private address (local NAT64)';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local address';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'private address (site-local)';
  if ((b[0]! & 0xfe) === 0xfc) return 'private address (unique local)';
  if (b[0] === 0xff) return 'multicast address';
  return null;
}

/** Why `ip` may not receive webhooks, or null when it may. */
export function addressRefusal(ip: string): string | null {
  const family = isIP(ip);
  if (family === 4) return ipv4Refusal(ip);
  if (family === 6) return ipv6Refusal(ip);
  return 'not an IP address';
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
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const why = addressRefusal(address);
      if (why !== null) throw bad(param, `host ${host} resolves to a ${why} (${address})`);
    }
  }
  return { url, addresses };
}

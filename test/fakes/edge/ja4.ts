// The TLS fingerprint the fake edge judges clients by: the first bytes a client sends (its ClientHello),
// parsed, and their JA4 (FoxIO's spec, github.com/FoxIO-LLC/ja4, JA4 "TLS client"). JA4 sorts ciphers and
// extensions, so a client that shuffles extension order per connection (Chrome does) still has one JA4.
// KNOWN_JA4 holds real browsers' JA4s as captured (research: listing-site-edge.md §1, §4): the drift
// test compares impit's profile against them, and the edge's `ja4` rule expects them.
import { createHash } from 'node:crypto';

/** Real browsers' JA4s (with SNI, over TCP), by browser and major version. */
export const KNOWN_JA4 = {
  chrome151: 't13d1516h2_8daaf6152771_806a8c22fdea',
  chrome142: 't13d1516h2_8daaf6152771_d8a2da3f94cd',
} as const;

export interface ClientHello {
  /** Cipher suites as sent, GREASE included. */
  ciphers: number[];
  /** Extension types as sent, in order, GREASE included. */
  extensions: number[];
  /** Server name (SNI), or null when the client sent none (a connection to an IP address). */
  sni: string | null;
  /** ALPN protocols offered, in order (`['h2', 'http/1.1']` for a browser); empty when none. */
  alpn: string[];
  /** The handshake's legacy version field (0x0303 for TLS 1.2 and 1.3 alike). */
  legacyVersion: number;
  /** supported_versions, in order, GREASE included; empty when the extension is absent. */
  supportedVersions: number[];
  /** signature_algorithms, in order; empty when the extension is absent. */
  signatureAlgorithms: number[];
  /** Cipher suites not counting GREASE. */
  cipherCount: number;
}

const HANDSHAKE = 0x16;
const CLIENT_HELLO = 0x01;
const EXT = { sni: 0x0000, signatureAlgorithms: 0x000d, alpn: 0x0010, supportedVersions: 0x002b } as const;

/** GREASE (RFC 8701): 0x0a0a, 0x1a1a, … 0xfafa. Clients send them at random to keep servers tolerant. */
export const isGrease = (v: number): boolean => (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 0xff);

/**
 * How far `buf` (a connection's first bytes) is from holding the whole ClientHello: `'complete'`,
 * `'more'` (wait for more bytes), or `'not-tls'` (not a TLS handshake at all). The hello may span
 * records and TCP segments; a post-quantum key share makes Chrome's about 1.8 KB.
 */
export function helloState(buf: Buffer): 'complete' | 'more' | 'not-tls' {
  const body = handshakeBytes(buf);
  if (body === 'not-tls') return 'not-tls';
  if (body.length < 4) return 'more';
  if (body[0] !== CLIENT_HELLO) return 'not-tls';
  return body.length >= 4 + body.readUIntBE(1, 3) ? 'complete' : 'more';
}

/** The handshake bytes carried by the complete handshake records at the start of `buf`. */
function handshakeBytes(buf: Buffer): Buffer | 'not-tls' {
  const parts: Buffer[] = [];
  for (let at = 0; at + 5 <= buf.length; ) {
    if (buf[at] !== HANDSHAKE || buf[at + 1] !== 0x03) return 'not-tls';
    const len = buf.readUInt16BE(at + 3);
    if (at + 5 + len > buf.length) break;
    parts.push(buf.subarray(at + 5, at + 5 + len));
    at += 5 + len;
  }
  if (parts.length === 0 && buf.length > 0 && buf[0] !== HANDSHAKE) return 'not-tls';
  return Buffer.concat(parts);
}

/** A reader over a buffer that throws on a read past its end (a truncated or malformed hello). */
class Reader {
  constructor(
    private readonly buf: Buffer,
    private at = 0,
  ) {}
  get done(): boolean {
    return this.at >= this.buf.length;
  }
  u8(): number {
    return this.take(1).readUInt8(0);
  }
  u16(): number {
    return this.take(2).readUInt16BE(0);
  }
  take(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new Error('ClientHello truncated');
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** A sub-reader over the next `len`-prefixed block (`size` bytes of length). */
  block(size: 1 | 2 | 3): Reader {
    const len = size === 1 ? this.u8() : size === 2 ? this.u16() : this.take(3).readUIntBE(0, 3);
    return new Reader(this.take(len));
  }
  /** Everything not read yet. */
  rest(): Buffer {
    return this.take(this.buf.length - this.at);
  }
  u16s(): number[] {
    const out: number[] = [];
    while (!this.done) out.push(this.u16());
    return out;
  }
}

/** Parses a connection's first bytes (one or more TLS records holding a ClientHello). */
export function parseClientHello(buf: Buffer): ClientHello {
  const body = handshakeBytes(buf);
  if (body === 'not-tls' || body[0] !== CLIENT_HELLO) throw new Error('not a TLS ClientHello');
  const r = new Reader(body, 1).block(3);
  const legacyVersion = r.u16();
  r.take(32); // random
  r.block(1); // legacy session id
  const ciphers = r.block(2).u16s();
  r.block(1); // compression methods
  const hello: ClientHello = {
    ciphers,
    extensions: [],
    sni: null,
    alpn: [],
    legacyVersion,
    supportedVersions: [],
    signatureAlgorithms: [],
    cipherCount: ciphers.filter((c) => !isGrease(c)).length,
  };
  if (r.done) return hello; // a hello without extensions (TLS 1.2 and older only)
  const exts = r.block(2);
  while (!exts.done) {
    const type = exts.u16();
    const data = exts.block(2);
    hello.extensions.push(type);
    if (type === EXT.sni) {
      // server_name_list: (type 0 = host_name, name) pairs; only host_name exists.
      const names = data.block(2);
      while (!names.done) {
        const kind = names.u8();
        const name = names.block(2).rest().toString('latin1');
        if (kind === 0 && hello.sni === null) hello.sni = name;
      }
    } else if (type === EXT.alpn) {
      const list = data.block(2);
      while (!list.done) hello.alpn.push(list.block(1).rest().toString('latin1'));
    } else if (type === EXT.supportedVersions) {
      hello.supportedVersions = data.block(1).u16s();
    } else if (type === EXT.signatureAlgorithms) {
      hello.signatureAlgorithms = data.block(2).u16s();
    }
  }
  return hello;
}

// JA4's version labels: the highest non-GREASE supported_versions entry, else the legacy field.
const VERSION_LABEL: Record<number, string> = {
  0x0304: '13',
  0x0303: '12',
  0x0302: '11',
  0x0301: '10',
  0x0300: 's3',
  0x0002: 's2',
  0xfeff: 'd1',
  0xfefd: 'd2',
  0xfefc: 'd3',
};

const hex4 = (v: number): string => v.toString(16).padStart(4, '0');
const two = (n: number): string => String(Math.min(n, 99)).padStart(2, '0');
const sha12 = (s: string): string =>
  s === '' ? '000000000000' : createHash('sha256').update(s).digest('hex').slice(0, 12);
const alnum = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Za-z]$/.test(c);

/** JA4's ALPN part: first and last character of the first protocol, '00' without ALPN. */
function alpnLabel(alpn: string[]): string {
  const first = alpn[0];
  if (!first) return '00';
  const a = first[0];
  const z = first[first.length - 1];
  if (alnum(a) && alnum(z)) return `${a}${z}`;
  // The spec's rule for a non-alphanumeric end: first hex digit of the first byte, last of the last.
  const bytes = Buffer.from(first, 'latin1').toString('hex');
  return `${bytes[0]}${bytes[bytes.length - 1]}`;
}

/** The hello's JA4 (TLS over TCP): `t13d1516h2_<ciphers hash>_<extensions+sigalgs hash>`. */
export function ja4(hello: ClientHello): string {
  const versions = hello.supportedVersions.filter((v) => !isGrease(v));
  const version = VERSION_LABEL[versions.length ? Math.max(...versions) : hello.legacyVersion] ?? '00';
  const ciphers = hello.ciphers.filter((c) => !isGrease(c));
  const extensions = hello.extensions.filter((e) => !isGrease(e));
  const a = `t${version}${hello.sni !== null ? 'd' : 'i'}${two(ciphers.length)}${two(extensions.length)}${alpnLabel(hello.alpn)}`;
  const b = sha12(ciphers.map(hex4).sort().join(','));
  // SNI and ALPN are counted in part a but left out of the hash (they vary by destination).
  const hashed = extensions
    .filter((e) => e !== EXT.sni && e !== EXT.alpn)
    .map(hex4)
    .sort()
    .join(',');
  const sigalgs = hello.signatureAlgorithms
    .filter((s) => !isGrease(s))
    .map(hex4)
    .join(',');
  const c = hashed === '' ? '000000000000' : sha12(sigalgs ? `${hashed}_${sigalgs}` : hashed);
  return `${a}_${b}_${c}`;
}

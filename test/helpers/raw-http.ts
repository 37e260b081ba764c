// HTTP/1.1 over a bare TCP socket, for what fetch cannot send: no Host, odd Expect, malformed
// content types, half-sent headers or bodies. A response is complete when its content-length is
// read (or the server closes the socket); nothing here waits on a clock.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

/** The body of a content-length response, once complete. */
function sized(rest: string, length: string | undefined): string | null {
  if (length === undefined) return null;
  const bytes = Buffer.from(rest, 'utf8');
  return bytes.length < Number(length) ? null : bytes.subarray(0, Number(length)).toString('utf8');
}

/** The body of a chunked response, once its last chunk has arrived. */
function dechunk(rest: string): string | null {
  let bytes = Buffer.from(rest, 'utf8');
  const parts: Buffer[] = [];
  for (;;) {
    const eol = bytes.indexOf('\r\n');
    if (eol < 0) return null;
    const size = parseInt(bytes.subarray(0, eol).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    if (bytes.length < eol + 2 + size + 2) return null;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    bytes = bytes.subarray(eol + 2 + size + 2);
  }
}

/**
 * The first response in `raw`, once complete; with `final` (the socket closed), whatever arrived of
 * its body (a HEAD answer has none).
 */
export function parseRawResponse(received: string, final = false): RawResponse | null {
  // An interim 100 Continue (to Expect: 100-continue) comes before the answer.
  const raw = received.replace(/^(HTTP\/1\.[01] 100 [^\r]*\r\n\r\n)+/, '');
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const rest = raw.slice(end + 4);
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : sized(rest, headers['content-length']);
  if (body === null && !final) return null;
  const text = body ?? rest;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, text, json };
}

export interface RawExchange {
  socket: net.Socket;
  /** The first complete response, or null when the server closed without one. */
  response: Promise<RawResponse | null>;
  /** Resolves when the server (or we) closed the socket. */
  closed: Promise<void>;
}

/** Connects, writes `bytes`, and collects what the server answers. */
export function rawExchange(port: number, bytes: string): RawExchange {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let settle: (r: RawResponse | null) => void = () => {};
  const response = new Promise<RawResponse | null>((resolve) => (settle = resolve));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('connect', () => socket.write(bytes));
  socket.on('data', (d) => {
    chunks.push(typeof d === 'string' ? Buffer.from(d) : d);
    const r = parseRawResponse(Buffer.concat(chunks).toString('utf8'));
    if (r) settle(r);
  });
  socket.on('error', () => undefined);
  socket.on('close', () => settle(parseRawResponse(Buffer.concat(chunks).toString('utf8'), true)));
  return { socket, response, closed };
}

/** One request over its own connection; the answer. */
export async function rawRequest(port: number, bytes: string): Promise<RawResponse | null> {
  const x = rawExchange(port, bytes);
  const r = await x.response;
  x.socket.destroy();
  return r;
}

export const portOf = (url: string): number => Number(new URL(url).port);

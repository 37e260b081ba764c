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

export function parseRawResponse(raw: string): RawResponse | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const rest = raw.slice(end + 4);
  const length = headers['content-length'];
  if (length === undefined || Buffer.byteLength(rest) < Number(length)) return null;
  const text = rest.slice(0, Number(length));
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
  let received = '';
  let settle: (r: RawResponse | null) => void = () => {};
  const response = new Promise<RawResponse | null>((resolve) => (settle = resolve));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('connect', () => socket.write(bytes));
  socket.on('data', (d) => {
    received += d.toString('utf8');
    const r = parseRawResponse(received);
    if (r) settle(r);
  });
  socket.on('error', () => undefined);
  socket.on('close', () => settle(parseRawResponse(received)));
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

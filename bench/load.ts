// The load generator: raw keep-alive sockets on loopback, each sending one prepared request at a time
// and reading just enough of the answer to know its status and where it ends. Far lighter than an
// HTTP client, so the server under test, not the generator, runs out of CPU first.
import net from 'node:net';

export interface Target {
  /** One or more servers; connections are spread over them. */
  urls: string[];
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 200, and connection errors. */
  non200: number;
  statuses: Record<string, number>;
}

function requestBytes(url: URL, t: Target): Buffer {
  const body = t.body === undefined ? null : Buffer.from(t.body);
  const head = [
    `${t.method ?? 'GET'} ${t.path} HTTP/1.1`,
    `host: ${url.host}`,
    'connection: keep-alive',
    ...Object.entries(t.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(body ? [`content-length: ${body.length}`] : []),
  ].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`), ...(body ? [body] : [])]);
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/** One keep-alive connection: send, read one answer, repeat while `more()` says so. */
function connection(
  url: URL,
  request: Buffer,
  more: () => boolean,
  done: (status: number, ms: number) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    let pending: Buffer = Buffer.alloc(0);
    let status = 0;
    let bodyLeft = -1; // -1: reading the head; -2: chunked body
    let started = 0;
    const send = () => {
      if (!more()) {
        socket.end();
        return;
      }
      started = performance.now();
      socket.write(request);
    };
    const finish = () => {
      done(status, performance.now() - started);
      pending = Buffer.alloc(0);
      bodyLeft = -1;
      send();
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      if (bodyLeft > 0) {
        bodyLeft -= chunk.length;
        if (bodyLeft <= 0) finish();
        return;
      }
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      if (bodyLeft === -2) {
        if (pending.subarray(-5).equals(CHUNKED_END)) finish();
        return;
      }
      const end = pending.indexOf(HEAD_END);
      if (end === -1) return;
      const head = pending.toString('latin1', 0, end).toLowerCase();
      status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
      if (length) {
        bodyLeft = Number(length[1]) - (pending.length - end - 4);
        if (bodyLeft <= 0) finish();
      } else if (head.includes('transfer-encoding: chunked')) {
        bodyLeft = -2;
        pending = pending.subarray(end + 4);
        if (pending.subarray(-5).equals(CHUNKED_END)) finish();
      } else finish();
    });
    socket.on('error', () => {
      done(0, 0);
      resolve();
    });
    socket.on('close', () => resolve());
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Runs `connections` closed-loop connections for `durationMs`, or until `requests` answers in all. */
export async function load(
  t: Target,
  opts: { connections: number; durationMs?: number; requests?: number },
): Promise<LoadResult> {
  const urls = t.urls.map((u) => new URL(u));
  const requests = urls.map((u) => requestBytes(u, t));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  const started = performance.now();
  const until = opts.durationMs === undefined ? Infinity : started + opts.durationMs;
  const more = () => {
    if (performance.now() >= until || (opts.requests !== undefined && sent >= opts.requests)) return false;
    sent += 1;
    return true;
  };
  const record = (status: number, ms: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status !== 0) latencies.push(ms);
  };
  await Promise.all(
    Array.from({ length: opts.connections }, (_, i) =>
      connection(urls[i % urls.length]!, requests[i % urls.length]!, more, record),
    ),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    requests: latencies.length,
    perSecond: latencies.length / (elapsed / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    non200: total - (statuses['200'] ?? 0),
    statuses,
  };
}

/** Median of a timed function, in ms. */
export function medianMs(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

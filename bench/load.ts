// A small closed-loop HTTP load generator on loopback: N concurrent keep-alive clients for a fixed time.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export async function load(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; concurrency: number; durationMs: number },
): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + opts.durationMs;

  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.request(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method: opts.method ?? 'GET', headers: opts.headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) errors += 1;
            latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(opts.body);
    });

  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { requests: latencies.length, perSecond: latencies.length / (opts.durationMs / 1000), p50Ms: at(0.5), p99Ms: at(0.99), errors };
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

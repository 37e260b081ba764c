// Four ~8 MB job bodies at once, over real sockets (issue 25, item 5): NDJSON and CSV are parsed a line at a
// time as their pieces arrive, JSON kept as its pieces until the end, so /healthz keeps answering while the
// bodies are being read. Event order, never time: each body is sent half, then /healthz must answer before
// any of the four jobs does; then the rest is sent and every job is taken whole (10,000 items each).
import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JOB_BODY_BYTES } from '../../src/contract/jobs.js';
import { MAX_JOB_ITEMS } from '../../src/jobs/types.js';
import { startTestService, type TestService } from '../helpers/service.js';

const KEY = 'test_paid_key_0001';
const link = (i: number) => `https://www.zillow.com/homedetails/${'a'.repeat(760)}-${i}/${100000 + i}_zpid/`;
const LINKS = Array.from({ length: MAX_JOB_ITEMS }, (_, i) => link(i));
const BODIES: Array<{ type: string; body: Buffer }> = [
  { type: 'application/x-ndjson', body: Buffer.from(LINKS.map((l) => JSON.stringify(l)).join('\n') + '\n') },
  { type: 'text/csv', body: Buffer.from('url,note\r\n' + LINKS.map((l) => `${l},"a ""q""\nb"`).join('\r\n') + '\r\n') },
  { type: 'application/x-ndjson', body: Buffer.from(LINKS.map((l) => JSON.stringify({ url: l })).join('\n')) },
  { type: 'application/json', body: Buffer.from(JSON.stringify({ items: LINKS })) },
];

describe('four large job bodies at once', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({
      socket: 'raw-http',
      accounts: { paid: { key: KEY, plan: 'paid', included: 100_000, overage: false } },
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  /** Writes `bytes`, resolving once the socket took them (drain). */
  const write = (req: ClientRequest, bytes: Buffer) =>
    new Promise<void>((resolve, reject) => req.write(bytes, (err) => (err ? reject(err) : resolve())));

  it('/healthz answers while they are read, before any of their jobs; each is then taken whole', async () => {
    for (const b of BODIES) expect(b.body.length).toBeLessThanOrEqual(MAX_JOB_BODY_BYTES);
    expect(BODIES.every((b) => b.body.length > 7 * 1024 * 1024)).toBe(true);
    const { port } = new URL(svc.url);
    const order: string[] = [];
    const posts = BODIES.map(({ type, body }, n) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/portal/jobs',
        headers: { 'x-api-key': KEY, 'content-type': type, 'content-length': body.length },
      });
      const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            order.push(`job ${n}`);
            resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) });
          });
        });
        req.on('error', reject);
      });
      return { req, body, answer };
    });
    // Half of every body, in 64 KB pieces, the four interleaved.
    const PIECE = 64 * 1024;
    const half = (b: Buffer) => Math.floor(b.length / 2);
    for (let at = 0; posts.some((p) => at < half(p.body)); at += PIECE) {
      await Promise.all(
        posts
          .filter((p) => at < half(p.body))
          .map((p) => write(p.req, p.body.subarray(at, Math.min(at + PIECE, half(p.body))))),
      );
    }
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    order.push('healthz');
    // The rest of every body, the four at once, and /healthz asked again while they are taken.
    const rest = posts.map(async (p) => {
      for (let at = half(p.body); at < p.body.length; at += PIECE)
        await write(p.req, p.body.subarray(at, Math.min(at + PIECE, p.body.length)));
      p.req.end();
    });
    const again = fetch(`${svc.url}/healthz`).then((r) => {
      order.push('healthz again');
      return r.status;
    });
    await Promise.all(rest);
    const answers = await Promise.all(posts.map((p) => p.answer));
    expect(await again).toBe(200);
    expect(order[0]).toBe('healthz');
    for (const a of answers)
      expect(a).toMatchObject({ status: 202, body: { data: { status: 'queued', count: MAX_JOB_ITEMS } } });
  });
});

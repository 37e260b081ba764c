// Headers on every response, the envelope for unknown routes and methods, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/contract/index.js';
import { expectSchema } from '../helpers/schema.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  // On a socket: Node's own parser answers some of these (headers too large, a malformed URL, HEAD).
  svc = await startTestService({ socket: 'raw-http' });
});
afterAll(() => svc.close());

const expectV1Headers = (h: Headers) => {
  expect(h.get('x-api-version')).toBe('v1');
  expect(h.get('cache-control')).toBe('no-store');
  expect(h.get('content-type')).toMatch(/^application\/json/);
};

describe('every response', () => {
  it('healthz answers 200 with the v1 headers', async () => {
    const r = await svc.get('/healthz', null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expectV1Headers(r.headers);
  });

  it('readyz reports the store, the page workers and the collector it checked', async () => {
    const r = await svc.get('/readyz', null);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'ready',
      store: 'memory',
      checks: {
        store: { ok: true, kind: 'memory' },
        page_workers: { ok: true, configured: true, max_queue: svc.config.pageQueueMax, closed: false },
        collector: { ok: true, live_lookups: true, self_hosted: true, fallback: null },
      },
    });
  });

  it('an unknown route is a 404 in the envelope, never HTML', async () => {
    const r = await svc.get('/v1/portal/nope');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('route_not_found');
    expect(typeof r.body.meta.took_ms).toBe('number');
    expectSchema(ErrorEnvelope, r.body);
    expectV1Headers(r.headers);
  });

  it.each([
    ['POST', '/v1/portal/property', 'GET'],
    ['GET', '/v1/portal/batch', 'POST'],
    ['DELETE', '/v1/account', 'GET'],
  ])('%s %s is a 405 naming the allowed method', async (method, path, allowed) => {
    const res = await fetch(svc.url + path, { method, headers: { 'x-api-key': svc.keys.free! } });
    const body = await res.json();
    expect(res.status).toBe(405);
    expect(body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe(allowed);
    expectV1Headers(res.headers);
  });

  it('errors carry the v1 headers too', async () => {
    const r = await svc.get('/v1/portal/property', null);
    expect(r.status).toBe(401);
    expectV1Headers(r.headers);
  });

  it('every response carries a request id', async () => {
    const r = await svc.get('/healthz', null);
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a malformed URL is a 400 in the envelope with the v1 headers', async () => {
    for (const path of ['/v1/portal/property%E0%A4%A?zpid=1', '/%']) {
      const res = await fetch(svc.url + path, { headers: { 'x-api-key': svc.keys.free! } });
      const body = await res.json();
      expect(res.status).toBe(400);
      expect(body.error.code).toBe('bad_param');
      expectSchema(ErrorEnvelope, body);
      expectV1Headers(res.headers);
      expect(res.headers.get('x-request-id')).toMatch(/\S/);
    }
  });

  it('headers too large for the HTTP parser are a 431 in the envelope with the v1 headers', async () => {
    const res = await fetch(`${svc.url}/healthz`, { headers: { 'x-big': 'x'.repeat(20_000) } });
    const body = await res.json();
    expect(res.status).toBe(431);
    expect(body.error.code).toBe('headers_too_large');
    expectV1Headers(res.headers);
  });

  it('HEAD of a lookup is refused (405) and costs nothing; HEAD of the health checks works', async () => {
    const head = await fetch(`${svc.url}/v1/portal/property?zpid=114303858`, {
      method: 'HEAD',
      headers: { 'x-api-key': svc.keys.free! },
    });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    expect(head.headers.get('x-api-version')).toBe('v1');
    expect(svc.replay.requests).toEqual([]);
    expect((await fetch(`${svc.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });
});

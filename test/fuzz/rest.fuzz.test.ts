// Property-based fuzzing of the REST face (issue 9, "keep it proven"): every query parameter of a single
// lookup, batch bodies under any content-type, and headers. Whatever is sent, the answer is in the
// contract (support.ts), the service stays up and its memory flat.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { apiKey, batchBody, contentType, extraHeaders, propertyQuery } from './arbitraries.js';
import { assertFuzz, expectRestAnswer, FUZZ_RUNS, FUZZ_TIMEOUT_MS } from './support.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    // The fuzz explores inputs, not the per-key limits (test/rest/rate-limit.test.ts): one key sends every request.
    env: { RATE_LIMIT_PER_MINUTE: '0' },
    accounts: {
      paid: { key: 'fuzz_paid_key_0001', plan: 'paid', included: 1_000_000, overage: true, overageRateUsd: 0.01 },
      tiny: { key: 'fuzz_tiny_key_0001', plan: 'free', allotment: 1 },
    },
  });
});
afterAll(() => svc.close());

const keys = () => [svc.keys.paid!, svc.keys.tiny!];

async function stillServing(): Promise<void> {
  const r = await svc.app.inject({ method: 'GET', url: '/healthz' });
  expect(r.statusCode).toBe(200);
}

describe('REST fuzz', () => {
  it(`GET /v1/portal/property with any query string (${FUZZ_RUNS} cases)`, { timeout: FUZZ_TIMEOUT_MS }, async () => {
    await assertFuzz(
      fc.asyncProperty(propertyQuery, fc.option(apiKey(keys()), { nil: undefined }), async (query, key) => {
        const r = await svc.app.inject({
          method: 'GET',
          url: `/v1/portal/property?${query}`,
          headers: key === undefined ? {} : { 'x-api-key': key },
        });
        expectRestAnswer({ status: r.statusCode, headers: r.headers, text: r.body });
      }),
    );
    await stillServing();
  });

  it(`POST /v1/portal/batch with any body and content-type (${FUZZ_RUNS} cases)`, {
    timeout: FUZZ_TIMEOUT_MS,
  }, async () => {
    await assertFuzz(
      fc.asyncProperty(
        batchBody,
        fc.option(contentType, { nil: undefined }),
        apiKey(keys()),
        async (body, type, key) => {
          const r = await svc.app.inject({
            method: 'POST',
            url: '/v1/portal/batch',
            headers: { 'x-api-key': key, ...(type === undefined ? {} : { 'content-type': type }) },
            payload: body,
          });
          expectRestAnswer({ status: r.statusCode, headers: r.headers, text: r.body });
          if (r.statusCode === 200) {
            const { data, meta } = JSON.parse(r.body);
            expect(meta.credits).toBe(
              data.reduce(
                (n: number, d: { ok: boolean; meta?: { credits: number } }) => n + (d.ok ? d.meta!.credits : 0),
                0,
              ),
            );
          }
        },
      ),
    );
    await stillServing();
  });

  it(`any headers on every route (${FUZZ_RUNS} cases)`, { timeout: FUZZ_TIMEOUT_MS }, async () => {
    const route = fc.constantFrom(
      { method: 'GET', url: '/v1/portal/property?zpid=114303858' },
      { method: 'GET', url: '/v1/account' },
      { method: 'POST', url: '/v1/portal/batch' },
      { method: 'GET', url: '/healthz' },
      { method: 'GET', url: '/readyz' },
      { method: 'DELETE', url: '/v1/account' },
      { method: 'PUT', url: '/v1/portal/batch' },
      { method: 'OPTIONS', url: '/v1/portal/property' },
      { method: 'GET', url: '/v2/portal/property' },
    );
    await assertFuzz(
      fc.asyncProperty(
        route,
        extraHeaders,
        fc.option(apiKey(keys()), { nil: undefined }),
        fc.option(contentType, { nil: undefined }),
        async (to, headers, key, type) => {
          const r = await svc.app.inject({
            method: to.method as 'GET',
            url: to.url,
            headers: {
              ...headers,
              ...(key === undefined ? {} : { 'x-api-key': key }),
              ...(type === undefined ? {} : { 'content-type': type }),
            },
            ...(to.method === 'POST' ? { payload: '{"items":[{"zpid":"114303858"}]}' } : {}),
          });
          expectRestAnswer({ status: r.statusCode, headers: r.headers, text: r.body });
        },
      ),
    );
    await stillServing();
  });
});

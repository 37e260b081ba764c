// Property-based fuzzing of the watch routes: any JSON value or text as the body of POST
// /v1/portal/watches, any id on GET and DELETE. Whatever is sent the answer is 201 or a 4xx in the
// error envelope, never a 500. No worker runs: nothing is read or billed.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    env: { WATCH_MIN_INTERVAL_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '0' },
  });
});
afterAll(() => svc?.close());

const field = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.double(),
  fc.constantFrom('15192198', 'http://127.0.0.1:9/h', 'https://www.zillow.com/homedetails/x/1_zpid/', 24, 0.5),
);
const body = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
  fc
    .record(
      { url: field, zpid: field, address: field, webhook_url: field, interval_hours: field, extra: field },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
);

function expectAnswer(status: number, text: string): void {
  expect(status === 201 || (status >= 400 && status < 500), `${status} ${text}`).toBe(true);
  const parsed = JSON.parse(text);
  if (status >= 400) expect(typeof parsed.error.code).toBe('string');
}

it('POST /v1/portal/watches with any body: 201 or a coded 4xx', async () => {
  await fc.assert(
    fc.asyncProperty(body, async (payload) => {
      const r = await svc.app.inject({
        method: 'POST',
        url: '/v1/portal/watches',
        headers: { 'x-api-key': svc.keys.paid!, 'content-type': 'application/json' },
        payload,
      });
      expectAnswer(r.statusCode, r.body);
    }),
    { numRuns: 300 },
  );
}, 60_000);

it('GET and DELETE /v1/portal/watches/<any id>: 404 not_found (or a coded 4xx), never a 500', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ minLength: 1 }), fc.constantFrom('GET', 'DELETE'), async (id, method) => {
      const r = await svc.app.inject({
        method: method as 'GET',
        url: `/v1/portal/watches/${encodeURIComponent(id)}`,
        headers: { 'x-api-key': svc.keys.paid! },
      });
      expect(r.statusCode >= 400 && r.statusCode < 500, `${r.statusCode} ${r.body}`).toBe(true);
      expect(typeof JSON.parse(r.body).error.code).toBe('string');
    }),
    { numRuns: 200 },
  );
}, 60_000);

// A GraphQL body whose operation is not an object (`null`, `[null]`, `[true]`) is the client's error,
// answered with a code like any other missing query, never a 500: the checks that read a request's
// operations before Yoga does (API key, batch limits) take such an operation as one with no query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const post = (payload: string, key?: string) =>
  svc.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    payload,
  });

describe('operations that are not objects', () => {
  it.each(['[null]', '[true]', '[null, {"query":"{ __typename }"}]'])(
    'batched %s: 401 missing_api_key without a key; with one, a coded error for that operation',
    async (payload) => {
      const keyless = await post(payload);
      expect(keyless.statusCode, keyless.body).toBe(401);
      expect(keyless.json().errors[0].extensions.code).toBe('missing_api_key');

      const keyed = await post(payload, svc.keys.free);
      expect(keyed.statusCode, keyed.body).toBe(200);
      const [first] = keyed.json();
      expect(first.errors[0].extensions.code, keyed.body).toBe('missing_query');
    },
  );

  it.each(['null', 'true', '"x"'])('single %s: a coded client error, never a 5xx', async (payload) => {
    for (const key of [undefined, svc.keys.free]) {
      const r = await post(payload, key);
      expect(r.statusCode, r.body).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, r.body).toBeLessThan(500);
      expect(typeof r.json().errors[0].extensions.code, r.body).toBe('string');
    }
  });
});

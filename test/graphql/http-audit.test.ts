// GraphQL over HTTP conformance: graphql-http's server audits against the service's routes (in process:
// the audits judge what the routes answer), with the API key supplied by a fetch wrapper (every
// non-introspection operation needs one).
// Every audit passes, or is listed in DEVIATIONS with its reason (also in docs/graphql.md).
//
// Plainly: the audits themselves only send introspection-only documents ({ __typename } and the
// like), which need no key, so they never touch an authenticated field. The last test shows that the
// wrapper's key does reach one: { account { plan } } through the same wrapper succeeds, and fails
// (401) without it.
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** Audit id → why the server answers differently. Keep in step with docs/graphql.md. */
const DEVIATIONS: Record<string, string> = {};

const withKey: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-api-key', svc.keys.free!);
  return svc.fetch(input, { ...init, headers });
};

const audits = serverAudits({ url: () => `${svc.url}/graphql`, fetchFn: withKey });

describe('graphql-http server audits', () => {
  it('there are audits to run', () => {
    expect(audits.length).toBeGreaterThan(50);
  });

  for (const audit of audits) {
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      const deviation = DEVIATIONS[audit.id];
      if (deviation) {
        // Documented deviation: it must still be one (if it passes now, remove it from the list and the docs).
        expect(result.status, deviation).not.toBe('ok');
        return;
      }
      // A failure names the audit's reason and the answer the server gave.
      const why =
        result.status === 'ok'
          ? 'ok'
          : `${result.status}: ${result.reason} (HTTP ${result.response.status}, ${result.response.headers.get('content-type')})`;
      expect(['ok', 'warn'], why).toContain(result.status);
    });
  }

  it("the fetch wrapper's key reaches an authenticated field ({ account { plan } }): 200 with it, 401 without", async () => {
    const ask = (f: typeof fetch) =>
      f(`${svc.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: '{ account { plan } }' }),
      });
    const withIt = await ask(withKey);
    expect(withIt.status).toBe(200);
    expect(await withIt.json()).toEqual({ data: { account: { plan: 'free' } } });
    const without = await ask((input, init) => svc.fetch(input, init));
    expect(without.status).toBe(401);
    expect((await without.json()).errors[0].extensions.code).toBe('missing_api_key');
  });
});

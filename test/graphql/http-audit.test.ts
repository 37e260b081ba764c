// GraphQL over HTTP conformance: graphql-http's server audits against the real server on loopback,
// with the API key supplied by a fetch wrapper (every non-introspection operation needs one).
// Every audit passes, or is listed in DEVIATIONS with its reason (also in docs/graphql.md).
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
  return fetch(input, { ...init, headers });
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
      if (result.status === 'error') throw new Error(`${result.reason}${'response' in result ? '' : ''}`);
      expect(['ok', 'warn']).toContain(result.status);
    });
  }
});

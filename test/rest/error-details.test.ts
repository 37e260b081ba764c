// Error details say what a client can act on (issue 9, item 10): no redirect origins, transport codes
// or parser messages from the listing site reach an answer, on REST or GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const ELSEWHERE = 'http://elsewhere.invalid:8123';

describe('upstream failures in the answer', () => {
  it('an offsite redirect: reason and status, not where it pointed', async () => {
    svc.replay.faults.set('/homedetails/777001_zpid/', { status: 302, headers: { location: `${ELSEWHERE}/x` } });
    const r = await svc.get('/v1/portal/property?zpid=777001');
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({
      code: 'upstream_bad_response',
      details: { reason: 'offsite_redirect', status: 302 },
    });
    expect(JSON.stringify(r.body)).not.toContain('elsewhere');
  });

  it("a page whose data does not parse: a reason, not the parser's message", async () => {
    svc.replay.faults.set('/homedetails/777002_zpid/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><script id="__NEXT_DATA__" type="application/json">{"props": {oops</script></body></html>',
    });
    const r = await svc.get('/v1/portal/property?zpid=777002');
    expect(r.body.error.code).toBe('upstream_bad_response');
    expect(JSON.stringify(r.body)).not.toMatch(/Unexpected|JSON at position|SyntaxError|oops/);
  });

  it('the listing site unreachable: connection_failed, not a socket error code', async () => {
    const down = await startTestService({
      replayServer: svc.replay,
      env: { PORTAL_ORIGIN: `http://127.0.0.1:${await closedPort()}` },
    });
    try {
      const r = await down.get('/v1/portal/property?zpid=114303858');
      expect(r.status).toBe(502);
      expect(r.body.error).toMatchObject({ code: 'upstream_unreachable', details: { reason: 'connection_failed' } });
      expect(JSON.stringify(r.body)).not.toMatch(/ECONN|EADDR|127\.0\.0\.1/);
    } finally {
      await down.close();
    }
  });
});

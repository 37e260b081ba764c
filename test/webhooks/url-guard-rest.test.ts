// The webhook URL guard through REST: a job's or a watch's webhook_url at a documentation, Teredo,
// discard-only or NAT64 address is refused with 400 bad_param naming webhook_url, with and without
// WEBHOOK_ALLOW_PRIVATE (which lets loopback through, nothing more). Nothing is queued or made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const SPECIAL: [string, RegExp][] = [
  ['http://192.0.2.1/hook', /documentation/],
  ['http://[2001::1]/hook', /Teredo/],
  ['http://[100::1]/hook', /discard-only/],
  ['http://[64:ff9b::7f00:1]/hook', /NAT64/],
];

for (const allowPrivate of ['false', 'true']) {
  describe(`WEBHOOK_ALLOW_PRIVATE=${allowPrivate}`, () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService({
        env: { WATCH_MIN_INTERVAL_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE: allowPrivate },
      });
    });
    afterAll(async () => {
      await svc?.close();
    });

    const expectRefused = (r: { status: number; body: any }, reason: RegExp) => {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('bad_param');
      expect(r.body.error.details.param).toBe('webhook_url');
      expect(r.body.error.details.reason).toMatch(reason);
      expect(r.body.error.message).toMatch(/^Invalid webhook_url: /);
    };

    it.each(SPECIAL)(
      'POST /v1/portal/jobs with webhook_url %s: 400 bad_param webhook_url, no job',
      async (url, why) => {
        const before = (await svc.get('/v1/portal/jobs?limit=100')).body.data.length;
        expectRefused(await svc.post('/v1/portal/jobs', { items: [{ zpid: '15192198' }], webhook_url: url }), why);
        expect((await svc.get('/v1/portal/jobs?limit=100')).body.data.length).toBe(before);
      },
    );

    it.each(SPECIAL)(
      'POST /v1/portal/watches with webhook_url %s: 400 bad_param webhook_url, no watch',
      async (url, why) => {
        expectRefused(
          await svc.post('/v1/portal/watches', { zpid: '15192198', webhook_url: url, interval_hours: 24 }),
          why,
        );
        expect((await svc.get('/v1/portal/watches')).body.data).toEqual([]);
      },
    );

    it(`a loopback webhook_url is ${allowPrivate === 'true' ? 'accepted' : 'refused'}`, async () => {
      const r = await svc.post('/v1/portal/watches', {
        zpid: '15192198',
        webhook_url: 'http://127.0.0.1:9/hook',
        interval_hours: 24,
      });
      if (allowPrivate === 'true') expect(r.status).toBe(201);
      else expectRefused(r, /loopback/);
    });
  });
}

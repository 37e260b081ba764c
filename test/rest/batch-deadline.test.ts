// The batch deadline (spec 4.2 rule 5): items not started in time and items still running at the
// deadline fail with batch_deadline, unbilled and uncached; finished items keep their results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  // The first item's live read must end before the deadline. The file's first lookup runs cold (code not
  // yet loaded and optimised): warmed on a service of its own, so nothing here is billed or cached by it;
  // then 2.5 s leaves room for a stalled event loop (a loaded machine). The second item's read answers
  // after 10 s, a timer of this same process due well after the deadline's.
  const warm = await startTestService();
  try {
    expect((await warm.get('/v1/portal/property?zpid=2146993218')).status).toBe(200);
  } finally {
    await warm.close();
  }
  svc = await startTestService({
    env: { BATCH_DEADLINE_MS: '2500', BATCH_CONCURRENCY: '1', LOOKUP_TIMEOUT_MS: '20000' },
    replay: { faults: { '/homedetails/114303858_zpid/': { delayMs: 10_000 } } },
  });
});
afterAll(() => svc.close());

describe('a batch that runs past its deadline', () => {
  let body: any;
  beforeAll(async () => {
    const r = await svc.post('/v1/portal/batch', {
      items: [{ zpid: '2146993218' }, { zpid: '114303858' }, { zpid: '15192198' }],
    });
    expect(r.status).toBe(200);
    body = r.body;
  });

  it('keeps the finished item, aborts the running one (its upstream would have answered later), fails the one never started', () => {
    expect(body.data[0]).toMatchObject({ index: 0, ok: true, meta: { credits: 1 } });
    expect(body.data[1]).toMatchObject({ index: 1, ok: false, error: { code: 'batch_deadline' } });
    expect(body.data[2]).toMatchObject({ index: 2, ok: false, error: { code: 'batch_deadline' } });
    expect(body.meta).toMatchObject({ count: 3, succeeded: 1, failed: 2, credits: 1 });
  });

  it('charged only the finished item and cached nothing else', async () => {
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
    expect(await svc.store.getEntries(['zpid:114303858', 'zpid:15192198'])).toEqual([null, null]);
    expect(svc.replay.requests.some((r) => r.path.includes('15192198'))).toBe(false);
  });
});

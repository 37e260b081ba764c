// The batch deadline (spec 4.2 rule 5): items not started in time and items still running at the
// deadline fail with batch_deadline, unbilled and uncached; finished items keep their results. The
// deadline passes when the test says so (HeldTimeLimits), once the first item is charged and the
// second's page is held at the site: no duration here for a loaded machine to overrun.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

let replay: ReplayServer;
let proxy: GatedProxy;
let svc: TestService;
const limits = new HeldTimeLimits('batch_deadline');
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(replay.origin, { open: true });
  svc = await startTestService({
    replayServer: replay,
    env: { BATCH_CONCURRENCY: '1', PORTAL_ORIGIN: proxy.origin },
    timeLimits: limits,
  });
});
afterAll(async () => {
  await svc?.close();
  await proxy?.close();
  await replay?.close();
});

describe('a batch that runs past its deadline', () => {
  let body: any;
  beforeAll(async () => {
    const release = proxy.hold('114303858');
    const charged = new Promise<void>((resolve) => svc.app.core.charges?.on(() => resolve()));
    const answer = svc.post('/v1/portal/batch', {
      items: [{ zpid: '2146993218' }, { zpid: '114303858' }, { zpid: '15192198' }],
    });
    // One at a time: the first item is charged, then the second's read reaches the site and is held there.
    await charged;
    await proxy.received('114303858');
    expect(limits.pass('batch_deadline')).toBe(1);
    const r = await answer;
    release();
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
    expect(proxy.paths.some((p) => p.includes('15192198'))).toBe(false);
  });
});

// A batch whose items wait for a concurrency slot: each waiting item listens to its request's
// signals, a legitimate fan-out of up to 50 listeners, which must not print Node's
// MaxListenersExceededWarning (non-JSON text on stderr) (issue 9, item 13).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_ITEMS } from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { BATCH_CONCURRENCY: '1' } });
});
afterAll(() => svc.close());

describe('a full batch with one live lookup at a time', () => {
  it('raises no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      // Homes the site does not have: every item goes live (and waits for the one slot), none is cached.
      const items = Array.from({ length: MAX_BATCH_ITEMS }, (_, i) => ({ zpid: String(900_000_000 + i) }));
      const r = await svc.post('/v1/portal/batch', { items });
      expect(r.status).toBe(200);
      expect(r.body.meta.count).toBe(MAX_BATCH_ITEMS);
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});

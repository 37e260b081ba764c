// Cost preview (issue 10 §5) against what the batch then bills, where the preview cannot go by the
// keys the items are written with: an address whose alias leads to a home too old for the batch is
// read live as that home, so a zpid item naming the same home is billed once in all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { q, startTestService, type TestService } from '../helpers/service.js';

const ADDRESS = '661 Lakeview Ave, San Francisco, CA 94112';
let svc: TestService;
let zpid: string;

beforeAll(async () => {
  svc = await startTestService();
  const first = await svc.get(`/v1/portal/property?${q({ address: ADDRESS })}`);
  expect(first.body.meta).toMatchObject({ credits: 1, cached: false });
  zpid = first.body.data.zpid;
});
afterAll(() => svc?.close());

describe('cost preview: one home named by an address alias and by its zpid', () => {
  it('too old for the batch (max_age=0): priced once, and the batch then charges once', async () => {
    const body = { items: [{ address: ADDRESS }, { zpid }], max_age: 0 };
    const preview = await svc.post('/v1/portal/batch?dry_run=true', body);
    expect(preview.status).toBe(200);
    expect(preview.body.data.map((d: { would_cost: number }) => d.would_cost)).toEqual([1, 0]);
    expect(preview.body.meta).toMatchObject({ credits_estimate: 1 });
    const ledger = (await svc.store.ledger()).length;
    const real = await svc.post('/v1/portal/batch', body);
    expect(real.status).toBe(200);
    expect(real.body.data.map((d: { ok: boolean; data?: { zpid: string } }) => d.ok && d.data!.zpid)).toEqual([
      zpid,
      zpid,
    ]);
    expect(real.body.meta.credits).toBe(preview.body.meta.credits_estimate);
    expect((await svc.store.ledger()).length - ledger).toBe(1);
  });

  it('within the cache lifetime: both free', async () => {
    const preview = await svc.post('/v1/portal/batch?dry_run=true', { items: [{ address: ADDRESS }, { zpid }] });
    expect(preview.body.data.map((d: { would_cost: number }) => d.would_cost)).toEqual([0, 0]);
    expect(preview.body.meta).toMatchObject({ credits_estimate: 0, cache_hits: 2 });
  });
});

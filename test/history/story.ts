// The story every history test tells on its store (memory, Redis, a Redis Cluster): a home read live, then
// served from the cache (no event), then its price changed at the replay site and the home read again with
// max_age=0: its history shows two events, newest first, the newer naming the price change, the older the
// starting values. Returns the events as REST answered them, for the faces to be compared with.
import { expect } from 'vitest';
import type { TestService } from '../helpers/service.js';

export interface HistoryStory {
  /** REST's data of GET /v1/portal/property/history: newest first. */
  events: any[];
  /** The home's record as its first lookup answered it. */
  record: any;
  /** The account's used lookups after the story: its two live reads. */
  usedAfter: number;
}

/** The recorded price of 15192198 in its page's JSON, and what the site changes it to. */
const OLD_PRICE = 850_000;
const NEW_PRICE = 812_000;
const priceText = (price: number) => `\\"bathrooms\\":1,\\"price\\":${price},`;

export async function historyStory(
  svc: TestService,
  zpid: string,
  page: { path: string; html: string },
): Promise<HistoryStory> {
  const history = () => svc.get(`/v1/portal/property/history?zpid=${zpid}`);
  const used = (await svc.get('/v1/account')).body.data.used as number;

  expect((await history()).body.error.code).toBe('not_found');
  const first = await svc.get(`/v1/portal/property?zpid=${zpid}`);
  expect(first.status).toBe(200);
  expect(first.body.meta.cached).toBe(false);
  expect(first.body.data.price).toBe(OLD_PRICE);
  const one = await history();
  expect(one.status).toBe(200);
  expect(one.body.data).toHaveLength(1);
  expect(one.body.data[0]).toMatchObject({ initial: true, provider: 'self_hosted', fallback: false });
  expect(one.body.data[0].changes).toContainEqual({ field: 'price', from: null, to: OLD_PRICE });

  // A cache hit adds no event.
  const hit = await svc.get(`/v1/portal/property?zpid=${zpid}`);
  expect(hit.body.meta.cached).toBe(true);
  expect((await history()).body.data).toEqual(one.body.data);

  // The site changes the price; read again live.
  expect(page.html).toContain(priceText(OLD_PRICE));
  svc.replay.faults.set(page.path, { body: page.html.replace(priceText(OLD_PRICE), priceText(NEW_PRICE)) });
  try {
    const again = await svc.get(`/v1/portal/property?zpid=${zpid}&max_age=0`);
    expect(again.status).toBe(200);
    expect(again.body.meta.cached).toBe(false);
    expect(again.body.meta.changes).toContainEqual({ field: 'price', from: OLD_PRICE, to: NEW_PRICE });
  } finally {
    svc.replay.faults.delete(page.path);
  }

  const two = await history();
  expect(two.status).toBe(200);
  expect(two.body.meta).toMatchObject({ cache_key: `zpid:${zpid}`, next_cursor: null });
  const events = two.body.data as any[];
  expect(events).toHaveLength(2);
  expect(events[1]).toEqual(one.body.data[0]);
  expect(events[0]).toMatchObject({ initial: false, provider: 'self_hosted', fallback: false });
  expect(events[0].changes).toContainEqual({ field: 'price', from: OLD_PRICE, to: NEW_PRICE });
  expect(events[0].id).not.toBe(events[1].id);

  // Two live reads billed; the history reads none.
  const usedAfter = (await svc.get('/v1/account')).body.data.used as number;
  expect(usedAfter).toBe(used + 2);
  return { events, record: first.body.data, usedAfter };
}

// Watched homes over REST and GraphQL (issue 11): making, listing, reading and ending watches; every
// bad input a 4xx with a clear code (never a 500), another account's watch not_found, the per-account
// cap, and the same watch and the same refusals on both faces. No worker runs here: no check is made,
// nothing is read or billed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { MAX_WATCHES_PER_ACCOUNT, parseLocator } from '../../src/contract/index.js';
import { createWatches } from '../../src/watches/index.js';
import { postGql } from '../graphql/client.js';
import { startTestService, type TestService, partsFor } from '../helpers/service.js';

const HOOK = 'http://127.0.0.1:9/hooks';
const ZPID = '15192198';
const GQL_FIELDS =
  'id url zpid address webhookUrl intervalHours createdAt homeZpid lastCheckedAt nextCheckAt lastError';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    env: { WATCH_MIN_INTERVAL_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
});
afterAll(async () => {
  await svc?.close();
});

const del = async (path: string, key: string | null = svc.keys.free!) => {
  const res = await svc.fetch(svc.url + path, { method: 'DELETE', headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const camel = (view: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(view).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  );

describe('REST', () => {
  it('POST makes a watch (201, location), GET lists and reads it, DELETE ends it (204); another account sees none of it', async () => {
    const r = await svc.post('/v1/portal/watches', { zpid: ZPID, webhook_url: HOOK, interval_hours: 0.5 });
    expect(r.status).toBe(201);
    const view = r.body.data;
    expect(view).toMatchObject({
      zpid: ZPID,
      webhook_url: HOOK,
      interval_hours: 0.5,
      home_zpid: null,
      last_checked_at: null,
      last_error: null,
    });
    expect(view.id).toMatch(/^w_[0-9a-f]{32}$/);
    expect(view.next_check_at).toBe(view.created_at);
    expect(r.headers.get('location')).toBe(`/v1/portal/watches/${view.id}`);
    expect(r.body.meta).toHaveProperty('took_ms');

    expect((await svc.get(`/v1/portal/watches/${view.id}`)).body.data).toEqual(view);
    const list = await svc.get('/v1/portal/watches');
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(view.id);

    // Another account: as if it did not exist.
    for (const res of [
      await svc.get(`/v1/portal/watches/${view.id}`, svc.keys.paid),
      await del(`/v1/portal/watches/${view.id}`, svc.keys.paid),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'No such watch.' });
    }
    expect(
      (await svc.get('/v1/portal/watches', svc.keys.paid)).body.data.map((w: { id: string }) => w.id),
    ).not.toContain(view.id);

    expect((await del(`/v1/portal/watches/${view.id}`)).status).toBe(204);
    expect((await svc.get(`/v1/portal/watches/${view.id}`)).status).toBe(404);
    expect((await del(`/v1/portal/watches/${view.id}`)).status).toBe(404);
  });

  const good = { zpid: ZPID, webhook_url: HOOK, interval_hours: 1 };
  const cases: Array<[string, string | unknown, number, string, string?]> = [
    ['body not JSON', '{"zpid":', 400, 'bad_body'],
    ['empty body', '', 400, 'bad_body'],
    ['body a list', [good], 400, 'bad_body'],
    ['no locator', { webhook_url: HOOK, interval_hours: 1 }, 400, 'missing_param'],
    ['two locators', { ...good, address: '661 Lakeview Ave, San Francisco, CA 94112' }, 400, 'bad_param'],
    ['a bad zpid', { ...good, zpid: 'abc' }, 400, 'bad_param', 'zpid'],
    [
      'a link off the site',
      { url: 'https://example.com/x', webhook_url: HOOK, interval_hours: 1 },
      400,
      'bad_param',
      'url',
    ],
    ['an unknown field', { ...good, max_age: 0 }, 400, 'bad_param', 'max_age'],
    ['no webhook_url', { zpid: ZPID, interval_hours: 1 }, 400, 'bad_param', 'webhook_url'],
    ['a webhook_url not http(s)', { ...good, webhook_url: 'ftp://127.0.0.1/x' }, 400, 'bad_param', 'webhook_url'],
    ['a webhook_url not a URL', { ...good, webhook_url: 'hooks' }, 400, 'bad_param', 'webhook_url'],
    ['no interval_hours', { zpid: ZPID, webhook_url: HOOK }, 400, 'bad_param', 'interval_hours'],
    ['interval_hours as text', { ...good, interval_hours: '24' }, 400, 'bad_param', 'interval_hours'],
    ['interval_hours under the minimum', { ...good, interval_hours: 0.0001 }, 400, 'bad_param', 'interval_hours'],
    ['interval_hours over 720', { ...good, interval_hours: 721 }, 400, 'bad_param', 'interval_hours'],
    ['interval_hours negative', { ...good, interval_hours: -1 }, 400, 'bad_param', 'interval_hours'],
  ];
  it.each(cases)('%s: %i %s', async (_name, body, status, code, param) => {
    const r = await svc.post('/v1/portal/watches', body);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (param) expect(r.body.error.details.param).toBe(param);
    expect(r.body.error.message.length).toBeGreaterThan(10);
  });

  it('DELETE with content-type application/json and no body (clients that set it on every request): 204, as without it', async () => {
    const { id } = (await svc.post('/v1/portal/watches', good)).body.data;
    const r = await svc.fetch(`${svc.url}/v1/portal/watches/${id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': svc.keys.free!, 'content-type': 'application/json' },
    });
    expect(r.status).toBe(204);
    expect((await svc.get(`/v1/portal/watches/${id}`)).status).toBe(404);
  });

  it('an id longer than a path parameter may be (over 100 characters): 404, on GET and DELETE', async () => {
    for (const id of ['w_'.padEnd(101, 'a'), 'a'.repeat(5_000)]) {
      for (const res of [await svc.get(`/v1/portal/watches/${id}`), await del(`/v1/portal/watches/${id}`)]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('route_not_found');
      }
    }
  });

  it('interval_hours under the minimum: the message says the minimum', async () => {
    const r = await svc.post('/v1/portal/watches', { ...good, interval_hours: 0.0001 });
    expect(r.body.error.message).toContain('at least 0.000278');
  });

  it('no API key, an unknown key, a query parameter: refused with their codes', async () => {
    expect((await svc.post('/v1/portal/watches', good, null)).body.error.code).toBe('missing_api_key');
    expect((await svc.get('/v1/portal/watches', 'nope_nope_nope')).body.error.code).toBe('invalid_api_key');
    expect((await del('/v1/portal/watches/w_1', null)).status).toBe(401);
    const q = await svc.get('/v1/portal/watches?limit=5');
    expect(q.status).toBe(400);
    expect(q.body.error).toMatchObject({ code: 'bad_param', details: { param: 'limit' } });
  });

  it(`at most ${MAX_WATCHES_PER_ACCOUNT} watches per account (here the core's cap lowered to 2): the next is 429 rate_limited naming the bound`, async () => {
    const watches = createWatches(svc.app.core, svc.app.background.webhooks, partsFor(svc.app.core).watches(), {
      maxPerAccount: 2,
    });
    try {
      const account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.tiny);
      const request = { locator: parseLocator({ zpid: ZPID }), webhookUrl: HOOK, intervalHours: 1 };
      const first = await watches.create(account, request);
      await watches.create(account, request);
      await expect(watches.create(account, request)).rejects.toMatchObject({
        code: 'rate_limited',
        message: 'At most 2 watches per account. Delete one first.',
        retryAfterSeconds: 60,
        details: { limit: 'watches', max: 2 },
      });
      await watches.remove(account, first.id);
      await expect(watches.create(account, request)).resolves.toMatchObject({ zpid: ZPID });
    } finally {
      await watches.close();
    }
  });
});

describe('GraphQL: the same watches and refusals as REST', () => {
  const mutate = (query: string, variables: Record<string, unknown>, key = svc.keys.free) =>
    postGql(svc, { query, variables }, { key });
  const WATCH = `mutation W($url: String, $zpid: String, $address: String, $webhookUrl: String, $intervalHours: Float) {
    watchProperty(url: $url, zpid: $zpid, address: $address, webhookUrl: $webhookUrl, intervalHours: $intervalHours) { ${GQL_FIELDS} } }`;

  it('watchProperty, watches, watch(id) and unwatchProperty answer what REST answers', async () => {
    const made = await mutate(WATCH, {
      address: '661 Lakeview Ave, San Francisco, CA 94112',
      webhookUrl: HOOK,
      intervalHours: 2.5,
    });
    expect(made.status).toBe(200);
    const watch = made.body.data.watchProperty;
    expect(watch).toMatchObject({
      address: '661 Lakeview Ave, San Francisco, CA 94112',
      url: null,
      zpid: null,
      intervalHours: 2.5,
      webhookUrl: HOOK,
    });
    const rest = await svc.get(`/v1/portal/watches/${watch.id}`);
    expect({ url: null, zpid: null, ...camel(rest.body.data) }).toEqual(watch);

    const listed = await postGql(svc, { query: `{ watches { ${GQL_FIELDS} } watch(id: "${watch.id}") { id } }` });
    expect(listed.body.data.watches.map((w: { id: string }) => w.id)).toEqual(
      (await svc.get('/v1/portal/watches')).body.data.map((w: { id: string }) => w.id),
    );
    expect(listed.body.data.watch).toEqual({ id: watch.id });

    const other = await mutate(`mutation { unwatchProperty(id: "${watch.id}") }`, {}, svc.keys.paid);
    expect(other.body.errors[0].extensions.code).toBe('not_found');
    expect(other.body.errors[0].message).toBe('No such watch.');
    expect((await mutate(`mutation { unwatchProperty(id: "${watch.id}") }`, {})).body.data).toEqual({
      unwatchProperty: true,
    });
    expect((await svc.get(`/v1/portal/watches/${watch.id}`)).status).toBe(404);
  });

  it("two watchProperty in one request, the second refused: the first one's watch (and its id) is still in data, so a retry makes no second watch", async () => {
    const both = await mutate(
      `mutation { made: watchProperty(zpid: "${ZPID}", webhookUrl: "${HOOK}", intervalHours: 24) { id } refused: watchProperty(zpid: "${ZPID}") { id } }`,
      {},
    );
    expect(both.body.data.refused).toBeNull();
    expect(both.body.errors.map((e: { path: string[] }) => e.path)).toEqual([['refused']]);
    const id = both.body.data.made.id as string;
    expect((await svc.get(`/v1/portal/watches/${id}`)).status).toBe(200);
    expect((await del(`/v1/portal/watches/${id}`)).status).toBe(204);
  });

  const refusals: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['no locator', { webhookUrl: HOOK, intervalHours: 1 }, { webhook_url: HOOK, interval_hours: 1 }],
    [
      'two locators',
      { zpid: ZPID, url: 'https://www.zillow.com/homedetails/x/1_zpid/', webhookUrl: HOOK, intervalHours: 1 },
      { zpid: ZPID, url: 'https://www.zillow.com/homedetails/x/1_zpid/', webhook_url: HOOK, interval_hours: 1 },
    ],
    ['no webhook URL', { zpid: ZPID, intervalHours: 1 }, { zpid: ZPID, interval_hours: 1 }],
    [
      'a bad webhook URL',
      { zpid: ZPID, webhookUrl: 'ftp://127.0.0.1/', intervalHours: 1 },
      { zpid: ZPID, webhook_url: 'ftp://127.0.0.1/', interval_hours: 1 },
    ],
    ['no interval', { zpid: ZPID, webhookUrl: HOOK }, { zpid: ZPID, webhook_url: HOOK }],
    [
      'an interval under the minimum',
      { zpid: ZPID, webhookUrl: HOOK, intervalHours: 0.0001 },
      { zpid: ZPID, webhook_url: HOOK, interval_hours: 0.0001 },
    ],
    [
      'an interval over 720',
      { zpid: ZPID, webhookUrl: HOOK, intervalHours: 1000 },
      { zpid: ZPID, webhook_url: HOOK, interval_hours: 1000 },
    ],
  ];
  it.each(refusals)('%s: the same code, message and details as REST', async (_name, variables, body) => {
    const [g, r] = [await mutate(WATCH, variables), await svc.post('/v1/portal/watches', body)];
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(g.body.data?.watchProperty ?? null).toBeNull();
    const e = g.body.errors[0];
    expect({ code: e.extensions.code, message: e.message, details: e.extensions.details }).toEqual({
      code: r.body.error.code,
      message: r.body.error.message,
      details: r.body.error.details,
    });
  });
});

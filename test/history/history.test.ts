// A home's history through the whole service (memory store; history-redis.test.ts runs the same story on
// Redis and a Redis Cluster): each live read adds one event (the first with the starting values), a cache hit
// none; after the replay site changes the price and the home is read again with max_age=0, its history shows
// two events, the newer naming the price change. REST, GraphQL (propertyHistory and PortalProperty.history)
// and MCP agree; bad input is the spec's envelope with a table code; nothing is billed; one unit of the
// key's rate window per history read. Gated on events, never on times.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contract/index.js';
import { postGql } from '../graphql/client.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { historyStory, type HistoryStory } from './story.js';

const ZPID = '15192198';

let svc: TestService;
let mcp: Client;
let story: HistoryStory;
beforeAll(async () => {
  svc = await startTestService({ socket: 'streaming' });
  mcp = new Client({ name: 'history-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': svc.keys.free! } },
    }),
  );
  story = await historyStory(svc, ZPID, recordedPage(ZPID));
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await svc?.close();
});

const history = (query: string, key: string | null | undefined = svc.keys.free) =>
  svc.get(`/v1/portal/property/history?${query}`, key);
const usedOf = async (): Promise<number> => (await svc.get('/v1/account')).body.data.used;
const callTool = async (args: Record<string, unknown>) =>
  (await mcp.callTool({ name: 'property_history', arguments: args })) as CallToolResult & { structuredContent: any };

describe('the story (story.ts): read, hit, price changed, read again with max_age=0', () => {
  it('two events, newest first: the price change, then the starting values; a hit added none', () => {
    expect(story.events).toHaveLength(2);
  });
});

describe('REST paging and its answers', () => {
  it('pages newest first with limit and cursor; the last page has no cursor', async () => {
    const first = await history(`zpid=${ZPID}&limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([story.events[0]]);
    expect(first.body.meta.next_cursor).toBe(story.events[0].id);
    const second = await history(`zpid=${ZPID}&limit=1&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data).toEqual([story.events[1]]);
    expect(second.body.meta.next_cursor).toBeNull();
    // Past the oldest: an empty page, not an error.
    const past = await history(`zpid=${ZPID}&cursor=${story.events[1].id}`);
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ data: [], meta: { next_cursor: null } });
  });

  it('a link names the same home; an address known through its alias too, an unknown one is not_found (no live read)', async () => {
    const byUrl = await history(`url=${encodeURIComponent(`https://www.zillow.com/homedetails/x/${ZPID}_zpid/`)}`);
    expect(byUrl.body.data).toEqual(story.events);
    // An address lookup of a home already cached under its zpid: resolved once, served as a hit (no event).
    const address = story.record.address as string;
    const looked = await svc.get(`/v1/portal/property?address=${encodeURIComponent(address)}`);
    expect(looked.status).toBe(200);
    expect(looked.body.meta.cached).toBe(true);
    const byAddress = await history(`address=${encodeURIComponent(address)}`);
    expect(byAddress.status).toBe(200);
    expect(byAddress.body.data).toEqual(story.events);
    expect(byAddress.body.meta.cache_key).toBe(`zpid:${ZPID}`);

    const reads = svc.replay.requests.length;
    const unknown = await history(`address=${encodeURIComponent('12 Nowhere St, Springfield, IL 62701')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect(svc.replay.requests.length).toBe(reads);
  });

  it.each([
    ['an unknown home', 'zpid=999999999', 404, 'not_found'],
    ['a bad cursor', `zpid=${ZPID}&cursor=abc`, 400, 'bad_param'],
    ['a limit of 0', `zpid=${ZPID}&limit=0`, 400, 'bad_param'],
    ['a limit past 100', `zpid=${ZPID}&limit=101`, 400, 'bad_param'],
    ['a limit not a number', `zpid=${ZPID}&limit=ten`, 400, 'bad_param'],
    ['no locator', 'limit=5', 400, 'missing_param'],
    ['two locators', `zpid=${ZPID}&address=x`, 400, 'bad_param'],
    ['an unknown parameter', `zpid=${ZPID}&max_age=0`, 400, 'bad_param'],
    ['a bad zpid', 'zpid=abc', 400, 'bad_param'],
  ])('%s: %i %s in the error envelope', async (_what, query, status, code) => {
    const r = await history(query);
    expect(r.status).toBe(status);
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status);
    expect(r.body).toMatchObject({
      error: { code, message: expect.any(String) },
      meta: { took_ms: expect.any(Number) },
    });
  });

  it('without a key: 401', async () => {
    expect((await history(`zpid=${ZPID}`, null)).status).toBe(401);
  });

  it('bills nothing, reads nothing live, and takes one unit of the rate window per read', async () => {
    const used = await usedOf();
    const reads = svc.replay.requests.length;
    const a = await history(`zpid=${ZPID}`);
    const b = await history(`zpid=${ZPID}`);
    const remaining = (h: Headers) => Number(/r=(\d+)/.exec(h.get('ratelimit') ?? '')?.[1]);
    expect(remaining(b.headers)).toBe(remaining(a.headers) - 1);
    expect(await usedOf()).toBe(used);
    expect(svc.replay.requests.length).toBe(reads);
  });
});

/** A GraphQL event under its REST names. */
const restEvent = (e: Record<string, unknown>) => {
  const { readAt, fetchedAt, ...rest } = e;
  return { ...rest, read_at: readAt, fetched_at: fetchedAt };
};
const EVENT_FIELDS = 'id readAt fetchedAt provider fallback initial changes { field from to }';

describe('GraphQL and MCP agree with REST', () => {
  it('propertyHistory and PortalProperty.history give the same events', async () => {
    const r = await postGql(svc, {
      query: `{
        propertyHistory(zpid: "${ZPID}") { cacheKey endCursor hasNextPage events { ${EVENT_FIELDS} } }
        property(zpid: "${ZPID}") { ... on PropertyLookup { data { history(first: 1) { hasNextPage endCursor events { id } } } } }
      }`,
    });
    expect(r.body.errors).toBeUndefined();
    const page = r.body.data.propertyHistory;
    expect(page).toMatchObject({ cacheKey: `zpid:${ZPID}`, endCursor: null, hasNextPage: false });
    expect(page.events.map(restEvent)).toEqual(story.events);
    expect(r.body.data.property.data.history).toEqual({
      hasNextPage: true,
      endCursor: story.events[0].id,
      events: [{ id: story.events[0].id }],
    });
    const older = await postGql(svc, {
      query: `{ propertyHistory(zpid: "${ZPID}", first: 1, after: "${story.events[0].id}") { hasNextPage events { id } } }`,
    });
    expect(older.body.data.propertyHistory).toEqual({ hasNextPage: false, events: [{ id: story.events[1].id }] });
  });

  it('GraphQL: bad input and an unknown home are coded errors; the lookup beside them still answers', async () => {
    const r = await postGql(svc, {
      query: `{
        unknown: propertyHistory(zpid: "999999999") { cacheKey }
        badAfter: propertyHistory(zpid: "${ZPID}", after: "abc") { cacheKey }
        badFirst: propertyHistory(zpid: "${ZPID}", first: 0) { cacheKey }
        property(zpid: "${ZPID}") { ... on PropertyLookup { data { zpid } } }
      }`,
    });
    const codeAt = (path: string) => r.body.errors.find((e: any) => e.path[0] === path)?.extensions.code;
    expect(codeAt('unknown')).toBe('not_found');
    expect(codeAt('badAfter')).toBe('bad_param');
    expect(codeAt('badFirst')).toBe('bad_param');
    expect(r.body.data).toMatchObject({
      unknown: null,
      badAfter: null,
      badFirst: null,
      property: { data: { zpid: ZPID } },
    });
  });

  it('MCP property_history: the same events (full), compact by default, coded tool errors', async () => {
    const full = await callTool({ zpid: ZPID, full: true });
    expect(full.isError).toBeFalsy();
    expect(full.structuredContent).toEqual({
      data: story.events,
      meta: { cache_key: `zpid:${ZPID}`, next_cursor: null },
    });
    const compact = await callTool({ zpid: ZPID, limit: 1 });
    expect(Object.keys(compact.structuredContent.data[0]).sort()).toEqual([
      'changes',
      'initial',
      'provider',
      'read_at',
    ]);
    expect(compact.structuredContent.meta.next_cursor).toBe(story.events[0].id);
    const bad = await callTool({ zpid: ZPID, cursor: 'abc' });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error.code).toBe('bad_param');
    const unknown = await callTool({ zpid: '999999999' });
    expect(unknown.structuredContent.error.code).toBe('not_found');
  });

  it('none of them billed anything', async () => {
    expect(await usedOf()).toBe(story.usedAfter);
  });
});

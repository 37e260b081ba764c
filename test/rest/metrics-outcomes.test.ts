// One rule for lookups_total and batch_size (issue 12 review), the same on every path: every lookup
// the client asked for is counted once by its outcome, invalid input and per-key-limit refusals
// included, in REST and GraphQL alike; batch_size counts every batch that reached the core, admitted or
// refused. The window is pinned by the service clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetrics, valueOf, type Sample } from '../observability/prometheus.js';
import { startTestService, type TestService } from '../helpers/service.js';

const TOKEN = 'metrics-token-for-tests-0002';
const fixedClock = () => new Date('2026-11-23T12:00:10.000Z');
const none = (code: string) => ({ code, source: 'none', cache: 'miss' });

describe('lookups_total and batch_size: one rule for every path', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '50' }, clock: fixedClock });
  });
  afterAll(() => svc.close());

  const scrape = async (): Promise<Sample[]> =>
    parseMetrics(
      await (await svc.fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text(),
    );
  const gql = async (query: string, key = svc.keys.free!) => {
    const res = await svc.fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data: Record<string, { __typename: string; code?: string }> };
  };

  it('invalid input is counted for a single lookup as for a batch item, in REST and GraphQL', async () => {
    const before = await scrape();
    expect((await svc.get('/v1/portal/property?zpid=12x')).body.error.code).toBe('bad_param');
    expect((await gql('{ property(zpid: "12x") { __typename ... on LookupError { code } } }')).data.property).toEqual({
      __typename: 'LookupError',
      code: 'bad_param',
    });
    const after = await scrape();
    expect(
      valueOf(after, 'lookups_total', none('bad_param')) - valueOf(before, 'lookups_total', none('bad_param')),
    ).toBe(2);
  });

  it('window refusals are counted as rate_limited per lookup, and a refused REST batch is a batch', async () => {
    // Another account (the first test's GraphQL operation may have taken a unit of free's window). Fill
    // its window: 50 lookups of one home (read once).
    const key = svc.keys.paid!;
    const full = await svc.post(
      '/v1/portal/batch',
      { items: Array.from({ length: 50 }, () => ({ zpid: '2146993218' })) },
      key,
    );
    expect(full.status).toBe(200);
    const before = await scrape();
    expect((await svc.get('/v1/portal/property?zpid=2146993218', key)).status).toBe(429);
    const batch = await svc.post(
      '/v1/portal/batch',
      { items: [{ zpid: '2146993218' }, { zpid: '114303858' }, 'not a link or address'] },
      key,
    );
    expect(batch.status).toBe(429);
    expect(
      (await gql('{ property(zpid: "2146993218") { __typename ... on LookupError { code } } }', key)).data.property,
    ).toEqual({ __typename: 'LookupError', code: 'rate_limited' });
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    // The single lookup, the batch's two valid items, the GraphQL field.
    expect(moved('lookups_total', none('rate_limited'))).toBe(4);
    // The refused batch's invalid item, by its own code, as a refused GraphQL batch counts it.
    expect(moved('lookups_total', none('bad_param'))).toBe(1);
    expect(moved('batch_size_count')).toBe(1);
    expect(moved('batch_size_sum')).toBe(3);
    expect(moved('lookups_total', { code: 'ok', source: 'self_hosted', cache: 'hit' })).toBe(0);
  });
});

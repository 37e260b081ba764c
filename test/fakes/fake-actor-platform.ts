// A loopback stand-in for the scraping-actor platform, speaking the public shape of Apify's
// `POST /v2/acts/{owner~name}/run-sync-get-dataset-items`: 201 + JSON array of dataset items on success,
// `{ error: { type, message } }` with the platform's status codes on failure, plus run headers
// (x-apify-run-id, x-apify-run-status, x-apify-run-status-message). Switch `behaviour` between calls.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type ActorBehaviour =
  | 'ok'
  | 'auth'
  | 'forbidden'
  | 'quota'
  | 'missing_actor'
  | 'busy'
  | 'run_failed'
  | 'run_timed_out'
  | 'failed_status_header'
  | 'cost_cap'
  | 'cost_cap_item'
  | 'cap_below_minimum'
  | 'garbage'
  | 'not_array'
  | 'slow'
  | 'unreachable'
  | 'bad_input'
  | 'empty'
  | 'item_not_found'
  | 'item_error'
  | 'server_error';

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  input: unknown;
}

export interface FakeActorPlatform {
  url: string;
  token: string;
  actor: string;
  behaviour: ActorBehaviour;
  /** Items returned by `ok`. */
  items: unknown[];
  /** Delay of `slow`, ms. */
  slowMs: number;
  calls: FakeCall[];
  close(): Promise<void>;
}

export const FIXTURES = new URL('../../fixtures/portal/', import.meta.url);
export const loadFixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

/** The 2023 for-sale property object (661 Lakeview Ave, San Francisco, CA 94112; zpid 15192198). */
export const forSaleItem = (): Record<string, unknown> => loadFixture('property-15192198-for-sale-2023.json');

export const RUN_ID = 'fakeRun0000001';

const apiError = (status: number, type: string, message: string, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: JSON.stringify({ error: { type, message } }),
});

export async function startFakeActorPlatform(opts: { token?: string; actor?: string; items?: unknown[]; behaviour?: ActorBehaviour } = {}): Promise<FakeActorPlatform> {
  const state: Omit<FakeActorPlatform, 'url' | 'close'> = {
    token: opts.token ?? 'test-token',
    actor: opts.actor ?? 'maxcopell/zillow-detail-scraper',
    behaviour: opts.behaviour ?? 'ok',
    items: opts.items ?? [forSaleItem()],
    slowMs: 2_000,
    calls: [],
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let input: unknown = null;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      input = null;
    }
    const authorization = req.headers.authorization ?? null;
    state.calls.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization, input });

    const reply = (a: { status: number; headers?: Record<string, string>; body: string }) => {
      res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8', ...a.headers });
      res.end(a.body);
    };
    const ok = (items: unknown[], headers: Record<string, string> = {}) =>
      reply({
        status: 201,
        headers: {
          'x-apify-run-id': RUN_ID,
          'x-apify-run-status': 'SUCCEEDED',
          'x-apify-pagination-offset': '0',
          'x-apify-pagination-count': String(items.length),
          'x-apify-pagination-total': String(items.length),
          ...headers,
        },
        body: JSON.stringify(items),
      });

    const route = /^\/v2\/acts\/([^/]+)\/run-sync-get-dataset-items$/.exec(url.pathname);
    if (!route || req.method !== 'POST') return reply(apiError(404, 'page-not-found', 'We have bad news: there is no API endpoint at this URL.'));
    const token = authorization?.replace(/^Bearer\s+/i, '') ?? url.searchParams.get('token');
    if (state.behaviour === 'auth' || token !== state.token) {
      return reply(apiError(401, 'user-or-token-not-found', 'User was not found or authentication token is not valid'));
    }
    if (state.behaviour === 'missing_actor' || decodeURIComponent(route[1]!) !== state.actor.replace('/', '~')) {
      return reply(apiError(404, 'actor-not-found', 'Actor was not found'));
    }

    switch (state.behaviour) {
      case 'ok':
        return ok(state.items);
      case 'forbidden':
        return reply(apiError(403, 'insufficient-permissions', 'You do not have permission to run this Actor.'));
      case 'quota':
        return reply(apiError(402, 'not-enough-usage-to-run-paid-actor', 'You have exceeded your usage limit. Please consider upgrading your plan.'));
      case 'busy':
        return reply(apiError(429, 'rate-limit-exceeded', 'You have exceeded the rate limit. Please try again later.', { 'retry-after': '12' }));
      case 'run_failed':
        return reply(apiError(400, 'run-failed', `Actor run did not succeed (run ID: ${RUN_ID}, status: FAILED)`));
      case 'run_timed_out':
        return reply(apiError(408, 'run-timeout-exceeded', 'Actor run exceeded the timeout of 300 seconds for this API endpoint'));
      case 'failed_status_header':
        return ok([], { 'x-apify-run-status': 'FAILED' });
      case 'cost_cap':
        return ok([], { 'x-apify-run-status-message': 'Stopped: the maximum total charge (maxTotalChargeUsd) was reached' });
      case 'cost_cap_item':
        return ok([{ url: 'https://www.zillow.com/', error: 'Max charge limit reached before the property was found' }]);
      case 'cap_below_minimum':
        return reply(apiError(400, 'max-total-charge-usd-below-minimum', 'maxTotalChargeUsd is below the minimum for this Actor'));
      case 'garbage':
        return reply({ status: 201, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad gateway?</body>' });
      case 'not_array':
        return reply({ status: 201, body: JSON.stringify({ items: [] }) });
      case 'slow':
        await sleep(state.slowMs);
        return ok(state.items);
      case 'unreachable':
        req.socket.destroy();
        return;
      case 'bad_input':
        return reply(apiError(400, 'invalid-input', 'Input is not valid: Field input.startUrls must be array'));
      case 'empty':
        return ok([]);
      case 'item_not_found':
        return ok([{ url: 'https://www.zillow.com/homedetails/1_zpid/', error: 'Property not found (404)' }]);
      case 'item_error':
        return ok([{ url: 'https://www.zillow.com/homedetails/1_zpid/', error: 'Request blocked after 3 retries' }]);
      case 'server_error':
        return reply(apiError(500, 'internal-server-error', 'Internal server error'));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const platform = state as FakeActorPlatform;
  platform.url = `http://127.0.0.1:${port}`;
  platform.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return platform;
}

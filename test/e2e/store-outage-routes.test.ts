// Every job, watch, webhook delivery and account route while Redis cannot be reached (issue 25, item 6): with Redis frozen
// (SIGSTOP: connections open, nothing answers) and with Redis killed, each one, on REST and its GraphQL and
// MCP counterparts, answers 503 store_unavailable with a retry-after (GraphQL and MCP: the code and
// retryAfter / retry_after in their own error forms), never a 500 internal and never a hung request. The
// key is known to the instance (the auth cache), so what answers is the job, watch or account path itself.
//
// The freeze is asserted without timing: every request is sent while Redis is stopped and the test waits
// for all their answers before it lets Redis go on. A request that waited for Redis would never answer
// (the test's own timeout ends it); one bounded as a lookup answers while Redis is still stopped.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let redis: RedisServer;
let store: RedisStore;
let svc: TestService;
let jobId: string;
let watchId: string;

const WATCH = { zpid: '15192198', webhook_url: 'http://127.0.0.1:9/hook', interval_hours: 2 };
const JOB = { items: ['2146993218', { zpid: '15192198' }] };

beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = `sor${randomUUID().slice(0, 6)}:`;
  store = await RedisStore.connect(redis.url, { prefix });
  svc = await startTestService({
    store,
    env: {
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      // The key stays known while the store is away: the answers below are the routes' own.
      AUTH_CACHE_TTL_MS: '600000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WATCH_MIN_INTERVAL_SECONDS: '1',
      RATE_LIMIT_PER_MINUTE: '0',
      MAX_LIVE_PER_KEY: '0',
    },
  });
  const job = await svc.post('/v1/portal/jobs', JOB, svc.keys.paid);
  expect(job.status, JSON.stringify(job.body)).toBe(202);
  jobId = job.body.data.id;
  const watch = await svc.post('/v1/portal/watches', WATCH, svc.keys.paid);
  expect(watch.status, JSON.stringify(watch.body)).toBe(201);
  watchId = watch.body.data.id;
});

afterAll(async () => {
  redis?.resume();
  await svc?.close();
  await store?.close();
  await disposeRedisServer(redis);
});

interface Answer {
  route: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  /** GraphQL's extensions.retryAfter, MCP's details.retry_after. */
  wait?: number | undefined;
}

const json = { 'content-type': 'application/json' };

/** A REST route: the envelope's error code and the retry-after header. */
async function rest(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await svc.fetch(svc.url + path, {
    method,
    headers: { 'x-api-key': svc.keys.paid!, ...(body === undefined ? {} : json) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = `not JSON: ${text.slice(0, 80)}`;
  }
  return { route: `${method} ${path}`, status: res.status, retryAfter: res.headers.get('retry-after'), code };
}

/** A GraphQL operation: the first error's code and retryAfter. */
async function graphql(query: string): Promise<Answer> {
  const res = await svc.fetch(`${svc.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': svc.keys.paid!, ...json },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string; retryAfter?: number } }> };
  const error = body.errors?.[0]?.extensions;
  return {
    route: `graphql ${query}`,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: error?.code,
    wait: error?.retryAfter,
  };
}

/** An MCP tool over HTTP: the tool error's code and details.retry_after. */
async function mcpTool(name: string): Promise<Answer> {
  const res = await svc.fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { 'x-api-key': svc.keys.paid!, ...json, accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  const body = (await res.json()) as {
    result?: {
      isError?: boolean;
      structuredContent?: { error?: { code?: string; details?: { retry_after?: number } } };
    };
  };
  const error = body.result?.isError ? body.result.structuredContent?.error : undefined;
  return {
    route: `mcp ${name}`,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: error?.code,
    wait: error?.details?.retry_after,
  };
}

/** Every job, watch and account route, each with valid input (the job and watch made before the outage). */
const everyRoute = (): Array<Promise<Answer>> => [
  rest('POST', '/v1/portal/jobs', JOB),
  rest('GET', '/v1/portal/jobs'),
  rest('GET', `/v1/portal/jobs/${jobId}`),
  rest('GET', `/v1/portal/jobs/${jobId}/results`),
  rest('GET', `/v1/portal/jobs/${jobId}/events`),
  rest('DELETE', `/v1/portal/jobs/${jobId}`),
  rest('POST', '/v1/portal/watches', WATCH),
  rest('GET', '/v1/portal/watches'),
  rest('GET', `/v1/portal/watches/${watchId}`),
  rest('DELETE', `/v1/portal/watches/${watchId}`),
  rest('GET', '/v1/webhooks/deliveries'),
  rest('POST', '/v1/webhooks/deliveries/dlv_1-0/redeliver'),
  rest('GET', '/v1/account'),
];

const everyCounterpart = (): Array<Promise<Answer>> => [
  graphql(`{ job(id: "${jobId}") { id } }`),
  graphql('{ jobs { jobs { id } } }'),
  graphql(`mutation { createLookupJob(items: [{ zpid: "2146993218" }]) { id } }`),
  graphql(`mutation { cancelLookupJob(id: "${jobId}") { id } }`),
  graphql('{ watches { id } }'),
  graphql(`{ watch(id: "${watchId}") { id } }`),
  graphql(`mutation { watchProperty(zpid: "15192198", webhookUrl: "${WATCH.webhook_url}", intervalHours: 2) { id } }`),
  graphql(`mutation { unwatchProperty(id: "${watchId}") }`),
  graphql('{ webhookDeliveries { hasNextPage } }'),
  graphql('mutation { redeliverWebhook(id: "dlv_1-0") { id } }'),
  graphql('{ account { used } }'),
  mcpTool('account_usage'),
];

function expectRefused(answers: Answer[]): void {
  for (const a of answers) {
    if (a.route.startsWith('graphql') || a.route.startsWith('mcp')) {
      expect({ route: a.route, code: a.code, wait: a.wait }).toEqual({
        route: a.route,
        code: 'store_unavailable',
        wait: 30,
      });
    } else {
      expect(a).toEqual({ route: a.route, status: 503, retryAfter: '30', code: 'store_unavailable' });
    }
  }
}

/**
 * Waits until the job and watch routes serve again (Redis back): polled on answers, not on a clock. (A
 * write the frozen Redis had already been sent, such as the watch's DELETE, may be applied once it thaws:
 * a store that did not answer may still have done the work, which is why the list is asked, not the watch.)
 */
async function servedAgain(): Promise<void> {
  await expect.poll(async () => (await rest('GET', `/v1/portal/jobs/${jobId}`)).status, { timeout: 20_000 }).toBe(200);
  await expect.poll(async () => (await rest('GET', '/v1/portal/watches')).status, { timeout: 20_000 }).toBe(200);
}

describe('job, watch and account routes while Redis cannot be reached', () => {
  it('served before the outage', async () => {
    const answers = await Promise.all([
      rest('GET', `/v1/portal/jobs/${jobId}`),
      rest('GET', `/v1/portal/watches/${watchId}`),
      rest('GET', '/v1/account'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  });

  it('Redis frozen: every route answers 503 store_unavailable while Redis is still stopped', async () => {
    redis.pause();
    try {
      // All sent at once while Redis is stopped; the freeze is released only once every one has answered.
      expectRefused(await Promise.all([...everyRoute(), ...everyCounterpart()]));
    } finally {
      redis.resume();
    }
    await servedAgain();
  });

  it('Redis killed: every route answers 503 store_unavailable', async () => {
    await redis.kill();
    expectRefused(await Promise.all([...everyRoute(), ...everyCounterpart()]));
  });
});

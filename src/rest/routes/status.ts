// GET /v1/status: the service's own public figures for the last hour and the last 24 hours, across every
// instance (src/observability/figures.ts), without an API key; and its OpenAPI operation. Cheap whoever
// asks: the figures are read from the store at most once per few seconds per instance, and no lookup,
// account or charge is touched.
import type { FastifyInstance } from 'fastify';
import type { ServiceStatus } from '../../contract/index.js';
import type { CoreDeps } from '../../lookup/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { READ_CACHE_MS } from '../../observability/figures.js';
import { queryOf } from '../params.js';
import {
  commonHeaders,
  errorResponses,
  REQUEST_LEVEL_CODES,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const STATUS_PATH = '/v1/status';

export function statusRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get(STATUS_PATH, async (request, reply) => {
    try {
      queryOf(request, []);
      const data = await deps.figures.status();
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

const window = (minutes: number, scale: number): Json => ({
  minutes,
  lookups: 1840 * scale,
  found: 1796 * scale,
  served: { own_collector: 0.3127, fallback: 0.0412, cache: 0.6403, stale: 0.0058 },
  live_reads: { count: 640 * scale, p50_ms: 1420, p95_ms: 4310 },
  site_attempts: { count: 702 * scale, walled_share: 0.0214 },
  records: { count: 636 * scale, complete_share: 0.9811 },
  errors: { total: 44 * scale, by_code: { not_found: 31 * scale, bad_param: 9 * scale, rate_limited: 4 * scale } },
});

const exampleStatus = {
  generated_at: '2026-05-01T12:00:00.000Z',
  last_hour: window(60, 1),
  last_24_hours: window(1440, 20),
  breaker: { state: 'closed', instances: 3, open: 0 },
} satisfies Record<keyof ServiceStatus, Json>;

/** The operation in the OpenAPI document. */
export const statusPaths = (): OpenApiPaths => ({
  [STATUS_PATH]: {
    get: {
      operationId: 'getServiceStatus',
      tags: [TAGS.status],
      summary: "The service's own figures: last hour and last 24 hours",
      description:
        'No API key. Across every instance: lookups answered, where the found homes came from (own collector, ' +
        'fallback provider, cache, stale), live-read latency p50/p95, the share of site requests walled, the ' +
        "breaker's state, the share of records with every section read, and errors by code. Counts and shares only: " +
        `nothing about any customer. Read at most once per ${READ_CACHE_MS / 1000} s per instance; each instance ` +
        'adds its counts every few seconds. Takes no query parameters. The same figures as a page: /status.',
      security: [],
      responses: {
        '200': {
          description: 'The figures',
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/StatusResponse' },
              example: { data: exampleStatus, meta: { took_ms: 2 } },
            },
          },
        },
        ...errorResponses([400], (c) => c === 'bad_param'),
        ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
  },
});

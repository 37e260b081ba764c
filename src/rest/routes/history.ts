// GET /v1/portal/property/history (docs/history.md): a home's timeline of live reads, newest first, from
// the service's own records (no live read, no credit, one unit of the key's rate window); and its OpenAPI operation.
import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_HISTORY_PAGE,
  LOCATOR_FIELDS,
  MAX_HISTORY_PAGE,
  parseHistoryQuery,
  type HistoryEvent,
} from '../../contract/index.js';
import { homeHistory, type CoreDeps } from '../../lookup/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { contextFor } from '../../http/request-context.js';
import {
  commonHeaders,
  errorResponses,
  queryParameter,
  REQUEST_LEVEL_CODES,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const HISTORY_PATH = '/v1/portal/property/history';

export function historyRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get(HISTORY_PATH, async (request, reply) => {
    try {
      const ctx = await contextFor(deps, request, reply);
      const { locator, page } = parseHistoryQuery(request.query as Record<string, unknown>);
      const { cacheKey, events, nextCursor } = await homeHistory(ctx, locator, page);
      return reply.send({
        data: events,
        meta: { cache_key: cacheKey, next_cursor: nextCursor, took_ms: tookMs(reply) },
      });
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

const exampleEvents: HistoryEvent[] = [
  {
    id: '1767434400000-0',
    read_at: '2026-01-03T10:00:00.000Z',
    fetched_at: '2026-01-03T10:00:00.000Z',
    provider: 'self_hosted',
    fallback: false,
    initial: false,
    changes: [{ field: 'price', from: 850000, to: 812000 }],
  },
  {
    id: '1767348000000-0',
    read_at: '2026-01-02T10:00:00.000Z',
    fetched_at: '2026-01-02T10:00:00.000Z',
    provider: 'self_hosted',
    fallback: false,
    initial: true,
    changes: [
      { field: 'price', from: null, to: 850000 },
      { field: 'homeStatus', from: null, to: 'FOR_SALE' },
    ],
  },
];

/** The operation in the OpenAPI document. */
export const historyPaths = (): OpenApiPaths => ({
  [HISTORY_PATH]: {
    get: {
      operationId: 'getPropertyHistory',
      tags: [TAGS.lookups],
      summary: "A home's history: its live reads and what each changed",
      description:
        "The timeline of the home the locator names (the lookup's url, zpid or address: send exactly one), newest first: one event per successful live read of it (cache hits add none), with which source served it and what changed since the read before; the first read's event lists the starting values. Read from this service's own records only: nothing is read live and nothing is billed; it takes one unit of the key's rate window. An address or building link this service cannot map to a home it knows, or a home with no events, is 404 not_found. Events are kept HISTORY_RETENTION_DAYS (400 by default), at most HISTORY_MAX_EVENTS_PER_HOME per home.",
      parameters: [
        ...Object.entries(LOCATOR_FIELDS).map(([name, field]) => queryParameter(name, field, name === 'zpid')),
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Events per page, 1 to ${MAX_HISTORY_PAGE}; ${DEFAULT_HISTORY_PAGE} when omitted`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_PAGE },
        },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "meta.next_cursor of the page before; one not of an event id's form is 400 bad_param",
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: "A page of the home's events, newest first",
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/HistoryResponse' },
              example: {
                data: exampleEvents,
                meta: { cache_key: 'zpid:15192198', next_cursor: null, took_ms: 2 },
              } as unknown as Json,
            },
          },
        },
        ...errorResponses([400], (c) => c === 'bad_param' || c === 'missing_param'),
        ...errorResponses([401]),
        ...errorResponses([404], (c) => c === 'not_found'),
        ...errorResponses([429], (c) => c === 'rate_limited'),
        ...errorResponses([500]),
        ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
  },
});

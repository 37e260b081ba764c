// GET /v1/portal/property (spec 4.1): parse, call the core, write the envelope; and its OpenAPI operation.
import type { FastifyInstance } from 'fastify';
import {
  humanMs,
  LOCATOR_FIELDS,
  lookupDescription,
  OPTION_FIELDS,
  parseLookupQuery,
  type LocatorKey,
} from '../../contract/index.js';
import { lookupOne, parsedLookup, type CoreDeps } from '../../lookup/index.js';
import { sendError, sendJsonText, tookMs } from '../../http/envelope.js';
import { contextFor } from '../../http/request-context.js';
import { exampleMeta, exampleProperty } from '../openapi/examples.js';
import {
  BATCH_BODY_CODES,
  commonHeaders,
  errorResponses,
  IDEMPOTENCY_CODES,
  queryParameter,
  REQUEST_LEVEL_CODES,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiConfig,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const PROPERTY_PATH = '/v1/portal/property';

export function propertyRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get(PROPERTY_PATH, async (request, reply) => {
    try {
      const ctx = await contextFor(deps, request, reply);
      const { locator, options } = parsedLookup(ctx, () => parseLookupQuery(request.query as Record<string, unknown>));
      const { dataJson, meta } = await lookupOne(ctx, locator, options);
      reply.header('x-cache', meta.stale ? 'STALE' : meta.cached ? 'HIT' : 'MISS');
      return sendJsonText(reply, `{"data":${dataJson},"meta":${JSON.stringify({ ...meta, took_ms: tookMs(reply) })}}`);
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

/**
 * The one locator whose example is the parameter's `example`. Swagger UI's try-it fills every
 * parameter with its `example` (and with the first of its `examples`): more than one locator filled
 * would send them all, and the lookup answers 400 bad_param. The others show theirs in the description.
 */
const PREFILLED_LOCATOR: LocatorKey = 'zpid';

/** The operation in the OpenAPI document: its description says the configured cache lifetime. */
export const propertyPaths = (config: OpenApiConfig): OpenApiPaths => ({
  [PROPERTY_PATH]: {
    get: {
      operationId: 'lookupProperty',
      tags: [TAGS.lookups],
      summary: 'Look up one home',
      description: lookupDescription(humanMs(config.cacheTtlMs)),
      parameters: [
        ...Object.entries(LOCATOR_FIELDS).map(([name, field]) =>
          queryParameter(name, field, name === PREFILLED_LOCATOR),
        ),
        ...Object.entries(OPTION_FIELDS).map(([name, field]) => queryParameter(name, field, true)),
      ],
      responses: {
        '200': {
          description: 'The home',
          headers: {
            ...commonHeaders,
            'x-cache': {
              description: 'HIT, MISS, or STALE (the live read failed and the last good record answered: meta.stale)',
              schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] },
            },
          },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/PropertyResponse' },
              example: { data: exampleProperty, meta: exampleMeta } as unknown as Json,
            },
          },
        },
        ...errorResponses(
          [400, 401, 402, 404, 409, 422, 429, 500, 502, 503, 504],
          (c) => !BATCH_BODY_CODES.has(c) && !IDEMPOTENCY_CODES.has(c),
        ),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
  },
});

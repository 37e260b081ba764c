// POST /v1/portal/batch (spec 4.2), and its cost preview with ?dry_run=true. The body is parsed here,
// after authentication, so a bad key is reported as such even when the body is bad too. With an
// Idempotency-Key the request runs through the core's runIdempotent (lookup/idempotency.ts). Its
// OpenAPI operation is at the end.
import type { FastifyInstance } from 'fastify';
import {
  BATCH_QUERY_FIELDS,
  LOCATOR_KEYS,
  MAX_BATCH_ITEMS,
  parseBatchBody,
  parseBatchQuery,
  type BatchMeta,
  type BatchPreviewResponse,
} from '../../contract/index.js';
import { batchItemJson, lookupBatch, previewBatch, type BatchItemOutcome, type CoreDeps } from '../../lookup/index.js';
import {
  identityJson,
  idempotencyHeaderLines,
  idempotencyKeyOf,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  REPLAYED_HEADER,
  requestIdentity,
  runIdempotent,
  type RunAnswer,
} from '../../lookup/idempotency.js';
import { sendError, sendJsonText, tookMs } from '../../http/envelope.js';
import { bodyAsText, parseJsonBody } from '../../http/json-body.js';
import { contextFor } from '../../http/request-context.js';
import { exampleMeta, exampleProperty } from '../openapi/examples.js';
import {
  commonHeaders,
  errorBody,
  errorResponses,
  IDEMPOTENCY_CODES,
  queryParameter,
  replayedHeader,
  REQUEST_LEVEL_CODES,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const BATCH_PATH = '/v1/portal/batch';

const JSON_TYPE = 'application/json; charset=utf-8';

/** An item of the response's data. */
const itemJson = (r: BatchItemOutcome): string => batchItemJson(r);

export async function batchRoute(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  await app.register(async (scope) => {
    bodyAsText(scope);
    scope.post(BATCH_PATH, async (request, reply) => {
      try {
        const ctx = await contextFor(deps, request, reply, deps.config.batchDeadlineMs);
        const idempotencyKey = idempotencyKeyOf(idempotencyHeaderLines(request.raw.rawHeaders));
        const { dryRun } = parseBatchQuery(request.query as Record<string, unknown>);
        const body = parseJsonBody(request.body);
        const { items, options } = parseBatchBody(body);
        // The answer's JSON. Whether a retry replays it is decided in the core from the codes of the
        // lookups that failed (ctx.stats), so the face need not read them back out of its answer.
        const answer = async (): Promise<string> => {
          if (dryRun) {
            const preview = await previewBatch(ctx, items, options);
            return JSON.stringify({ data: preview.data, meta: { ...preview.meta, took_ms: tookMs(reply) } });
          }
          const { data, meta } = await lookupBatch(ctx, items, options);
          return `{"data":[${data.map(itemJson).join(',')}],"meta":${JSON.stringify({ ...meta, took_ms: tookMs(reply) })}}`;
        };
        if (idempotencyKey === null) return sendJsonText(reply, await answer());
        // The request a retry must repeat: the query string (sorted) and the body's JSON, whitespace aside.
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        query.sort();
        const identity = requestIdentity([`POST ${BATCH_PATH}`, query.toString(), identityJson(body)]);
        const run = await runIdempotent(
          ctx,
          idempotencyKey,
          identity,
          async (): Promise<RunAnswer> => ({
            status: 200,
            headers: { 'content-type': JSON_TYPE },
            body: await answer(),
            codes: [],
          }),
        );
        if (run.replayed) reply.header(REPLAYED_HEADER, 'true');
        return reply.code(run.answer.status).headers(run.answer.headers).send(run.answer.body);
      } catch (e) {
        return sendError(reply, e);
      }
    });
  });
}

const exampleBatchMeta: BatchMeta = { count: 2, succeeded: 1, failed: 1, cache_hits: 0, credits: 1, took_ms: 1920 };
const examplePreview: BatchPreviewResponse = {
  data: [
    { index: 0, ok: true, would_cost: 0, cache_key: `zpid:${exampleProperty.zpid}` },
    { index: 1, ok: true, would_cost: 1, cache_key: 'addr:661 lakeview ave, san francisco, ca 94112' },
    { index: 2, ok: true, would_cost: 0, cache_key: `zpid:${exampleProperty.zpid}` },
  ],
  meta: {
    count: 3,
    succeeded: 3,
    failed: 0,
    cache_hits: 2,
    credits: 0,
    credits_estimate: 1,
    credits_available: 880,
    affordable: true,
    took_ms: 4,
  },
};

/** The operation in the OpenAPI document. */
export const batchPaths = (): OpenApiPaths => ({
  [BATCH_PATH]: {
    post: {
      operationId: 'lookupProperties',
      tags: [TAGS.lookups],
      summary: `Look up to ${MAX_BATCH_ITEMS} homes`,
      description:
        `Items are strings (link or address) or objects with one of ${LOCATOR_KEYS.join(', ')}. Each item succeeds or fails on its own (ok); ` +
        'a live lookup costs 1 credit, a cache hit or a failed item 0. With dry_run=true, a cost preview (BatchPreviewResponse): ' +
        'what each item would cost now and whether the account could pay it; nothing is looked up, charged or held.',
      parameters: [
        ...Object.entries(BATCH_QUERY_FIELDS).map(([name, field]) => queryParameter(name, field, true)),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: the first request with this key runs; a retry with the same key and the same request (body, query string) ' +
            'from the same account within 24 h gets the same answer with idempotent-replayed: true, and nothing is billed again. A retry while ' +
            'the first still runs waits for it (IDEMPOTENCY_WAIT_MS, then 409 idempotency_key_in_use); the key with another request is 422 ' +
            'idempotency_key_reused. Transient answers (401, 429, 5xx, or items failed with rate_limited, store_unavailable, upstream_busy, ' +
            'internal or batch_deadline), and an answer whose client went away, are not kept: a retry runs again, billing nothing the first run ' +
            'billed. One header line (two are 400 bad_param).',
          schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x20-\\x7e]+$' },
          example: 'order-7f3a-2026-03-01',
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/BatchRequest' },
            example: {
              items: [exampleProperty.detailUrl!, { address: '661 Lakeview Ave, San Francisco, CA 94112' }],
              status: 'for_sale',
            },
          },
        },
      },
      responses: {
        '200': {
          description:
            'One result per item, in order (BatchResponse); with dry_run=true, one preview per item (BatchPreviewResponse)',
          headers: { ...commonHeaders, ...replayedHeader },
          content: {
            'application/json': {
              // Not a oneOf: a preview whose items all fail is also a valid BatchResponse.
              schema: {
                anyOf: [
                  { $ref: '#/components/schemas/BatchResponse' },
                  { $ref: '#/components/schemas/BatchPreviewResponse' },
                ],
              },
              examples: {
                batch: {
                  summary: 'A batch',
                  value: {
                    data: [
                      { index: 0, ok: true, data: exampleProperty, meta: exampleMeta },
                      { index: 1, ok: false, error: errorBody('not_found').error },
                    ],
                    meta: exampleBatchMeta,
                  } as unknown as Json,
                },
                dry_run: {
                  summary:
                    'A cost preview (dry_run=true): a cached home, an address never looked up, the first home again',
                  value: examplePreview as unknown as Json,
                },
              },
            },
          },
        },
        // A missing locator fails its item (200), never the batch.
        ...errorResponses([400, 401, 429, 500, 503], (c) => c !== 'missing_param'),
        ...errorResponses([409, 422], (c) => IDEMPOTENCY_CODES.has(c)),
        ...sharedResponses([...REQUEST_LEVEL_CODES, 'unsupported_media_type']),
      },
    },
  },
});

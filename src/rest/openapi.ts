// The OpenAPI document, generated from the contract so it cannot drift from it: the schemas
// (schema.ts, inputs.ts), the query parameters (the input fields), and the error codes, statuses and
// example error bodies (the table in errors.ts). Only the examples of a found home are written here.
import {
  BATCH_QUERY_FIELDS, CONTRACT_SCHEMAS, ERROR_CODES, humanMs, LOCATOR_FIELDS, LOCATOR_KEYS, lookupDescription, MAX_BATCH_ITEMS, OPTION_FIELDS, PROPERTY_FIELDS, REST_ERROR_CODES,
  type AccountUsage, type BatchMeta, type BatchPreviewResponse, type LocatorKey, type LookupMeta, type PortalProperty, type RestErrorCode,
} from '../contract/index.js';
import type { Config } from '../config.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../lookup/idempotency.js';
import type { TSchema } from '@sinclair/typebox';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A union of literals of one type (an error code, a status hint) is an enum in OpenAPI. */
function literalEnum(members: unknown[]): Json | null {
  const consts = members.map((m) => (m && typeof m === 'object' && 'const' in m ? (m as { const: Json; type?: string }) : null));
  if (consts.length === 0 || consts.some((c) => c === null || c.type !== consts[0]!.type)) return null;
  return { type: consts[0]!.type ?? null, enum: consts.map((c) => c!.const) };
}

/**
 * TypeBox refs name a schema by its $id; OpenAPI wants a JSON pointer into components. Every union
 * in the contract is disjoint (null or not, one item shape or another), so each is a oneOf: exactly
 * one alternative matches; a union of literals is an enum.
 */
function toOpenApi(node: unknown): Json {
  if (Array.isArray(node)) return node.map(toOpenApi);
  if (node && typeof node === 'object') {
    let out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      if (k === '$ref' && typeof v === 'string') out[k] = `#/components/schemas/${v}`;
      else if (k === 'anyOf' && Array.isArray(v) && literalEnum(v)) out = { ...out, ...(literalEnum(v) as Record<string, Json>) };
      else out[k === 'anyOf' ? 'oneOf' : k] = toOpenApi(v);
    }
    return out;
  }
  return node as Json;
}

const commonHeaders = {
  'x-api-version': { description: 'Always v1', schema: { type: 'string', const: 'v1' } },
  'cache-control': { description: 'Always no-store', schema: { type: 'string', const: 'no-store' } },
  'x-request-id': { description: "The request's id in the service logs: the client's own when it sent a plain token, else a new one", schema: { type: 'string' } },
  'ratelimit-policy': { description: 'While there is a per-key limit: the lookups per window, e.g. "default";q=600;w=60', schema: { type: 'string' } },
  ratelimit: { description: 'On an answer that took from the key\'s window: what is left and when the next window starts, e.g. "default";r=598;t=42', schema: { type: 'string' } },
};

const errorBody = (code: RestErrorCode) => ({ error: { code, message: ERROR_CODES[code].message }, meta: { took_ms: 2, request_id: 'req-7f3a' } });

/**
 * Codes the HTTP layer answers before any operation runs: each a shared response (components.responses),
 * referenced by the operations it can answer (REQUEST_LEVEL_CODES, and 415 on the batch, the one with a body);
 * route_not_found and method_not_allowed answer requests that match no operation, so none references them.
 */
const HTTP_LAYER_CODES: ReadonlySet<RestErrorCode> = new Set([
  'route_not_found', 'method_not_allowed', 'not_acceptable', 'request_timeout', 'unsupported_media_type', 'expectation_failed',
  'headers_too_large',
]);
/** What any request to an operation may get from the HTTP layer: its accept, expect and headers, and its arrival in time. */
const REQUEST_LEVEL_CODES = ['not_acceptable', 'request_timeout', 'expectation_failed', 'headers_too_large'] as const satisfies readonly RestErrorCode[];

/** An error response of these codes (one status), with an example per code. */
const errorResponse = (codes: readonly RestErrorCode[]) => ({
  description: `Error: ${codes.join(', ')}`,
  headers: { ...commonHeaders, 'retry-after': { description: 'Seconds to wait, when the code has a wait', schema: { type: 'integer' } } },
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/ErrorEnvelope' },
      examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: errorBody(c) }])),
    },
  },
});

/** The HTTP layer's shared responses, one per code (components.responses). */
const httpLayerResponses = () => Object.fromEntries([...HTTP_LAYER_CODES].map((c) => [c, errorResponse([c])]));

/** References to the shared responses of these codes, keyed by their status. */
const sharedResponses = (codes: readonly RestErrorCode[]) =>
  Object.fromEntries(codes.map((c) => [String(ERROR_CODES[c].status), { $ref: `#/components/responses/${c}` }]));
/** The batch body's own codes, answered by POST /v1/portal/batch only. */
const BATCH_BODY_CODES: ReadonlySet<RestErrorCode> = new Set(['bad_body', 'too_many_items']);

/** Answered only to a batch sent with an Idempotency-Key. */
const IDEMPOTENCY_CODES: ReadonlySet<RestErrorCode> = new Set(['idempotency_key_in_use', 'idempotency_key_reused']);

/**
 * The error responses of an operation: per status, the table's codes of that status (but those the
 * operation never answers with), each with an example body.
 */
function errorResponses(statuses: readonly number[], answers: (code: RestErrorCode) => boolean = () => true) {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = REST_ERROR_CODES.filter((c) => ERROR_CODES[c].status === status && !HTTP_LAYER_CODES.has(c) && answers(c));
      if (codes.length === 0) throw new Error(`OpenAPI: no error code of the table has status ${status}`);
      return [String(status), errorResponse(codes)];
    }),
  );
}

/**
 * The one locator whose example is the parameter's `example`. Swagger UI's try-it fills every
 * parameter with its `example` (and with the first of its `examples`): more than one locator filled
 * would send them all, and the lookup answers 400 bad_param. The others show theirs in the description.
 */
const PREFILLED_LOCATOR: LocatorKey = 'zpid';

/** A query parameter from a contract input field: its description and example beside the schema, as OpenAPI has them. */
function queryParameter(name: string, field: TSchema, prefilled: boolean) {
  const { description, examples, ...schema } = toOpenApi(field) as Record<string, Json>;
  const example = Array.isArray(examples) ? examples[0]! : undefined;
  const text = example !== undefined && !prefilled ? `${description ?? ''} Example: \`${String(example)}\``.trim() : description;
  return {
    name, in: 'query', required: false,
    ...(text === undefined ? {} : { description: text }),
    ...(example !== undefined && prefilled ? { example } : {}),
    schema,
  };
}

// The home of the hand-checked record fixtures/portal/expected/hdp-2146993218-condo-for-sale-2024.json,
// trimmed (the rest null, lists empty); test/rest/openapi.test.ts holds every value set here to that
// file. Copied, not imported: the build compiles src/ only.
const EXAMPLE_READ_AT = '2026-10-09T12:00:00.000Z';
export const exampleProperty: PortalProperty = {
  ...(Object.fromEntries(PROPERTY_FIELDS.map((f) => [f, null])) as unknown as PortalProperty),
  zpid: '2146993218',
  detailUrl: 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/',
  address: '6851 Roswell Rd APT O31, Sandy Springs, GA 30328',
  streetAddress: '6851 Roswell Rd APT O31', unit: 'O31', city: 'Sandy Springs', state: 'GA', zipcode: '30328',
  price: 265000, currency: 'USD', homeStatus: 'FOR_SALE', statusText: 'For sale', homeType: 'CONDO', beds: 2, baths: 2, livingArea: 1206,
  yearBuilt: 1964, monthlyHoaFee: 486, photos: [], photoCount: 42, priceHistory: [], taxHistory: [], schools: [],
  scrapedAt: EXAMPLE_READ_AT,
};
const exampleMeta: LookupMeta = {
  credits: 1, cached: false, cache_key: `zpid:${exampleProperty.zpid}`, fetched_at: EXAMPLE_READ_AT,
  source: { provider: 'self_hosted', note: 'Read from the listing page' }, release: 'v1', took_ms: 1840, age_seconds: 0,
  // The 2024 condo page's own (its lists are left out of exampleProperty for brevity): it shows no tax years.
  sections: {
    photos: 'present', priceHistory: 'present', taxHistory: 'not_published', schools: 'present', agent: 'present', broker: 'present',
    estimate: 'present', rentEstimate: 'present', description: 'present',
  },
};
const exampleBatchMeta: BatchMeta = { count: 2, succeeded: 1, failed: 1, cache_hits: 0, credits: 1, took_ms: 1920 };
const examplePreview: BatchPreviewResponse = {
  data: [
    { index: 0, ok: true, would_cost: 0, cache_key: `zpid:${exampleProperty.zpid}` },
    { index: 1, ok: true, would_cost: 1, cache_key: 'addr:661 lakeview ave, san francisco, ca 94112' },
    { index: 2, ok: true, would_cost: 0, cache_key: `zpid:${exampleProperty.zpid}` },
  ],
  meta: { count: 3, succeeded: 3, failed: 0, cache_hits: 2, credits: 0, credits_estimate: 1, credits_available: 880, affordable: true, took_ms: 4 },
};
const exampleAccount: AccountUsage = {
  plan: 'paid', key_prefix: 'pk_live_3f9a', used: 120, included: 1000, remaining: 880, period_end: '2026-12-01T00:00:00.000Z',
  overage_enabled: false, overage_used: 0, overage_usd: 0, spend_limit_usd: null,
};

const TAGS = { lookups: 'Lookups', account: 'Account' } as const;

/** The document of a service: its descriptions say the configured cache lifetime. */
export function buildOpenApi(config: Pick<Config, 'cacheTtlMs'>): Record<string, Json> {
  const schemas = Object.fromEntries(CONTRACT_SCHEMAS.map((s) => [s.$id!, toOpenApi(s)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property lookup API',
      version: '1.0.0-preview',
      description:
        'One clean record per home from a listing-site link, a zpid or a one-line US address. Every request carries x-api-key. ' +
        `Any route may also answer ${[...HTTP_LAYER_CODES].map((c) => `${ERROR_CODES[c].status} ${c}`).join(', ')} in the same error envelope.`,
    },
    servers: [{ url: '/' }],
    tags: [
      { name: TAGS.lookups, description: 'Homes by link, zpid or address: one, or up to 50 in a batch' },
      { name: TAGS.account, description: "The caller's plan and usage" },
    ],
    security: [{ apiKey: [] }],
    components: { schemas, responses: httpLayerResponses(), securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths: {
      '/v1/portal/property': {
        get: {
          operationId: 'lookupProperty',
          tags: [TAGS.lookups],
          summary: 'Look up one home',
          description: lookupDescription(humanMs(config.cacheTtlMs)),
          parameters: [
            ...Object.entries(LOCATOR_FIELDS).map(([name, field]) => queryParameter(name, field, name === PREFILLED_LOCATOR)),
            ...Object.entries(OPTION_FIELDS).map(([name, field]) => queryParameter(name, field, true)),
          ],
          responses: {
            '200': {
              description: 'The home',
              headers: { ...commonHeaders, 'x-cache': { description: 'HIT, MISS, or STALE (the live read failed and the last good record answered: meta.stale)', schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] } } },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/PropertyResponse' },
                  example: { data: exampleProperty, meta: exampleMeta } as unknown as Json,
                },
              },
            },
            ...errorResponses([400, 401, 402, 404, 409, 422, 429, 500, 502, 503, 504], (c) => !BATCH_BODY_CODES.has(c) && !IDEMPOTENCY_CODES.has(c)),
            ...sharedResponses(REQUEST_LEVEL_CODES),
          },
        },
      },
      '/v1/portal/batch': {
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
                example: { items: [exampleProperty.detailUrl!, { address: '661 Lakeview Ave, San Francisco, CA 94112' }], status: 'for_sale' },
              },
            },
          },
          responses: {
            '200': {
              description: 'One result per item, in order (BatchResponse); with dry_run=true, one preview per item (BatchPreviewResponse)',
              headers: {
                ...commonHeaders,
                'idempotent-replayed': { description: 'true on the answer of an earlier request with the same Idempotency-Key, given again', schema: { type: 'string', const: 'true' } },
              },
              content: {
                'application/json': {
                  // Not a oneOf: a preview whose items all fail is also a valid BatchResponse.
                  schema: { anyOf: [{ $ref: '#/components/schemas/BatchResponse' }, { $ref: '#/components/schemas/BatchPreviewResponse' }] },
                  examples: {
                    batch: {
                      summary: 'A batch',
                      value: {
                        data: [{ index: 0, ok: true, data: exampleProperty, meta: exampleMeta }, { index: 1, ok: false, error: errorBody('not_found').error }],
                        meta: exampleBatchMeta,
                      } as unknown as Json,
                    },
                    dry_run: { summary: 'A cost preview (dry_run=true): a cached home, an address never looked up, the first home again', value: examplePreview as unknown as Json },
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
      '/v1/account': {
        get: {
          operationId: 'getAccount',
          tags: [TAGS.account],
          summary: "The caller's plan and usage",
          description: 'Free: no lookup is made.',
          responses: {
            '200': {
              description: 'Plan and usage',
              headers: commonHeaders,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['data', 'meta'],
                    properties: { data: { $ref: '#/components/schemas/AccountUsage' }, meta: { type: 'object', required: ['took_ms'], properties: { took_ms: { type: 'integer' } } } },
                  },
                  example: { data: exampleAccount, meta: { took_ms: 3 } } as unknown as Json,
                },
              },
            },
            // No lookup: only the store, or an instance too busy to hear it, can fail it.
            ...errorResponses([401, 503], (c) => c === 'missing_api_key' || c === 'invalid_api_key' || c === 'store_unavailable' || c === 'upstream_busy'),
            ...sharedResponses(REQUEST_LEVEL_CODES),
          },
        },
      },
    },
  };
}

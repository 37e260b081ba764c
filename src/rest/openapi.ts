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
import { MAX_WATCHES_PER_ACCOUNT, WATCH_SCHEMAS, type WatchViewShape } from '../contract/watches.js';
import { JOB_CSV_COLUMNS, JOB_OPTION_FIELDS, JOB_RETENTION_DAYS, JOB_SCHEMAS, MAX_JOB_BODY_BYTES, MAX_JOBS_PAGE, DEFAULT_JOBS_PAGE } from '../contract/jobs.js';
import { JOB_MEDIA_TYPES } from '../contract/job-input.js';
import { MAX_JOB_ITEMS, type JobView } from '../contract/jobs.js';
import { webhooksOpenApi } from '../webhooks/openapi.js';

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

const exampleJob: JobView = {
  id: 'job_01JD3Y6Q7W', status: 'running', count: 2000, done: 850, succeeded: 812, failed: 38, cache_hits: 301, credits: 511,
  created_at: '2026-10-09T12:00:00.000Z', started_at: '2026-10-09T12:00:01.000Z', finished_at: null, webhook_url: 'https://example.com/hooks/portal',
  waiting: 0, waiting_until: null,
};

/** The idempotency header of a job's creation: its retry makes no second job. */
const jobIdempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a retry with the same key and the same job (body, content-type, query string) from the same account within 24 h ' +
    'gets the first answer again (the same job id) with idempotent-replayed: true, and no second job is made. The key with another job is 422 idempotency_key_reused.',
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x20-\\x7e]+$' },
};

const jobIdParameter = { name: 'id', in: 'path', required: true, description: 'The job id (the location header of its creation)', schema: { type: 'string' } };
/** The errors of a job's or a watch's own routes: a bad parameter, the key, another account's (or an expired) job or watch, the store. */
const resourceErrors = () => ({
  ...errorResponses([400], (c) => c === 'bad_param'),
  ...errorResponses([401]),
  ...errorResponses([404], (c) => c === 'not_found'),
  ...errorResponses([500]),
  ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
  ...sharedResponses(REQUEST_LEVEL_CODES),
});
const jobAnswer = (description: string) => ({
  description,
  headers: commonHeaders,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/JobResponse' }, example: { data: exampleJob, meta: { took_ms: 3 } } as unknown as Json } },
});

const TAGS = { lookups: 'Lookups', jobs: 'Jobs', watches: 'Watches', account: 'Account' } as const;

const exampleWatch: WatchViewShape = {
  id: 'w_3f9a0c1d2e4b4f6a8c0e1f2a3b4c5d6e', zpid: '15192198', webhook_url: 'https://example.com/hooks/portal', interval_hours: 24,
  created_at: '2026-10-09T12:00:00.000Z', home_zpid: '15192198', last_checked_at: '2026-10-10T12:00:00.000Z', next_check_at: '2026-10-11T12:00:00.000Z', last_error: null,
};
const watchIdParameter = { name: 'id', in: 'path', required: true, description: 'The watch id (the location header of its creation)', schema: { type: 'string' } };
/** A watch or the account's watches, as answered. */
const watchAnswer = (description: string, list: boolean) => {
  const data: Json = list ? { type: 'array', items: { $ref: '#/components/schemas/Watch' } } : { $ref: '#/components/schemas/Watch' };
  const meta: Json = { type: 'object', required: ['took_ms'], properties: list ? { took_ms: { type: 'integer' }, count: { type: 'integer' } } : { took_ms: { type: 'integer' } } };
  return {
    description,
    headers: commonHeaders,
    content: {
      'application/json': {
        schema: { type: 'object', required: ['data', 'meta'], properties: { data, meta } },
        example: { data: list ? [exampleWatch] : exampleWatch, meta: list ? { took_ms: 3, count: 1 } : { took_ms: 3 } } as unknown as Json,
      },
    },
  };
};

/** POST/GET /v1/portal/watches and GET/DELETE /v1/portal/watches/{id} (docs/watches-and-webhooks.md). */
const watchPaths = (): Record<string, Json> => ({
  '/v1/portal/watches': {
    post: {
      operationId: 'createWatch',
      tags: [TAGS.watches],
      summary: 'Watch a home',
      description:
        `The home (one of ${LOCATOR_KEYS.join(', ')}) is read live every interval_hours, the first time at once; each check is billed like a lookup ` +
        '(1 credit when read live; a failed check is not billed and shows in last_error). When price, status, estimate, rent estimate or HOA differ ' +
        'from the last check, a signed property.changed webhook goes to webhook_url with { zpid, changes: [{ field, from, to }], data: the PortalProperty }. ' +
        `At most ${MAX_WATCHES_PER_ACCOUNT.toLocaleString('en-US')} watches per account (then 429 rate_limited, details.limit "watches").`,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WatchRequest' }, example: { zpid: '15192198', webhook_url: 'https://example.com/hooks/portal', interval_hours: 24 } } },
      },
      responses: {
        '201': { ...watchAnswer('The watch; its first check runs at once', false), headers: { ...commonHeaders, location: { description: 'The watch: `/v1/portal/watches/<id>`', schema: { type: 'string' } } } },
        ...errorResponses([400], (c) => c === 'bad_body' || c === 'bad_param' || c === 'missing_param'),
        ...errorResponses([401]),
        ...errorResponses([429]),
        ...errorResponses([500]),
        ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
    get: {
      operationId: 'listWatches',
      tags: [TAGS.watches],
      summary: "The account's watches",
      description: 'Newest first. Free: no lookup is made.',
      responses: { '200': watchAnswer("The account's watches", true), ...resourceErrors() },
    },
  },
  '/v1/portal/watches/{id}': {
    get: {
      operationId: 'getWatch',
      tags: [TAGS.watches],
      summary: 'A watch',
      description: "Another account's watch is 404 not_found (No such watch.).",
      parameters: [watchIdParameter],
      responses: { '200': watchAnswer('The watch', false), ...resourceErrors() },
    },
    delete: {
      operationId: 'deleteWatch',
      tags: [TAGS.watches],
      summary: 'Stop watching a home',
      description: "Its schedule is removed: no more checks or charges. 204 with no body; another account's watch is 404 not_found.",
      parameters: [watchIdParameter],
      responses: { '204': { description: 'Removed', headers: commonHeaders }, ...resourceErrors() },
    },
  },
});

/** The document of a service: its descriptions say the configured cache lifetime. */
export function buildOpenApi(config: Pick<Config, 'cacheTtlMs'>): Record<string, Json> {
  const schemas = Object.fromEntries([...CONTRACT_SCHEMAS, ...JOB_SCHEMAS, ...WATCH_SCHEMAS].map((s) => [s.$id!, toOpenApi(s)]));
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
      { name: TAGS.jobs, description: `Bulk lookups of up to ${MAX_JOB_ITEMS.toLocaleString('en-US')} homes that run in the background, billed as lookups; results kept ${JOB_RETENTION_DAYS} days` },
      { name: TAGS.watches, description: 'Homes read live on a schedule, billed per check, with a property.changed webhook when price, status, estimates or HOA change' },
      { name: TAGS.account, description: "The caller's plan and usage" },
    ],
    security: [{ apiKey: [] }],
    components: { schemas, responses: httpLayerResponses(), securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    // The events a webhook_url receives (job.completed, job.failed, property.changed).
    webhooks: webhooksOpenApi(),
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
      '/v1/portal/jobs': {
        post: {
          operationId: 'createLookupJob',
          tags: [TAGS.jobs],
          summary: `Queue a job of up to ${MAX_JOB_ITEMS.toLocaleString('en-US')} homes`,
          description:
            `The items in the batch's forms, as JSON (JobRequest), as text/csv (a header row naming url, zpid and/or address columns; one item per row ` +
            `from its non-empty locator cell; other columns ignored) or as NDJSON (one item per line). For CSV and NDJSON the options and webhook_url ` +
            `are query parameters. Bodies up to ${MAX_JOB_BODY_BYTES / (1024 * 1024)} MB. Every item is validated up front: an invalid one is its own ` +
            'error result (400 bad_body: no job; too_many_items: "At most 10,000 items per job."). Billed as lookups, as the items run: 1 credit per ' +
            'successful live lookup, each item at most once.',
          parameters: [
            ...Object.entries(JOB_OPTION_FIELDS).map(([name, field]) => queryParameter(name, field, false)),
            jobIdempotencyHeader,
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/JobRequest' },
                example: { items: [exampleProperty.detailUrl!, { zpid: '15192198' }, '661 Lakeview Ave, San Francisco, CA 94112'], webhook_url: 'https://example.com/hooks/portal' },
              },
              'text/csv': { schema: { type: 'string', description: 'A header row naming url, zpid and/or address columns, then one home per row' }, example: 'zpid,address\r\n15192198,\r\n,"661 Lakeview Ave, San Francisco, CA 94112"\r\n' },
              ...Object.fromEntries(Object.entries(JOB_MEDIA_TYPES).filter(([, f]) => f === 'ndjson').map(([type]) => [type, { schema: { type: 'string', description: 'One item (a JSON string or item object) per line' } }])),
            },
          },
          responses: {
            '202': {
              description: 'Queued: the job runs in the background',
              headers: {
                ...commonHeaders,
                location: { description: 'The job: `/v1/portal/jobs/<id>`', schema: { type: 'string' } },
                'idempotent-replayed': { description: 'true on the answer of an earlier request with the same Idempotency-Key, given again', schema: { type: 'string', const: 'true' } },
              },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/JobCreated' },
                  example: { data: { id: exampleJob.id, status: 'queued', count: 2000, created_at: exampleJob.created_at }, meta: { took_ms: 41 } },
                },
              },
            },
            // An item without a locator is its own result, never the job's refusal.
            ...errorResponses([400], (c) => c !== 'missing_param'),
            ...errorResponses([401]),
            ...errorResponses([409, 422], (c) => IDEMPOTENCY_CODES.has(c)),
            // The account's per-account job bounds (details.limit jobs_active or job_items_queued).
            ...errorResponses([429]),
            ...errorResponses([500]),
            ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
            ...sharedResponses([...REQUEST_LEVEL_CODES, 'unsupported_media_type']),
          },
        },
        get: {
          operationId: 'listLookupJobs',
          tags: [TAGS.jobs],
          summary: "The account's jobs, newest first",
          parameters: [
            { name: 'limit', in: 'query', required: false, description: `Jobs per page, 1 to ${MAX_JOBS_PAGE}; ${DEFAULT_JOBS_PAGE} when omitted`, schema: { type: 'integer', minimum: 1, maximum: MAX_JOBS_PAGE } },
            { name: 'cursor', in: 'query', required: false, description: "meta.next_cursor of the page before; one not of a job id's form is 400 bad_param", schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'A page of jobs',
              headers: commonHeaders,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/JobListResponse' }, example: { data: [exampleJob], meta: { next_cursor: null, took_ms: 4 } } as unknown as Json } },
            },
            ...resourceErrors(),
          },
        },
      },
      '/v1/portal/jobs/{id}': {
        get: {
          operationId: 'getLookupJob',
          tags: [TAGS.jobs],
          summary: 'A job: its status and counts',
          description: "Another account's job, or one past its retention, is 404 not_found.",
          parameters: [jobIdParameter],
          responses: { '200': jobAnswer('The job'), ...resourceErrors() },
        },
        delete: {
          operationId: 'cancelLookupJob',
          tags: [TAGS.jobs],
          summary: 'Cancel a job',
          description: 'Items not started are not run, have no result and are not billed; chunks already running finish and are billed, so `done` and `credits` may still grow after this answer. Answers the job as it then stands (`finished_at` null while chunks run). Once no chunk of it runs (at once when none did), `finished_at` is set, the events stream ends and, with a `webhook_url`, its one `job.completed` is sent, all with the final counts as billed (cancelling a finished job changes nothing).',
          parameters: [jobIdParameter],
          responses: { '200': jobAnswer('The job as it stands after cancelling'), ...resourceErrors() },
        },
      },
      '/v1/portal/jobs/{id}/results': {
        get: {
          operationId: 'getLookupJobResults',
          tags: [TAGS.jobs],
          summary: "A job's results, streamed",
          description:
            'The results of the items done so far, in item order: NDJSON, one BatchResult-shaped line per item ({index, ok, data, meta} or {index, ok, error}); ' +
            `with format=csv, CSV with a header row: ${JOB_CSV_COLUMNS.slice(0, 6).join(', ')}, then a column per PortalProperty scalar field ` +
            '(lists and raw are left to NDJSON).',
          parameters: [jobIdParameter, { name: 'format', in: 'query', required: false, description: 'ndjson (when omitted) or csv', schema: { type: 'string', enum: ['ndjson', 'csv'] } }],
          responses: {
            '200': {
              description: 'The results',
              headers: commonHeaders,
              content: {
                'application/x-ndjson': { schema: { type: 'string', description: 'One BatchItemSuccess or BatchItemFailure JSON per line' } },
                'text/csv': { schema: { type: 'string', description: `Columns: ${JOB_CSV_COLUMNS.join(', ')}. A text cell starting with =, +, -, @, tab or CR has a leading ' (no spreadsheet formula); numbers are as they are.` } },
              },
            },
            ...resourceErrors(),
          },
        },
      },
      '/v1/portal/jobs/{id}/events': {
        get: {
          operationId: 'streamLookupJobEvents',
          tags: [TAGS.jobs],
          summary: "A job's progress as server-sent events",
          description:
            '`event: progress` with the job (JobView JSON) now and on each change, `event: done` with the final job, then the stream ends; ' +
            'a comment line every 15 s keeps it open.',
          parameters: [jobIdParameter],
          responses: {
            '200': { description: 'The event stream', headers: commonHeaders, content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...resourceErrors(),
            // The account's open streams at JOB_MAX_EVENT_STREAMS_PER_ACCOUNT (details.limit event_streams).
            ...errorResponses([429]),
          },
        },
      },
      ...watchPaths(),
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

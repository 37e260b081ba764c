// The pieces of the OpenAPI document that are no one route's: the JSON-to-OpenAPI rewrite of the
// contract's schemas, the v1 headers, the error responses built from the error table (errors.ts), the
// query parameter of an input field, the tags. Each route's own operations are beside it (routes/) and
// use these; src/rest/openapi.ts assembles the document.
import { ERROR_CODES, REST_ERROR_CODES, type RestErrorCode } from '../../contract/index.js';
import type { Config } from '../../config.js';
import type { TSchema } from '@sinclair/typebox';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** What the document's texts say of the configured service (a lookup says the cache lifetime). */
export type OpenApiConfig = Pick<Config, 'cacheTtlMs'>;
/** A route file's part of the document: its entries of `paths`, each a path with its operations by method. */
export type OpenApiPaths = Record<string, Json>;

/** A union of literals of one type (an error code, a status hint) is an enum in OpenAPI. */
function literalEnum(members: unknown[]): Json | null {
  const consts = members.map((m) =>
    m && typeof m === 'object' && 'const' in m ? (m as { const: Json; type?: string }) : null,
  );
  if (consts.length === 0 || consts.some((c) => c === null || c.type !== consts[0]!.type)) return null;
  return { type: consts[0]!.type ?? null, enum: consts.map((c) => c!.const) };
}

/**
 * TypeBox refs name a schema by its $id; OpenAPI wants a JSON pointer into components. Every union
 * in the contract is disjoint (null or not, one item shape or another), so each is a oneOf: exactly
 * one alternative matches; a union of literals is an enum.
 */
export function toOpenApi(node: unknown): Json {
  if (Array.isArray(node)) return node.map(toOpenApi);
  if (node && typeof node === 'object') {
    let out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      if (k === '$ref' && typeof v === 'string') out[k] = `#/components/schemas/${v}`;
      else if (k === 'anyOf' && Array.isArray(v) && literalEnum(v))
        out = { ...out, ...(literalEnum(v) as Record<string, Json>) };
      else out[k === 'anyOf' ? 'oneOf' : k] = toOpenApi(v);
    }
    return out;
  }
  return node as Json;
}

/**
 * The two ways to send the API key (src/accounts/api-key-header.ts), either one: the x-api-key header, or
 * Authorization: Bearer. Both with different keys is 400 bad_param.
 */
export const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key in the `x-api-key` header.' },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The same API key as `Authorization: Bearer <key>`. Sent together with `x-api-key`, both must carry the same key (else 400 `bad_param`).',
  },
} as const;

/** Every operation's requirement: one of the schemes (OpenAPI: alternatives, not both). */
export const SECURITY: Json[] = [{ apiKey: [] }, { bearer: [] }];

export const TAGS = {
  lookups: 'Lookups',
  jobs: 'Jobs',
  watches: 'Watches',
  webhooks: 'Webhooks',
  account: 'Account',
  status: 'Status',
} as const;

export const commonHeaders = {
  'x-api-version': { description: 'Always v1', schema: { type: 'string', const: 'v1' } },
  'cache-control': { description: 'Always no-store', schema: { type: 'string', const: 'no-store' } },
  'x-request-id': {
    description: "The request's id in the service logs: the client's own when it sent a plain token, else a new one",
    schema: { type: 'string' },
  },
  'ratelimit-policy': {
    description: 'While there is a per-key limit: the lookups per window, e.g. "default";q=600;w=60',
    schema: { type: 'string' },
  },
  ratelimit: {
    description:
      'On an answer that took from the key\'s window: what is left and when the next window starts, e.g. "default";r=598;t=42',
    schema: { type: 'string' },
  },
};

/** The answer header of a request with an Idempotency-Key answered again (the batch's, a job's creation). */
export const replayedHeader = {
  'idempotent-replayed': {
    description: 'true on the answer of an earlier request with the same Idempotency-Key, given again',
    schema: { type: 'string', const: 'true' },
  },
};

export const errorBody = (code: RestErrorCode) => ({
  error: { code, message: ERROR_CODES[code].message },
  meta: { took_ms: 2, request_id: 'req-7f3a' },
});

/**
 * Codes the HTTP layer answers before any operation runs: each a shared response (components.responses),
 * referenced by the operations it can answer (REQUEST_LEVEL_CODES, and 415 on the batch, the one with a body);
 * route_not_found and method_not_allowed answer requests that match no operation, so none references them.
 */
export const HTTP_LAYER_CODES: ReadonlySet<RestErrorCode> = new Set([
  'route_not_found',
  'method_not_allowed',
  'not_acceptable',
  'request_timeout',
  'unsupported_media_type',
  'expectation_failed',
  'headers_too_large',
]);
/** What any request to an operation may get from the HTTP layer: its accept, expect and headers, and its arrival in time. */
export const REQUEST_LEVEL_CODES = [
  'not_acceptable',
  'request_timeout',
  'expectation_failed',
  'headers_too_large',
] as const satisfies readonly RestErrorCode[];

/** An error response of these codes (one status), with an example per code. */
const errorResponse = (codes: readonly RestErrorCode[]) => ({
  description: `Error: ${codes.join(', ')}`,
  headers: {
    ...commonHeaders,
    'retry-after': { description: 'Seconds to wait, when the code has a wait', schema: { type: 'integer' } },
  },
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/ErrorEnvelope' },
      examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: errorBody(c) }])),
    },
  },
});

/** The HTTP layer's shared responses, one per code (components.responses). */
export const httpLayerResponses = () => Object.fromEntries([...HTTP_LAYER_CODES].map((c) => [c, errorResponse([c])]));

/** References to the shared responses of these codes, keyed by their status. */
export const sharedResponses = (codes: readonly RestErrorCode[]) =>
  Object.fromEntries(codes.map((c) => [String(ERROR_CODES[c].status), { $ref: `#/components/responses/${c}` }]));
/** The batch body's own codes, answered by POST /v1/portal/batch only. */
export const BATCH_BODY_CODES: ReadonlySet<RestErrorCode> = new Set(['bad_body', 'too_many_items']);

/** Answered only to a batch sent with an Idempotency-Key. */
export const IDEMPOTENCY_CODES: ReadonlySet<RestErrorCode> = new Set([
  'idempotency_key_in_use',
  'idempotency_key_reused',
]);

/**
 * The error responses of an operation: per status, the table's codes of that status (but those the
 * operation never answers with), each with an example body.
 */
export function errorResponses(statuses: readonly number[], answers: (code: RestErrorCode) => boolean = () => true) {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = REST_ERROR_CODES.filter(
        (c) => ERROR_CODES[c].status === status && !HTTP_LAYER_CODES.has(c) && answers(c),
      );
      if (codes.length === 0) throw new Error(`OpenAPI: no error code of the table has status ${status}`);
      return [String(status), errorResponse(codes)];
    }),
  );
}

/** The errors of a job's or a watch's own routes: a bad parameter, the key, another account's (or an expired) job or watch, the store. */
export const resourceErrors = () => ({
  ...errorResponses([400], (c) => c === 'bad_param'),
  ...errorResponses([401]),
  ...errorResponses([404], (c) => c === 'not_found'),
  ...errorResponses([500]),
  ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
  ...sharedResponses(REQUEST_LEVEL_CODES),
});

/** A query parameter from a contract input field: its description and example beside the schema, as OpenAPI has them. */
export function queryParameter(name: string, field: TSchema, prefilled: boolean) {
  const { description, examples, ...schema } = toOpenApi(field) as Record<string, Json>;
  const example = Array.isArray(examples) ? examples[0]! : undefined;
  const text =
    example !== undefined && !prefilled ? `${description ?? ''} Example: \`${String(example)}\``.trim() : description;
  return {
    name,
    in: 'query',
    required: false,
    ...(text === undefined ? {} : { description: text }),
    ...(example !== undefined && prefilled ? { example } : {}),
    schema,
  };
}

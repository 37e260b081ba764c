// What the landing page and /llms.txt tell a newcomer, read from the code that decides it: the
// operations from the OpenAPI document, the error codes from the one table, the limits and cache
// lifetime from the contract and the configuration. Nothing here is a second copy to keep in step.
import {
  ERROR_CODES,
  humanMs,
  MAX_AGE_MAX,
  MAX_BATCH_ITEMS,
  REST_ERROR_CODES,
  type RestErrorCode,
} from '../contract/index.js';
import type { Config } from '../config.js';
import { IDEMPOTENCY_TTL_MS, MAX_IDEMPOTENCY_KEY_LENGTH, REPLAYED_HEADER } from '../lookup/idempotency.js';
import { buildOpenApi } from '../rest/openapi.js';

export interface Operation {
  method: string;
  path: string;
  summary: string;
  description?: string;
  params: string[];
}

export interface ErrorRow {
  code: RestErrorCode;
  status: number;
  message: string;
  retryAfter?: number;
}

interface OpenApiOperation {
  summary?: string;
  description?: string;
  parameters?: Array<{ name: string; in: string }>;
}

/** The REST operations of the OpenAPI document, in its order. */
export function operations(config: Pick<Config, 'cacheTtlMs'>): Operation[] {
  const paths = buildOpenApi(config).paths as Record<string, Record<string, OpenApiOperation>>;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      summary: op.summary ?? '',
      ...(op.description === undefined ? {} : { description: op.description }),
      params: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    })),
  );
}

/** The error codes a REST client can get, with status and default message, in the table's order. */
export const errorRows = (): ErrorRow[] =>
  REST_ERROR_CODES.map((code) => {
    const entry: { status: number; message: string; retryAfter?: number } = ERROR_CODES[code];
    return {
      code,
      status: entry.status,
      message: entry.message,
      ...(entry.retryAfter === undefined ? {} : { retryAfter: entry.retryAfter }),
    };
  });

/** How billing works, one sentence each. */
export const costs = (config: Pick<Config, 'cacheTtlMs'>): string[] => [
  'A live lookup (the home read from the listing site) costs 1 credit.',
  `A cache hit costs 0: a home looked up by anyone in the last ${humanMs(config.cacheTtlMs)} (meta.cached: true, header x-cache: HIT).`,
  `A batch takes up to ${MAX_BATCH_ITEMS} items and bills each item like a single lookup; a home asked twice in one request is billed once.`,
  `max_age (seconds, 0 to ${MAX_AGE_MAX}) asks for a fresher record: a cached one older than that is read live and costs 1; max_age=0 always reads live.`,
  'When a live read is blocked or the site is down, the last good record answers for 0 credits, marked meta.stale (send stale=false to get the error instead).',
  'POST /v1/portal/batch?dry_run=true says what a batch would cost now (would_cost per item, meta.credits_estimate, meta.affordable) without looking anything up or charging.',
  `An Idempotency-Key header (1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters) on POST /v1/portal/batch or a GraphQL POST makes a retry safe: the same request with the same key within ${humanMs(IDEMPOTENCY_TTL_MS)} gets the first answer again (header ${REPLAYED_HEADER}: true), billed once.`,
  'Errors are never billed. meta.credits in every answer says what the request cost.',
  'GET /v1/account shows the plan, the lookups used and remaining, and the billing period.',
];

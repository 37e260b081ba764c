// Every error the service can answer with: a stable code (spec section 7), its HTTP status,
// and a default message. REST and GraphQL both read this one table. A few codes are GraphQL's only
// (`only: 'graphql'`: refusals of a document before it runs); `graphqlHttp` says how such a code sets
// the HTTP status of a GraphQL response: `request`, the status under application/graphql-response+json
// and 200 under application/json (GraphQL over HTTP, like a validation error); `response`, the status
// whatever the accept header.

export const ERROR_CODES = {
  missing_param: { status: 400, message: 'Send one of url, zpid or address.' },
  bad_param: { status: 400, message: 'A parameter is invalid.' },
  bad_body: { status: 400, message: 'The body must be JSON with a non-empty items array.' },
  too_many_items: { status: 400, message: 'At most 50 lookups per request.' },
  missing_api_key: { status: 401, message: 'Send your API key in the x-api-key header.' },
  invalid_api_key: { status: 401, message: 'The API key is not known.' },
  credits_exhausted: { status: 402, message: "The account's lookups are used up. Cached properties still work." },
  spend_limit_reached: { status: 402, message: 'The monthly spend limit is reached. Cached properties still work.' },
  not_found: { status: 404, message: 'No property matches.' },
  route_not_found: { status: 404, message: 'No such route.' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this route.' },
  not_acceptable: { status: 406, message: 'None of the media types in the accept header can be answered.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  unsupported_media_type: { status: 415, message: 'The content-type of the body is not supported here.' },
  expectation_failed: { status: 417, message: 'The expect header can only be 100-continue.' },
  rate_limited: { status: 429, message: 'Too many requests. Retry after the retry-after header.', retryAfter: 1 },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  address_ambiguous: { status: 409, message: 'The closest match for the address is a different home.' },
  idempotency_key_in_use: {
    status: 409, message: 'A request with this Idempotency-Key is still running. Retry after the retry-after header to get its answer.', retryAfter: 5,
  },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used with another request. Use a new key for a new request.' },
  unprocessable_input: { status: 422, message: 'The data provider rejected the input. Check the link or address.' },
  internal: { status: 500, message: "Failure on the service's side. Safe to retry with backoff." },
  upstream_error: { status: 502, message: 'The data provider failed. Safe to retry with backoff.' },
  upstream_unreachable: { status: 502, message: 'The data provider could not be reached. Safe to retry with backoff.' },
  upstream_bad_response: { status: 502, message: 'The data provider answered with something unreadable. Safe to retry with backoff.' },
  upstream_run_failed: { status: 502, message: "The data provider's run failed. Safe to retry with backoff." },
  upstream_blocked: { status: 502, message: 'The listing site refused the read (bot wall) and no fallback could read it. Safe to retry later.' },
  upstream_cost_cap: { status: 502, message: 'The lookup was stopped at its upstream cost limit. Retry at most once, with status set if known.' },
  upstream_busy: { status: 503, message: 'The data provider is busy. Retry after the retry-after header.', retryAfter: 30 },
  no_api_keys: { status: 503, message: "Live lookups are unavailable on the service's side." },
  live_lookups_disabled: { status: 503, message: "Live lookups are disabled on the service's side. Cached properties still work." },
  upstream_auth: { status: 503, message: "Live lookups are unavailable on the service's side." },
  upstream_quota: { status: 503, message: "Live lookups are unavailable on the service's side." },
  upstream_actor_missing: { status: 503, message: "Live lookups are unavailable on the service's side." },
  upstream_misconfigured: { status: 503, message: "Live lookups are unavailable on the service's side." },
  live_lookups_capped: { status: 503, message: 'The daily live-lookup limit is reached; new lookups resume at 00:00 UTC. Cached properties still work.' },
  store_unavailable: { status: 503, message: 'The usage and cache store is unreachable. Retry in 30 seconds.', retryAfter: 30 },
  upstream_timeout: { status: 504, message: 'The live lookup took too long. Safe to retry.' },
  batch_deadline: { status: 504, message: 'The item could not finish within the batch time limit. Retry it.' },
  query_too_complex: {
    status: 400, message: 'The operation is over a shape limit (depth, aliases, tokens, directives or introspection).', only: 'graphql', graphqlHttp: 'request',
  },
  persisted_query_not_found: { status: 400, message: 'No persisted operation has this hash.', only: 'graphql', graphqlHttp: 'request' },
  missing_query: { status: 400, message: 'Send a query, or extensions.persistedQuery.sha256Hash.', only: 'graphql', graphqlHttp: 'response' },
  operation_not_supported: { status: 400, message: 'Subscriptions are not served: send a query or a mutation.', only: 'graphql', graphqlHttp: 'request' },
} as const satisfies Record<string, ErrorEntry>;

interface ErrorEntry {
  status: number;
  message: string;
  retryAfter?: number;
  only?: 'graphql';
  graphqlHttp?: 'request' | 'response';
}

export type ErrorCode = keyof typeof ERROR_CODES;
/** The codes REST answers with: the whole table but GraphQL's own. */
export type RestErrorCode = { [C in ErrorCode]: (typeof ERROR_CODES)[C] extends { only: 'graphql' } ? never : C }[ErrorCode];
export type GraphqlOnlyCode = Exclude<ErrorCode, RestErrorCode>;
export const REST_ERROR_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
  (c): c is RestErrorCode => (ERROR_CODES[c] as ErrorEntry).only !== 'graphql',
);

/** How a code sets the HTTP status of a GraphQL response, when the table says (see the top of this file). */
export const graphqlHttpOf = (code: ErrorCode): ErrorEntry['graphqlHttp'] => (ERROR_CODES[code] as ErrorEntry).graphqlHttp;

export interface LookupErrorOptions {
  message?: string;
  details?: Record<string, unknown>;
  /** Seconds, sent as the retry-after header by REST. */
  retryAfter?: number;
  cause?: unknown;
}

/** The one error type of the service: a value with a spec code. */
export class LookupError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly retryAfter?: number;

  constructor(code: ErrorCode, opts: LookupErrorOptions = {}) {
    super(opts.message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.name = 'LookupError';
    this.code = code;
    if (opts.details !== undefined) this.details = opts.details;
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** Seconds a client should wait before retrying (REST: the retry-after header), when there is a wait. */
  get retryAfterSeconds(): number | undefined {
    const entry = ERROR_CODES[this.code];
    return this.retryAfter ?? ('retryAfter' in entry ? entry.retryAfter : undefined);
  }

  toBody(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export const isLookupError = (e: unknown): e is LookupError => e instanceof LookupError;

// An instance that cannot take the work now (too busy to answer in time, or shutting down) answers
// 503 upstream_busy with a reason and a one-second retry-after: spec 7 allows no other new codes.
const INSTANCE_BUSY = {
  overloaded: 'This instance is too busy to answer in time. Retry in a second.',
  shutting_down: 'This instance is shutting down. Retry; another instance answers.',
} as const;
export type InstanceBusyReason = keyof typeof INSTANCE_BUSY;

export function instanceBusy(reason: InstanceBusyReason, opts: { message?: string; cause?: unknown } = {}): LookupError {
  return new LookupError('upstream_busy', { message: opts.message ?? INSTANCE_BUSY[reason], details: { reason }, retryAfter: 1, cause: opts.cause });
}

export const isInstanceBusy = (e: unknown, reason: InstanceBusyReason): boolean =>
  isLookupError(e) && e.code === 'upstream_busy' && e.details?.reason === reason;

/** Anything thrown that is not a LookupError is an internal failure; its text never reaches a client. */
export function toLookupError(e: unknown): LookupError {
  return isLookupError(e) ? e : new LookupError('internal', { cause: e });
}


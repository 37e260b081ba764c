// Every error the service can answer with: a stable code (spec section 7), its HTTP status,
// and a default message. REST and GraphQL both read this one table. A few codes are GraphQL's only
// (`only: 'graphql'`: refusals of a document before it runs); `graphqlHttp` says how such a code sets
// the HTTP status of a GraphQL response: `request`, the status under application/graphql-response+json
// and 200 under application/json (GraphQL over HTTP, like a validation error); `response`, the status
// whatever the accept header. Longer than 500 lines on purpose: one row per code, each with its columns.
//
// The rules about codes are columns of the table too, set on every row (ErrorRules), so a new code is
// one row; the rest of the service asks the helpers below (isStaleEligible, …), never a list of its own.

export const ERROR_CODES = {
  missing_param: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'Send one of url, zpid or address.',
  },
  bad_param: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'A parameter is invalid.',
  },
  bad_body: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The body must be JSON with a non-empty items array.',
  },
  too_many_items: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'At most 50 lookups per request.',
  },
  missing_api_key: {
    status: 401,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: false,
    message: 'Send your API key in the x-api-key header or as Authorization: Bearer <key>.',
  },
  invalid_api_key: {
    status: 401,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: false,
    message: 'The API key is not known.',
  },
  credits_exhausted: {
    status: 402,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: true,
    message: "The account's lookups are used up. Cached properties still work.",
  },
  spend_limit_reached: {
    status: 402,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: true,
    message: 'The monthly spend limit is reached. Cached properties still work.',
  },
  not_found: {
    status: 404,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'No property matches.',
  },
  route_not_found: {
    status: 404,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'No such route.',
  },
  method_not_allowed: {
    status: 405,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'Method not allowed on this route.',
  },
  not_acceptable: {
    status: 406,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'None of the media types in the accept header can be answered.',
  },
  request_timeout: {
    status: 408,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The request was not received in time.',
  },
  unsupported_media_type: {
    status: 415,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The content-type of the body is not supported here.',
  },
  expectation_failed: {
    status: 417,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The expect header can only be 100-continue.',
  },
  rate_limited: {
    status: 429,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: false,
    message: 'Too many requests. Retry after the retry-after header.',
    retryAfter: 1,
  },
  headers_too_large: {
    status: 431,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The request headers are too large.',
  },
  address_ambiguous: {
    status: 409,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The closest match for the address is a different home.',
  },
  idempotency_key_in_use: {
    status: 409,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message:
      'A request with this Idempotency-Key is still running. Retry after the retry-after header to get its answer.',
    retryAfter: 5,
  },
  idempotency_key_reused: {
    status: 422,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'This Idempotency-Key was used with another request. Use a new key for a new request.',
  },
  unprocessable_input: {
    status: 422,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The data provider rejected the input. Check the link or address.',
  },
  internal: {
    status: 500,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: false,
    message: "Failure on the service's side. Safe to retry with backoff.",
  },
  upstream_error: {
    status: 502,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The data provider failed. Safe to retry with backoff.',
  },
  upstream_unreachable: {
    status: 502,
    stale: true,
    fallback: true,
    transient: false,
    askerOnly: false,
    message: 'The data provider could not be reached. Safe to retry with backoff.',
  },
  upstream_bad_response: {
    status: 502,
    stale: true,
    fallback: true,
    transient: false,
    askerOnly: false,
    message: 'The data provider answered with something unreadable. Safe to retry with backoff.',
  },
  upstream_run_failed: {
    status: 502,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "The data provider's run failed. Safe to retry with backoff.",
  },
  upstream_blocked: {
    status: 502,
    stale: true,
    fallback: true,
    transient: false,
    askerOnly: false,
    message: 'The listing site refused the read (bot wall) and no fallback could read it. Safe to retry later.',
  },
  upstream_cost_cap: {
    status: 502,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The lookup was stopped at its upstream cost limit. Retry at most once, with status set if known.',
  },
  upstream_busy: {
    status: 503,
    stale: true,
    fallback: true,
    transient: true,
    askerOnly: false,
    message: 'The data provider is busy. Retry after the retry-after header.',
    retryAfter: 30,
  },
  no_api_keys: {
    status: 503,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are unavailable on the service's side.",
  },
  live_lookups_disabled: {
    status: 503,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are disabled on the service's side. Cached properties still work.",
  },
  upstream_auth: {
    status: 503,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are unavailable on the service's side.",
  },
  upstream_quota: {
    status: 503,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are unavailable on the service's side.",
  },
  upstream_actor_missing: {
    status: 503,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are unavailable on the service's side.",
  },
  upstream_misconfigured: {
    status: 503,
    stale: true,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: "Live lookups are unavailable on the service's side.",
  },
  live_lookups_capped: {
    status: 503,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: true,
    message: 'The daily live-lookup limit is reached; new lookups resume at 00:00 UTC. Cached properties still work.',
  },
  store_unavailable: {
    status: 503,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: false,
    message: 'The usage and cache store is unreachable. Retry in 30 seconds.',
    retryAfter: 30,
  },
  upstream_timeout: {
    status: 504,
    stale: true,
    fallback: true,
    transient: false,
    askerOnly: false,
    message: 'The live lookup took too long. Safe to retry.',
  },
  batch_deadline: {
    status: 504,
    stale: false,
    fallback: false,
    transient: true,
    askerOnly: true,
    message: 'The item could not finish within the batch time limit. Retry it.',
  },
  query_too_complex: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'The operation is over a shape limit (depth, aliases, tokens, directives or introspection).',
    only: 'graphql',
    graphqlHttp: 'request',
  },
  persisted_query_not_found: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'No persisted operation has this hash.',
    only: 'graphql',
    graphqlHttp: 'request',
  },
  missing_query: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'Send a query, or extensions.persistedQuery.sha256Hash.',
    only: 'graphql',
    graphqlHttp: 'response',
  },
  operation_not_supported: {
    status: 400,
    stale: false,
    fallback: false,
    transient: false,
    askerOnly: false,
    message: 'Subscriptions are not served: send a query or a mutation.',
    only: 'graphql',
    graphqlHttp: 'request',
  },
} as const satisfies Record<string, ErrorEntry>;

/** What the service does on meeting a code: one column each, a value on every row. */
interface ErrorRules {
  /**
   * The home's last good record may answer instead, as a stale answer (lookup/live.ts, standIn): the site
   * blocked the read, it or the fallback provider failed, could not be reached, was busy or unavailable,
   * or the read ran out of time. Never an answer about the home (not_found, …) or about the asker.
   */
  stale: boolean;
  /**
   * An own-collector failure the fallback provider may get past (collector/with-fallback.ts): it reads
   * through other networks and browsers. `upstream_busy` about this instance's own overload is not.
   */
  fallback: boolean;
  /**
   * A refusal a retry should run past (the key's rate window or API key, the store, an instance too busy,
   * an internal failure, items the batch deadline left unstarted): an answer showing it is not kept for
   * the retries of its Idempotency-Key (lookup/idempotency.ts).
   */
  transient: boolean;
  /**
   * About who asked (its deadline, its account's credits or limits), not the home: a lookup following
   * another request's read of the home does not share that read's failure, it reads anew (lookup/live.ts).
   */
  askerOnly: boolean;
}

export type ErrorRule = keyof ErrorRules;
export const ERROR_RULES = ['stale', 'fallback', 'transient', 'askerOnly'] as const satisfies readonly ErrorRule[];

interface ErrorEntry extends ErrorRules {
  status: number;
  message: string;
  retryAfter?: number;
  only?: 'graphql';
  graphqlHttp?: 'request' | 'response';
}

export type ErrorCode = keyof typeof ERROR_CODES;
/** The codes REST answers with: the whole table but GraphQL's own. */
export type RestErrorCode = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends { only: 'graphql' } ? never : C;
}[ErrorCode];
export type GraphqlOnlyCode = Exclude<ErrorCode, RestErrorCode>;
export const REST_ERROR_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
  (c): c is RestErrorCode => (ERROR_CODES[c] as ErrorEntry).only !== 'graphql',
);

/** Whether `code` (any string: a code from outside the table has no rule) has `rule` in the table. */
export const hasRule = (code: string, rule: ErrorRule): boolean =>
  Object.hasOwn(ERROR_CODES, code) && (ERROR_CODES[code as ErrorCode] as ErrorEntry)[rule];
/** The codes with `rule`, in the table's order. */
export const codesWith = (rule: ErrorRule): ErrorCode[] =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => hasRule(c, rule));

/** A failed read the last good record may answer for (the `stale` column). */
export const isStaleEligible = (code: string): boolean => hasRule(code, 'stale');
/** An own-collector failure the fallback provider may be tried for (the `fallback` column). */
export const isFallbackEligible = (code: string): boolean => hasRule(code, 'fallback');
/** A refusal a retry should run past, so never kept as an idempotent answer (the `transient` column). */
export const isTransient = (code: string): boolean => hasRule(code, 'transient');
/** A failure about who asked, not the home: not shared with the lookups following its read (the `askerOnly` column). */
export const isAskerOnly = (code: string): boolean => hasRule(code, 'askerOnly');

/** How a code sets the HTTP status of a GraphQL response, when the table says (see the top of this file). */
export const graphqlHttpOf = (code: ErrorCode): ErrorEntry['graphqlHttp'] =>
  (ERROR_CODES[code] as ErrorEntry).graphqlHttp;

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

export function instanceBusy(
  reason: InstanceBusyReason,
  opts: { message?: string; cause?: unknown } = {},
): LookupError {
  return new LookupError('upstream_busy', {
    message: opts.message ?? INSTANCE_BUSY[reason],
    details: { reason },
    retryAfter: 1,
    cause: opts.cause,
  });
}

export const isInstanceBusy = (e: unknown, reason: InstanceBusyReason): boolean =>
  isLookupError(e) && e.code === 'upstream_busy' && e.details?.reason === reason;

/** Anything thrown that is not a LookupError is an internal failure; its text never reaches a client. */
export function toLookupError(e: unknown): LookupError {
  return isLookupError(e) ? e : new LookupError('internal', { cause: e });
}

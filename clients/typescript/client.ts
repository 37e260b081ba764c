// A typed client of the REST contract v1: a thin wrapper on openapi-fetch over the types generated
// from the service's OpenAPI document (openapi-types.ts). Every method resolves with the typed
// answer or throws one of three errors: PortalApiError (the service's error envelope, with the spec's
// code), PortalHttpError (an answer without the envelope: a proxy's page, an empty body; no code is
// made up for it) or PortalNetworkError (no answer read at all, the fetch failure as its cause).
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi-types.js';

type Schemas = components['schemas'];
export type PortalProperty = Schemas['PortalProperty'];
export type LookupMeta = Schemas['LookupMeta'];
export type PropertyResponse = Schemas['PropertyResponse'];
export type BatchItem = Schemas['BatchItem'];
export type BatchResponse = Schemas['BatchResponse'];
export type BatchItemSuccess = Schemas['BatchItemSuccess'];
export type BatchItemFailure = Schemas['BatchItemFailure'];
export type BatchPreviewResponse = Schemas['BatchPreviewResponse'];
export type BatchPreviewItem = Schemas['BatchPreviewItem'];
export type AccountUsage = Schemas['AccountUsage'];
export type ErrorBody = Schemas['ErrorBody'];
/** One of the spec's error codes (section 7). */
export type ErrorCode = ErrorBody['code'];

type LookupQuery = NonNullable<paths['/v1/portal/property']['get']['parameters']['query']>;
/** Exactly one way to name the home. */
export type Locator = { url: string } | { zpid: string } | { address: string };
/** Everything the query takes beside the locator (status, raw, max_age, stale), as the OpenAPI declares it. */
export type LookupOptions = Omit<LookupQuery, 'url' | 'zpid' | 'address'>;
export type BatchOptions = Omit<Schemas['BatchRequest'], 'items'>;

/** An answer in the error envelope: the spec's code and message, the HTTP status, and any wait. */
export class PortalApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorBody['details'];
  /** Seconds from the retry-after header, when the service sent one. */
  readonly retryAfter: number | undefined;
  readonly requestId: string | null;

  constructor(body: ErrorBody, response: Response) {
    super(body.message);
    this.name = 'PortalApiError';
    this.code = body.code;
    this.status = response.status;
    this.details = body.details;
    const wait = Number(response.headers.get('retry-after'));
    this.retryAfter = response.headers.has('retry-after') && Number.isFinite(wait) ? wait : undefined;
    this.requestId = response.headers.get('x-request-id');
  }
}

/** An HTTP answer that is not the service's envelope (a proxy's 502 page, an empty 413): its status and body as text. */
export class PortalHttpError extends Error {
  readonly status: number;
  readonly body: string;
  readonly requestId: string | null;

  constructor(response: Response, body: string) {
    super(`HTTP ${response.status} without the service's error envelope`);
    this.name = 'PortalHttpError';
    this.status = response.status;
    this.body = body;
    this.requestId = response.headers.get('x-request-id');
  }
}

/** No answer was read (connection refused or reset, DNS, an abort, an unreadable body): the cause is fetch's error. */
export class PortalNetworkError extends Error {
  constructor(method: string, path: string, cause: unknown) {
    super(`${method} ${path}: no answer read (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = 'PortalNetworkError';
  }
}

export interface PortalClientOptions {
  /** The service's origin, e.g. http://127.0.0.1:4000 */
  baseUrl: string;
  apiKey: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

/** What openapi-fetch resolves with: the typed data, or the typed error body. */
type Outcome<T> = { data?: T; error?: unknown; response: Response };

function unwrap<T>({ data, error, response }: Outcome<T>): T {
  if (data !== undefined) return data;
  if (isEnvelope(error)) throw new PortalApiError(error.error, response);
  // openapi-fetch hands over the body parsed when it was JSON, as text otherwise, undefined when empty.
  throw new PortalHttpError(
    response,
    error === undefined ? '' : typeof error === 'string' ? error : JSON.stringify(error),
  );
}

/** openapi-fetch's call, its thrown failures (fetch's TypeError and the like) as PortalNetworkError. */
async function send<T>(method: string, path: string, call: () => Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call();
  } catch (e) {
    throw new PortalNetworkError(method, path, e);
  }
  return unwrap(outcome);
}

const isEnvelope = (e: unknown): e is { error: ErrorBody } =>
  typeof e === 'object' &&
  e !== null &&
  'error' in e &&
  typeof (e as { error: { code?: unknown } }).error?.code === 'string';

export class PortalClient {
  readonly api: Client<paths>;

  constructor(opts: PortalClientOptions) {
    this.api = createClient<paths>({
      baseUrl: opts.baseUrl,
      headers: { 'x-api-key': opts.apiKey },
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  /** One home (GET /v1/portal/property). */
  async property(locator: Locator, options: LookupOptions = {}): Promise<PropertyResponse> {
    return send('GET', '/v1/portal/property', () =>
      this.api.GET('/v1/portal/property', { params: { query: { ...locator, ...options } } }),
    );
  }

  /**
   * Up to 50 homes (POST /v1/portal/batch); a failed item is in its place, never thrown. With `idempotencyKey`
   * (the Idempotency-Key header), sending the same batch again with the same key is safe: it gets the first
   * answer back, billed once (docs/idempotency.md).
   */
  async batch(
    items: BatchItem[],
    options: BatchOptions = {},
    { idempotencyKey }: { idempotencyKey?: string } = {},
  ): Promise<BatchResponse> {
    const header = idempotencyKey === undefined ? {} : { params: { header: { 'Idempotency-Key': idempotencyKey } } };
    // The route's 200 is either shape (OpenAPI cannot tie a response to a parameter); without dry_run it is this one.
    const answer = await send('POST', '/v1/portal/batch', () =>
      this.api.POST('/v1/portal/batch', { ...header, body: { ...options, items } }),
    );
    return answer as BatchResponse;
  }

  /**
   * What the batch would cost now (POST /v1/portal/batch?dry_run=true): per item would_cost, and whether the
   * account could pay it (meta.affordable). Nothing is looked up, charged or held.
   */
  async batchPreview(items: BatchItem[], options: BatchOptions = {}): Promise<BatchPreviewResponse> {
    const answer = await send('POST', '/v1/portal/batch', () =>
      this.api.POST('/v1/portal/batch', { params: { query: { dry_run: true } }, body: { ...options, items } }),
    );
    return answer as BatchPreviewResponse;
  }

  /** The caller's plan and usage (GET /v1/account). */
  async usage(): Promise<AccountUsage> {
    return (await send('GET', '/v1/account', () => this.api.GET('/v1/account'))).data;
  }
}

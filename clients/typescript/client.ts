// A typed client of the REST contract v1: a thin wrapper on openapi-fetch over the types generated
// from the service's OpenAPI document (openapi-types.ts). Every operation of the document has its
// method: a home, a batch and its cost preview, lookup jobs (made, read, listed, cancelled, their
// results as NDJSON and their events as server-sent events, each an async iterator), watches, webhook
// deliveries (listed, redelivered) and the account's usage. Every method resolves with the typed answer or throws one of three errors:
// PortalApiError (the service's error envelope, with the spec's code), PortalHttpError (an answer
// without the envelope: a proxy's page, an empty body; no code is made up for it) or
// PortalNetworkError (no answer read at all, the fetch failure as its cause).
//
// Retries (RetryOptions): a 429 or 503 (or a keyed request's 409 idempotency_key_in_use) is sent again
// after the wait its retry-after asks for, a
// failed connection after an exponential backoff with jitter, within a bound of attempts and of the
// total wait; a POST is sent again only when it carries an Idempotency-Key (batches and jobs carry a
// new random one per call by default, the same on each of that call's attempts), so nothing is ever
// made or billed twice by a retry.
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
/** One result of a batch or of a job: a success or a failure, told apart by `ok`. */
export type BatchItemResult = BatchItemSuccess | BatchItemFailure;
export type BatchPreviewResponse = Schemas['BatchPreviewResponse'];
export type BatchPreviewItem = Schemas['BatchPreviewItem'];
export type AccountUsage = Schemas['AccountUsage'];
export type ServiceStatus = Schemas['ServiceStatus'];
export type JobRequest = Schemas['JobRequest'];
export type JobView = Schemas['JobView'];
export type JobCreated = Schemas['JobCreated']['data'];
export type JobListResponse = Schemas['JobListResponse'];
export type WatchRequest = Schemas['WatchRequest'];
export type Watch = Schemas['Watch'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryListResponse = Schemas['WebhookDeliveryListResponse'];
export type HistoryResponse = Schemas['HistoryResponse'];
export type AccountUsageDays = Schemas['AccountUsageDays'];
export type AccountChargesResponse = Schemas['AccountChargesResponse'];
export type ChargeLine = Schemas['ChargeLine'];
export type ErrorBody = Schemas['ErrorBody'];
/** One of the spec's error codes (section 7). */
export type ErrorCode = ErrorBody['code'];

type LookupQuery = NonNullable<paths['/v1/portal/property']['get']['parameters']['query']>;
/** Exactly one way to name the home. */
export type Locator = { url: string } | { zpid: string } | { address: string };
/** Everything the query takes beside the locator (status, raw, max_age, stale), as the OpenAPI declares it. */
export type LookupOptions = Omit<LookupQuery, 'url' | 'zpid' | 'address'>;
export type BatchOptions = Omit<Schemas['BatchRequest'], 'items'>;
/** A job's options beside its items: webhook_url, status, raw, max_age, stale. */
export type JobOptions = Omit<JobRequest, 'items'>;
/** A watch: exactly one locator, with its webhook_url and interval_hours. */
export type WatchOptions = Omit<WatchRequest, 'url' | 'zpid' | 'address'>;

/** One event of a job's stream: `progress` with the job now and on each change, then `done` with the final job. */
export interface JobEvent {
  event: 'progress' | 'done';
  job: JobView;
}

/** Idempotency-Key of a POST: a key of the caller's own, or none (a new random one is sent when omitted). */
export interface IdempotencyOptions {
  /**
   * The Idempotency-Key header. Omitted: a random UUID made for this call and reused on its retries.
   * `false`: no key (the POST is then never retried; a second send could make a second job or bill again).
   */
  idempotencyKey?: string | false;
}

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

/** What a retry is about to do, for logs and tests. */
export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The status answered (429, 503, or 409 to a keyed request), or undefined when no answer was read. */
  status: number | undefined;
  /** The wait before the next attempt, ms: retry-after's, else the backoff's. */
  waitMs: number;
}

export interface RetryOptions {
  /** Attempts in all, the first one included; 1 never retries. Default 4. */
  attempts?: number;
  /**
   * The most time spent waiting between one call's attempts, all waits together, ms. Default 20,000: a longer
   * retry-after (a store outage's 30 s, the rest of a rate window) is the caller's, thrown at once.
   */
  maxTotalWaitMs?: number;
  /** The backoff's first wait after a failed connection (or a 429/503 without retry-after), ms. Default 250. */
  baseDelayMs?: number;
  /** The backoff's longest single wait, ms. Default 8,000. */
  maxDelayMs?: number;
  /** Told of each retry before its wait. */
  onRetry?: (event: RetryEvent) => void;
}

export interface PortalClientOptions {
  /** The service's origin, e.g. http://127.0.0.1:4000 */
  baseUrl: string;
  apiKey: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** How 429/503 answers and failed connections are retried; `false`: never. */
  retry?: RetryOptions | false;
}

const DEFAULT_RETRY: Required<Omit<RetryOptions, 'onRetry'>> = {
  attempts: 4,
  maxTotalWaitMs: 20_000,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
};

/** retry-after as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The n-th backoff (n from 1): base × 2^(n-1), at most maxDelayMs, drawn between half of it and all of it. */
export function backoffMs(attempt: number, retry: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'> = {}): number {
  const base = retry.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const cap = retry.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const full = Math.min(cap, base * 2 ** (attempt - 1));
  return Math.round(full / 2 + Math.random() * (full / 2));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** A request sent twice does nothing more than once: a safe or idempotent method, or a POST with an Idempotency-Key. */
const isIdempotent = (request: Request): boolean =>
  SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');

/**
 * An answer worth waiting out: 429 and 503; and 409 with retry-after to a keyed request (the service's
 * idempotency_key_in_use: the first attempt under the key still runs, and a later one gets its answer).
 */
const retriedStatus = (request: Request, response: Response): boolean =>
  response.status === 429 ||
  response.status === 503 ||
  (response.status === 409 && request.headers.has('idempotency-key') && response.headers.has('retry-after'));

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * fetch with the retry rules: each attempt sends a copy of the request (the same headers, its Idempotency-Key
 * included, and body); `idempotent` marks a POST that changes nothing (the cost preview).
 */
function retryingFetch(
  base: typeof fetch,
  retry: RetryOptions | false,
  idempotent = false,
): (request: Request) => Promise<Response> {
  if (retry === false) return (request) => base(request);
  const policy = { ...DEFAULT_RETRY, ...retry };
  return async (request) => {
    const retryable = idempotent || isIdempotent(request);
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const last = !retryable || attempt >= policy.attempts;
      let wait: number;
      let status: number | undefined;
      try {
        const response = await base(last ? request : request.clone());
        if (last || !retriedStatus(request, response)) return response;
        status = response.status;
        wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt, policy);
        // A wait past the bound: the answer is the caller's (its PortalApiError carries retryAfter).
        if (waited + wait > policy.maxTotalWaitMs) return response;
        await response.body?.cancel();
      } catch (e) {
        if (last || request.signal.aborted) throw e;
        wait = backoffMs(attempt, policy);
        if (waited + wait > policy.maxTotalWaitMs) throw e;
      }
      policy.onRetry?.({ method: request.method, url: request.url, attempt, status, waitMs: wait });
      await sleep(wait, request.signal);
      waited += wait;
    }
  };
}

/** What openapi-fetch resolves with: the typed data, or the typed error body. */
type Outcome<T> = { data?: T; error?: unknown; response: Response };

function unwrap<T>({ data, error, response }: Outcome<T>): T {
  if (response.ok) return data as T;
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

/** The lines of a byte stream, as they arrive (the last one without its newline too). */
async function* lines(stream: ReadableStream<Uint8Array>, method: string, path: string): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw new PortalNetworkError(method, path, e);
      }
      if (chunk.done) break;
      rest += decoder.decode(chunk.value, { stream: true });
      let end = rest.indexOf('\n');
      while (end !== -1) {
        yield rest.slice(0, end).replace(/\r$/, '');
        rest = rest.slice(end + 1);
        end = rest.indexOf('\n');
      }
    }
    rest += decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    // The caller stopped early (break) or the stream ended: the connection is let go either way.
    await reader.cancel().catch(() => {});
  }
}

/** A key for one call: the caller's, none (false), or a new random UUID. */
const keyOf = (idempotencyKey: string | false | undefined): { 'Idempotency-Key': string } | undefined =>
  idempotencyKey === false ? undefined : { 'Idempotency-Key': idempotencyKey ?? crypto.randomUUID() };

export class PortalClient {
  /** The typed openapi-fetch client underneath (with the retry rules). */
  readonly api: Client<paths>;
  /** fetch for the requests that change nothing though sent by POST (the cost preview). */
  private readonly idempotentFetch: (request: Request) => Promise<Response>;

  constructor(opts: PortalClientOptions) {
    // The global fetch is looked up per call (a test or an instrumentation may replace it later).
    const base: typeof fetch = opts.fetch ?? ((input, init) => fetch(input, init));
    const retry = opts.retry ?? {};
    this.idempotentFetch = retryingFetch(base, retry, true);
    this.api = createClient<paths>({
      baseUrl: opts.baseUrl,
      headers: { 'x-api-key': opts.apiKey },
      fetch: retryingFetch(base, retry),
    });
  }

  /** One home (GET /v1/portal/property). */
  async property(locator: Locator, options: LookupOptions = {}): Promise<PropertyResponse> {
    return send('GET', '/v1/portal/property', () =>
      this.api.GET('/v1/portal/property', { params: { query: { ...locator, ...options } } }),
    );
  }

  /**
   * Up to 50 homes (POST /v1/portal/batch); a failed item is in its place, never thrown. It carries an
   * Idempotency-Key (a new random one unless given), so a retry of it is answered the first answer, billed
   * once (docs/idempotency.md); the same key given again with the same batch is the same answer.
   */
  async batch(items: BatchItem[], options: BatchOptions = {}, idem: IdempotencyOptions = {}): Promise<BatchResponse> {
    const header = keyOf(idem.idempotencyKey);
    // The route's 200 is either shape (OpenAPI cannot tie a response to a parameter); without dry_run it is this one.
    const answer = await send('POST', '/v1/portal/batch', () =>
      this.api.POST('/v1/portal/batch', { params: header ? { header } : {}, body: { ...options, items } }),
    );
    return answer as BatchResponse;
  }

  /**
   * What the batch would cost now (POST /v1/portal/batch?dry_run=true): per item would_cost, and whether the
   * account could pay it (meta.affordable). Nothing is looked up, charged or held, so it is retried as a GET is.
   */
  async batchPreview(items: BatchItem[], options: BatchOptions = {}): Promise<BatchPreviewResponse> {
    const answer = await send('POST', '/v1/portal/batch', () =>
      this.api.POST('/v1/portal/batch', {
        params: { query: { dry_run: true } },
        body: { ...options, items },
        fetch: this.idempotentFetch,
      }),
    );
    return answer as BatchPreviewResponse;
  }

  /**
   * A lookup job of 1 to 10,000 homes (POST /v1/portal/jobs, as JSON): 202 with its id; it runs in the
   * background. It carries an Idempotency-Key (a new random one unless given): a retry never makes a second job.
   */
  async createJob(items: BatchItem[], options: JobOptions = {}, idem: IdempotencyOptions = {}): Promise<JobCreated> {
    const header = keyOf(idem.idempotencyKey);
    const answer = await send('POST', '/v1/portal/jobs', () =>
      this.api.POST('/v1/portal/jobs', { params: header ? { header } : {}, body: { ...options, items } }),
    );
    return answer.data;
  }

  /** A job as it is now (GET /v1/portal/jobs/{id}). */
  async job(id: string): Promise<JobView> {
    const path = '/v1/portal/jobs/{id}';
    return (await send('GET', path, () => this.api.GET(path, { params: { path: { id } } }))).data;
  }

  /** One page of the account's jobs, newest first (GET /v1/portal/jobs): `next_cursor` asks for the next. */
  async listJobs(page: { limit?: number; cursor?: string } = {}): Promise<JobListResponse> {
    return send('GET', '/v1/portal/jobs', () => this.api.GET('/v1/portal/jobs', { params: { query: page } }));
  }

  /** Every job of the account, newest first, a page at a time. */
  async *jobs(pageSize = 100): AsyncGenerator<JobView> {
    let cursor: string | null = null;
    do {
      const page: JobListResponse = await this.listJobs({ limit: pageSize, ...(cursor ? { cursor } : {}) });
      yield* page.data;
      cursor = page.meta.next_cursor;
    } while (cursor);
  }

  /** Cancels what has not started (DELETE /v1/portal/jobs/{id}): the job, cancelled. */
  async cancelJob(id: string): Promise<JobView> {
    const path = '/v1/portal/jobs/{id}';
    return (await send('DELETE', path, () => this.api.DELETE(path, { params: { path: { id } } }))).data;
  }

  /**
   * The job's results so far, in item order, one batch-shaped result at a time as the NDJSON arrives
   * (GET /v1/portal/jobs/{id}/results): a 10,000-item job is never held whole.
   */
  async *jobResults(id: string): AsyncGenerator<BatchItemResult> {
    const path = '/v1/portal/jobs/{id}/results';
    const body = await send('GET', path, () =>
      this.api.GET(path, { params: { path: { id }, query: { format: 'ndjson' } }, parseAs: 'stream' }),
    );
    if (!body) return;
    for await (const line of lines(body, 'GET', path)) {
      if (line.trim() !== '') yield JSON.parse(line) as BatchItemResult;
    }
  }

  /**
   * The job's events as they come (GET /v1/portal/jobs/{id}/events, server-sent events): `progress` with the
   * job now and on each change, then `done` with the final job, and the iterator ends. Heartbeats are skipped.
   */
  async *jobEvents(id: string): AsyncGenerator<JobEvent> {
    const path = '/v1/portal/jobs/{id}/events';
    const body = await send('GET', path, () => this.api.GET(path, { params: { path: { id } }, parseAs: 'stream' }));
    if (!body) return;
    let event = 'message';
    let data: string[] = [];
    for await (const line of lines(body, 'GET', path)) {
      if (line === '') {
        if (data.length > 0 && (event === 'progress' || event === 'done')) {
          yield { event, job: JSON.parse(data.join('\n')) as JobView };
          if (event === 'done') return;
        }
        event = 'message';
        data = [];
      } else if (line.startsWith(':')) {
        // a comment: the heartbeat
      } else {
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  }

  /** Follows the job's events to its end: the final job (completed, cancelled or failed). */
  async waitForJob(id: string): Promise<JobView> {
    let last: JobView | undefined;
    for await (const { event, job } of this.jobEvents(id)) {
      last = job;
      if (event === 'done') return job;
    }
    // The stream ended without done (a proxy cut it): the job as it is now.
    return last?.finished_at ? last : this.job(id);
  }

  /**
   * Watches a home (POST /v1/portal/watches): read live every interval_hours, a property.changed webhook when
   * it changes. The route takes no Idempotency-Key, so this POST is never retried.
   */
  async createWatch(locator: Locator, options: WatchOptions): Promise<Watch> {
    const answer = await send('POST', '/v1/portal/watches', () =>
      this.api.POST('/v1/portal/watches', { body: { ...locator, ...options } }),
    );
    return answer.data;
  }

  /** The account's watches (GET /v1/portal/watches). */
  async watches(): Promise<Watch[]> {
    return (await send('GET', '/v1/portal/watches', () => this.api.GET('/v1/portal/watches'))).data;
  }

  /** One watch (GET /v1/portal/watches/{id}). */
  async watch(id: string): Promise<Watch> {
    const path = '/v1/portal/watches/{id}';
    return (await send('GET', path, () => this.api.GET(path, { params: { path: { id } } }))).data;
  }

  /** Ends a watch (DELETE /v1/portal/watches/{id}, 204). */
  async deleteWatch(id: string): Promise<void> {
    const path = '/v1/portal/watches/{id}';
    await send('DELETE', path, () => this.api.DELETE(path, { params: { path: { id } } }));
  }

  /** One page of the account's webhook delivery attempts, newest first (GET /v1/webhooks/deliveries). */
  async listWebhookDeliveries(page: { limit?: number; cursor?: string } = {}): Promise<WebhookDeliveryListResponse> {
    return send('GET', '/v1/webhooks/deliveries', () =>
      this.api.GET('/v1/webhooks/deliveries', { params: { query: page } }),
    );
  }

  /** Every delivery attempt the account has (the last 7 days), newest first, a page at a time. */
  async *webhookDeliveries(pageSize = 100): AsyncGenerator<WebhookDelivery> {
    let cursor: string | null = null;
    do {
      const page: WebhookDeliveryListResponse = await this.listWebhookDeliveries({
        limit: pageSize,
        ...(cursor ? { cursor } : {}),
      });
      yield* page.data;
      cursor = page.meta.next_cursor;
    } while (cursor);
  }

  /**
   * Sends an attempt's event again, now, with the same webhook-id (POST /v1/webhooks/deliveries/{id}/redeliver,
   * 202): the attempt whose event is sent. Never retried (the route takes no Idempotency-Key).
   */
  async redeliverWebhook(id: string): Promise<WebhookDelivery> {
    const path = '/v1/webhooks/deliveries/{id}/redeliver';
    return (await send('POST', path, () => this.api.POST(path, { params: { path: { id } } }))).data;
  }

  /** The caller's plan and usage (GET /v1/account). */
  async usage(): Promise<AccountUsage> {
    return (await send('GET', '/v1/account', () => this.api.GET('/v1/account'))).data;
  }

  /** One page of a home's history, newest first (GET /v1/portal/property/history): free, from the service's records. */
  async propertyHistory(locator: Locator, page: { limit?: number; cursor?: string } = {}): Promise<HistoryResponse> {
    return send('GET', '/v1/portal/property/history', () =>
      this.api.GET('/v1/portal/property/history', { params: { query: { ...locator, ...page } } }),
    );
  }

  /** The account's lookups per UTC day (GET /v1/account/usage; dates YYYY-MM-DD, inclusive). */
  async usageDays(range: { from?: string; to?: string } = {}): Promise<AccountUsageDays> {
    return send('GET', '/v1/account/usage', () => this.api.GET('/v1/account/usage', { params: { query: range } }));
  }

  /** One page of the account's charges, newest first (GET /v1/account/charges). */
  async listCharges(page: { limit?: number; cursor?: string } = {}): Promise<AccountChargesResponse> {
    // The JSON form (the route also answers CSV with ?format=csv, which this method never asks for).
    const answer = await send('GET', '/v1/account/charges', () =>
      this.api.GET('/v1/account/charges', { params: { query: page } }),
    );
    return answer as AccountChargesResponse;
  }

  /** Every charge the account's ledger keeps, newest first, a page at a time. */
  async *charges(pageSize = 100): AsyncGenerator<ChargeLine> {
    let cursor: string | null = null;
    do {
      const page: AccountChargesResponse = await this.listCharges({ limit: pageSize, ...(cursor ? { cursor } : {}) });
      yield* page.data;
      cursor = page.meta.next_cursor;
    } while (cursor);
  }

  /** The service's own public figures, last hour and last 24 hours (GET /v1/status; needs no key). */
  async status(): Promise<ServiceStatus> {
    return (await send('GET', '/v1/status', () => this.api.GET('/v1/status'))).data;
  }
}

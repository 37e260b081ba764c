// The fallback provider: a scraping-actor platform run through its HTTP API, the common
// "run an actor synchronously and get its dataset items" shape (Apify's public API):
//   POST {url}/v2/acts/{owner~name}/run-sync-get-dataset-items?timeout=<s>&maxTotalChargeUsd=<usd>
//   Authorization: Bearer <token>; body = the actor's input.
// Success is 201 (any 2xx) with a JSON array of dataset items carrying the listing site's own field
// names; failures are `{ error: { type, message } }` with the platform's status code. The run id comes
// from an `x-apify-run-id` header when present, else from a run-failed message "(run ID: …)".
import got, { type Got, type Response } from 'got';
import { LookupError, homePathForZpid, publicLink, type ErrorCode, type StatusHint } from '../contract/index.js';
import { compareAddress, partsFromStreetLine } from './address-match.js';
import { mapBuilding, mapProperty } from './mapping/index.js';
import { DEFAULT_MAX_BYTES, boundedTimeouts, retryAfterSeconds, transportError, type PhaseTimeouts } from './site-client.js';
import type { AddressQuery, Collected, Collector, ReadContext, ReadTarget, ResolvedAddress } from './types.js';

export interface FallbackProviderOptions {
  /** Platform base URL, e.g. https://api.apify.com (config.fallback.url). */
  url: string;
  token: string;
  /** `owner/name` or `owner~name`. */
  actor: string;
  /** Per-lookup cost cap, USD. */
  maxCostUsd: number;
  /** Reported in meta.source.provider. */
  name: string;
  /** Bound of one run, end to end (config.lookupTimeoutMs). */
  timeoutMs: number;
  clock: () => Date;
  phases?: Partial<PhaseTimeouts>;
  maxBytes?: number;
}

type Item = Record<string, unknown>;

const PROPERTY_STATUS: Record<StatusHint, string> = { for_sale: 'FOR_SALE', sold: 'RECENTLY_SOLD', for_rent: 'FOR_RENT' };

// Platform error types (apify-docs ErrorType enum) whose meaning does not follow from the status code.
const INPUT_ERRORS = new Set([
  'invalid-input', 'invalid-input-schema', 'input-json-not-object', 'input-json-invalid-characters', 'input-json-too-long',
  'run-input-body-not-valid-json', 'schema-validation', 'schema-validation-error', 'schema-validation-failed',
]);
const QUOTA_ERRORS = new Set([
  'not-enough-usage-to-run-paid-actor', 'actor-memory-limit-exceeded', 'limit-reached', 'apify-plan-required-to-use-paid-actor',
  'actor-is-not-rented', 'user-has-no-subscription',
]);
const CAP_CONFIG_ERRORS = new Set(['max-total-charge-usd-below-minimum', 'max-total-charge-usd-must-be-greater-than-zero']);
const COST_CAP_TEXT = /(charge|cost|spend)\w*[\s_-]*(usd[\s_-]*)?(limit|cap|max)|max\w*[\s_-]*total[\s_-]*charge/i;

export class FallbackProvider implements Collector {
  private readonly http: Got;
  private readonly endpoint: string;

  constructor(private readonly opts: FallbackProviderOptions) {
    const actorId = opts.actor.replace('/', '~');
    this.endpoint = `${opts.url.replace(/\/+$/, '')}/v2/acts/${encodeURIComponent(actorId)}/run-sync-get-dataset-items`;
    // The platform holds the headers until the run ends: the response and idle phases get the whole budget.
    this.http = got.extend({
      timeout: boundedTimeouts(opts.timeoutMs, { response: opts.timeoutMs, socket: opts.timeoutMs, ...opts.phases }),
      retry: { limit: 0 }, // a re-sent POST would start, and pay for, a second run
      throwHttpErrors: false,
      followRedirect: false,
      headers: { authorization: `Bearer ${opts.token}`, accept: 'application/json' },
    });
  }

  get name(): string {
    return this.opts.name;
  }

  async read(target: ReadTarget, ctx: ReadContext): Promise<Collected> {
    const { items, runId } = await this.run({ startUrls: [{ url: publicLink(target.path) }] }, ctx);
    const item = (target.zpid && items.find((i) => idOf(i) === target.zpid)) || items[0]!;
    return this.collect(item, runId, ctx);
  }

  /** Takes the address directly: one paid run finds and reads the home. */
  async resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress> {
    const { items, runId } = await this.run({ addresses: [address.input.trim()] }, ctx);
    const item = items[0]!;
    const collected = this.collect(item, runId, ctx);
    const zpid = collected.zpid;
    if (!zpid) throw new LookupError('upstream_bad_response', { details: { reason: 'item_without_zpid' } });
    // The actor resolves addresses loosely: hold its answer to the same rule as the own resolver.
    const p = collected.property;
    const found = p.streetAddress ? partsFromStreetLine(p.streetAddress, p.city, p.state, p.zipcode) : null;
    const mismatch = found ? compareAddress(address.parts, found) : [];
    if (mismatch.length > 0) {
      throw new LookupError('address_ambiguous', {
        details: { candidate: { detailUrl: publicLink(homePathForZpid(zpid)), address: p.address ?? p.streetAddress, zpid }, mismatch },
      });
    }
    return { zpid, path: homePathForZpid(zpid), collected };
  }

  private collect(item: Item, runId: string | null, ctx: ReadContext): Collected {
    const scrapedAt = this.opts.clock().toISOString();
    const building = Array.isArray(item.floorPlans) || Array.isArray(item.ungroupedUnits);
    const property = building ? mapBuilding(item, { now: ctx.now, scrapedAt }) : mapProperty(item, null, { scrapedAt });
    return {
      property,
      raw: item,
      zpid: idOf(item) ?? property.zpid,
      source: {
        provider: this.opts.name,
        note: "Read by the fallback provider's scraping actor.",
        actor: this.opts.actor,
        run_id: runId,
      },
    };
  }

  /** One synchronous run; resolves with at least one usable item or throws a spec code. */
  private async run(input: Item, ctx: ReadContext): Promise<{ items: Item[]; runId: string | null }> {
    const maxBytes = this.opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const tooLarge = new AbortController();
    const request = this.http.post(this.endpoint, {
      searchParams: {
        // The platform stops the run when we would stop waiting, so an abandoned run does not keep spending.
        timeout: Math.max(1, Math.floor(this.opts.timeoutMs / 1000)),
        // Enforced by the platform; also in the input for actors that read it from there.
        maxTotalChargeUsd: this.opts.maxCostUsd,
      },
      json: {
        ...input,
        ...(ctx.status ? { propertyStatus: PROPERTY_STATUS[ctx.status] } : {}),
        maxTotalChargeUsd: this.opts.maxCostUsd,
      },
      signal: AbortSignal.any([ctx.signal, tooLarge.signal]),
    });
    request.on('downloadProgress', ({ transferred, total }) => {
      if (transferred > maxBytes || (total ?? 0) > maxBytes) tooLarge.abort();
    });
    let res: Response<string>;
    try {
      res = await request;
    } catch (e) {
      if (tooLarge.signal.aborted && !ctx.signal.aborted) {
        throw new LookupError('upstream_bad_response', { details: { reason: 'too_large', maxBytes }, cause: e });
      }
      throw transportError(e, ctx.signal);
    }
    const headerRunId = header(res, 'x-apify-run-id');
    if (res.statusCode < 200 || res.statusCode >= 300) throw platformError(res, headerRunId);

    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch (e) {
      throw new LookupError('upstream_bad_response', { details: { reason: 'not_json' }, cause: e });
    }
    if (!Array.isArray(body)) throw new LookupError('upstream_bad_response', { details: { reason: 'items_not_an_array' } });

    const runStatus = header(res, 'x-apify-run-status')?.toUpperCase();
    const statusMessage = header(res, 'x-apify-run-status-message') ?? '';
    const all = body.filter((i): i is Item => !!i && typeof i === 'object' && !Array.isArray(i));
    const usable = all.filter((i) => i.error === undefined || i.error === null);
    if (usable.length > 0) return { items: usable, runId: headerRunId };

    const details = { run_id: headerRunId, ...(runStatus ? { run_status: runStatus } : {}) };
    if (COST_CAP_TEXT.test(statusMessage)) throw new LookupError('upstream_cost_cap', { details: { ...details, reason: statusMessage } });
    if (runStatus === 'TIMED-OUT') throw new LookupError('upstream_timeout', { details: { ...details, reason: 'run_timed_out' } });
    if (runStatus === 'FAILED' || runStatus === 'ABORTED') throw new LookupError('upstream_run_failed', { details });
    const failed = all[0];
    if (failed) throw itemError(failed.error, details);
    throw new LookupError('not_found', { details: { ...details, reason: 'provider_found_nothing' } });
  }
}

const idOf = (item: Item): string | null => {
  const z = item.zpid;
  return (typeof z === 'number' || typeof z === 'string') && /^\d+$/.test(String(z)) ? String(z) : null;
};

const header = (res: Response<string>, name: string): string | null => {
  const v = res.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
};

/** An item's `error` field (the actor's own report) as a spec code. */
function itemError(error: unknown, details: Record<string, unknown>): LookupError {
  const text = typeof error === 'string' ? error : JSON.stringify(error);
  const withText = { ...details, provider_error: text.slice(0, 300) };
  const code: ErrorCode = COST_CAP_TEXT.test(text)
    ? 'upstream_cost_cap'
    : /not[\s_-]?found|no (results?|propert|home|listing)|does not exist|\b404\b/i.test(text)
      ? 'not_found'
      : /invalid|unsupported|malformed|not a valid/i.test(text)
        ? 'unprocessable_input'
        : 'upstream_run_failed';
  return new LookupError(code, { details: code === 'not_found' ? { ...withText, reason: 'provider_found_nothing' } : withText });
}

/** A platform error answer (`{ error: { type, message } }`) as a spec code. */
function platformError(res: Response<string>, headerRunId: string | null): LookupError {
  const status = res.statusCode;
  let type = '';
  let message = '';
  try {
    const e = (JSON.parse(res.body) as { error?: { type?: unknown; message?: unknown } }).error;
    type = typeof e?.type === 'string' ? e.type : '';
    message = typeof e?.message === 'string' ? e.message : '';
  } catch {
    // A non-JSON error page still has a status to go by.
  }
  const runId = headerRunId ?? /run ID:\s*([\w-]+)/i.exec(message)?.[1] ?? null;
  const details = { status, ...(type ? { provider_error: type } : {}), ...(runId ? { run_id: runId } : {}) };
  const make = (code: ErrorCode, extra: Record<string, unknown> = {}, retryAfter?: number) =>
    new LookupError(code, { details: { ...details, ...extra }, ...(retryAfter === undefined ? {} : { retryAfter }) });

  if (INPUT_ERRORS.has(type)) return make('unprocessable_input');
  if (QUOTA_ERRORS.has(type)) return make('upstream_quota');
  if (CAP_CONFIG_ERRORS.has(type)) return make('upstream_misconfigured');
  if (COST_CAP_TEXT.test(message)) return make('upstream_cost_cap');
  if (type === 'run-timeout-exceeded' || status === 408) return make('upstream_timeout', { reason: 'run_timeout' });
  if (type === 'run-failed' || type === 'actor-run-failed') {
    return /status:\s*TIMED-OUT/i.test(message) ? make('upstream_timeout', { reason: 'run_timed_out' }) : make('upstream_run_failed');
  }
  if (status === 429 || type === 'rate-limit-exceeded' || type === 'concurrent-runs-limit-exceeded') {
    return make('upstream_busy', {}, retryAfterSeconds(res.headers['retry-after'], 30));
  }
  if (status === 402) return make('upstream_quota');
  if (status === 401 || status === 403) return make('upstream_auth');
  if (status === 404) return make('upstream_actor_missing');
  return make('upstream_error');
}

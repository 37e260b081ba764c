// The actor platform's HTTP API as the platform's own clients use it (research: fallback-platform.md §1.3):
// start a run, wait for it, read its dataset, abort it; read the actor's pricing. Bearer token, JSON.
// A 429 is the only refusal sent again (after a doubling pause, three times): the platform started
// nothing. Reads of a run are also sent again after a 5xx; a start never is, since a second start
// would pay for a second run.
import { setTimeout as pause } from 'node:timers/promises';
import got, { type Got, type Method } from 'got';
import type { Logger } from 'pino';
import { LookupError } from '../../contract/index.js';
import { isObject, type Json } from '../mapping/values.js';
import { DEFAULT_MAX_BYTES, transportError } from '../http-errors.js';
import { isRateLimit, needsOperator, platformError, readFailure, type PlatformFailure } from './errors.js';

/** What the platform reports about a run (the Run object's fields this client reads). */
export interface Run {
  id: string;
  status: string;
  statusMessage: string | null;
  /** What the run cost so far, USD. */
  usageTotalUsd: number | null;
  /** The cap the run was started with. */
  maxTotalChargeUsd: number | null;
  /**
   * The cheapest event the actor charges per result, USD (pay-per-event actors): events charged once
   * per run, like the platform's `apify-actor-start`, are left out, since a run that has started
   * never pays them again.
   */
  resultEventUsd: number | null;
}

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['SUCCEEDED', 'FAILED', 'TIMED-OUT', 'ABORTED']);

export interface PlatformClientOptions {
  /** Base URL, e.g. https://api.apify.com. */
  url: string;
  token: string;
  /** `owner/name`, `owner~name` or the actor's id. */
  actor: string;
  /** Largest body accepted. */
  maxBytes?: number;
  /** First pause after a 429; doubled each time (the platform recommends starting at 500 ms). */
  backoffMs?: number;
  logger?: Logger;
}

interface Call {
  method: Method;
  path: string;
  searchParams?: Record<string, string | number>;
  json?: unknown;
  signal?: AbortSignal;
  /** What a 404 is about. */
  about: 'actor' | 'run';
  /** Reads may be sent again after a 5xx. */
  read: boolean;
  timeoutMs: number;
}

const REQUEST_MS = 30_000;
/** How many times a 429 (or a 5xx on a read) is sent again. */
const RETRIES = 3;
/** Events the platform charges once per run (apify-docs, pay per event: the synthetic start event). */
const ONCE_PER_RUN_EVENTS: ReadonlySet<string> = new Set(['apify-actor-start']);
/** The longest wait the platform honours on one request. */
export const MAX_WAIT_SECONDS = 60;

export class PlatformClient {
  private readonly http: Got;
  private readonly actorPath: string;

  constructor(private readonly opts: PlatformClientOptions) {
    this.actorPath = `/v2/acts/${encodeURIComponent(opts.actor.replace('/', '~'))}`;
    this.http = got.extend({
      prefixUrl: opts.url.replace(/\/+$/, ''),
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      headers: { authorization: `Bearer ${opts.token}`, accept: 'application/json' },
    });
  }

  /** The actor's record (`GET /v2/acts/{actor}`), pricing included. */
  async actor(): Promise<Json> {
    return data(
      await this.send({ method: 'GET', path: this.actorPath, about: 'actor', read: true, timeoutMs: REQUEST_MS }),
    );
  }

  /**
   * Starts a run and returns at once (`waitForFinish=0`), so the run id is known before any waiting.
   * Never cancelled by the caller: the platform may have created the run before the answer arrives,
   * and only the answer names it (so it can be aborted); its own request timeout bounds it.
   */
  async start(input: Json, params: { timeoutSecs: number; maxTotalChargeUsd: number }): Promise<Run> {
    const body = await this.send({
      method: 'POST',
      path: `${this.actorPath}/runs`,
      searchParams: { timeout: params.timeoutSecs, maxTotalChargeUsd: params.maxTotalChargeUsd, waitForFinish: 0 },
      json: input,
      about: 'actor',
      read: false,
      timeoutMs: REQUEST_MS,
    });
    return runOf(body);
  }

  /** The run once it has finished, or after `waitSecs` (at most 60), whichever comes first. */
  async wait(runId: string, waitSecs: number, signal: AbortSignal): Promise<Run> {
    const seconds = Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.ceil(waitSecs)));
    const body = await this.send({
      method: 'GET',
      path: `/v2/actor-runs/${encodeURIComponent(runId)}`,
      searchParams: { waitForFinish: seconds },
      signal,
      about: 'run',
      read: true,
      timeoutMs: seconds * 1000 + REQUEST_MS,
    });
    return runOf(body);
  }

  /** The run's dataset items. */
  async items(runId: string, signal: AbortSignal): Promise<unknown[]> {
    const body = await this.send({
      method: 'GET',
      path: `/v2/actor-runs/${encodeURIComponent(runId)}/dataset/items`,
      searchParams: { format: 'json', clean: 'true' },
      signal,
      about: 'run',
      read: true,
      timeoutMs: REQUEST_MS,
    });
    if (!Array.isArray(body))
      throw new LookupError('upstream_bad_response', { details: { reason: 'items_not_an_array', run_id: runId } });
    return body;
  }

  /** Stops a run (`POST /v2/actor-runs/{id}/abort`). */
  async abort(runId: string, timeoutMs: number): Promise<Run> {
    const body = await this.send({
      method: 'POST',
      path: `/v2/actor-runs/${encodeURIComponent(runId)}/abort`,
      about: 'run',
      read: false,
      timeoutMs,
    });
    return runOf(body);
  }

  private async send(call: Call): Promise<unknown> {
    const maxBytes = this.opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const signal = call.signal ?? new AbortController().signal;
    for (let attempt = 0; ; attempt += 1) {
      const tooLarge = new AbortController();
      const request = this.http(call.path.replace(/^\//, ''), {
        method: call.method,
        ...(call.searchParams ? { searchParams: call.searchParams } : {}),
        ...(call.json === undefined ? {} : { json: call.json }),
        timeout: { request: call.timeoutMs },
        signal: AbortSignal.any([signal, tooLarge.signal]),
      });
      request.on('downloadProgress', ({ transferred, total }) => {
        if (transferred > maxBytes || (total ?? 0) > maxBytes) tooLarge.abort();
      });
      let res;
      try {
        res = await request;
      } catch (e) {
        if (tooLarge.signal.aborted && !signal.aborted) {
          throw new LookupError('upstream_bad_response', { details: { reason: 'too_large', maxBytes }, cause: e });
        }
        throw transportError(e, signal);
      }
      if (res.statusCode >= 200 && res.statusCode < 300) {
        try {
          return JSON.parse(res.body) as unknown;
        } catch (e) {
          throw new LookupError('upstream_bad_response', { details: { reason: 'not_json' }, cause: e });
        }
      }
      const failure = readFailure(res.statusCode, res.body);
      const again = isRateLimit(failure) || (call.read && failure.status >= 500);
      if (!again || attempt >= RETRIES) {
        // At debug only: the warn line is UpstreamWarnings' (observability), once per cause per minute, with this refusal as its cause.
        if (needsOperator(failure))
          this.opts.logger?.debug({ platformError: failure, path: call.path }, 'the actor platform refused a request');
        throw platformError(failure, call.about);
      }
      try {
        await pause((this.opts.backoffMs ?? 500) * 2 ** attempt, undefined, { signal });
      } catch (e) {
        throw transportError(e, signal);
      }
    }
  }
}

const data = (body: unknown): Json => {
  const d = isObject(body) ? body.data : undefined;
  if (!isObject(d)) throw new LookupError('upstream_bad_response', { details: { reason: 'no_data_object' } });
  return d;
};

const numberOr = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The Run fields this client reads, from `{ data: Run }`. */
function runOf(body: unknown): Run {
  const r = data(body);
  if (typeof r.id !== 'string' || typeof r.status !== 'string')
    throw new LookupError('upstream_bad_response', { details: { reason: 'run_without_id_or_status' } });
  const options = isObject(r.options) ? r.options : {};
  const events =
    isObject(r.pricingInfo) &&
    isObject(r.pricingInfo.pricingPerEvent) &&
    isObject(r.pricingInfo.pricingPerEvent.actorChargeEvents)
      ? Object.entries(r.pricingInfo.pricingPerEvent.actorChargeEvents).filter(
          ([name]) => !ONCE_PER_RUN_EVENTS.has(name),
        )
      : [];
  const prices = events
    .map(([, e]) => (isObject(e) ? numberOr(e.eventPriceUsd) : null))
    .filter((p): p is number => p !== null && p > 0);
  return {
    id: r.id,
    status: r.status,
    statusMessage: typeof r.statusMessage === 'string' ? r.statusMessage : null,
    usageTotalUsd: numberOr(r.usageTotalUsd),
    maxTotalChargeUsd: numberOr(options.maxTotalChargeUsd),
    resultEventUsd: prices.length > 0 ? Math.min(...prices) : null,
  };
}

/** The actor's current minimum cost cap (`pricingInfos[…].minimalMaxTotalChargeUsd`), null when it sets none. */
export function minimumCapOf(actor: Json, now: Date): number | null {
  const infos = (Array.isArray(actor.pricingInfos) ? actor.pricingInfos : []).filter(isObject);
  const started = (i: Json) => (typeof i.startedAt === 'string' ? Date.parse(i.startedAt) : -Infinity);
  const current = infos
    .filter((i) => started(i) <= now.getTime())
    .sort((a, b) => started(a) - started(b))
    .at(-1);
  return current ? numberOr(current.minimalMaxTotalChargeUsd) : null;
}

/** Whether the run was stopped by its cost cap: what it spent leaves no room for one more result. */
export function stoppedAtCap(run: Run): boolean {
  if (run.usageTotalUsd === null || run.maxTotalChargeUsd === null) return false;
  const EPSILON = 1e-9;
  return run.resultEventUsd !== null
    ? run.usageTotalUsd + run.resultEventUsd > run.maxTotalChargeUsd + EPSILON
    : run.usageTotalUsd >= run.maxTotalChargeUsd - EPSILON;
}

// One lookup and a batch of them, as both faces call them.
import {
  itemOptions,
  toLookupError,
  type BatchItemResult,
  type ErrorBody,
  type LookupError,
  type BatchMeta,
  type BatchResult,
  type Locator,
  type LookupMeta,
  type LookupOptions,
  type PortalProperty,
} from '../contract/index.js';
import { LRUCache } from 'lru-cache';
import { addressMatchOf } from './address-match.js';
import { admitLookups, type Admission } from './admission.js';
import { ageSeconds } from './cache-policy.js';
import { noteRecordKey } from './history.js';
import { homeKeyOf } from './keys.js';
import { failedOutcome, foundOutcome } from './outcomes.js';
import { failureOf } from './failure.js';
import { loadHome } from './loader.js';
import type { Loaded, RequestContext } from './types.js';

/**
 * Records already parsed, by their JSON text (GraphQL reads fields; many requests read the same
 * homes). Shared read-only objects; records with raw are not kept (large, rarely asked for twice).
 */
const parsedRecords = new LRUCache<string, PortalProperty>({ max: 256 });
const MAX_PARSED_CHARS = 64 * 1024;

function parseRecord(json: string): PortalProperty {
  if (json.length > MAX_PARSED_CHARS) return JSON.parse(json) as PortalProperty;
  let record = parsedRecords.get(json);
  if (!record) {
    record = JSON.parse(json) as PortalProperty;
    parsedRecords.set(json, record);
  }
  return record;
}

/**
 * A home that was found: its record as JSON text, as the cache keeps it (REST sends it without
 * parsing), parsed only when its fields are read (GraphQL).
 */
export class LookupOutcome {
  #data: PortalProperty | undefined;

  constructor(
    readonly dataJson: string,
    readonly meta: LookupMeta,
    /** The key the home's entry is stored under (a ledger entry's cacheKey when it was billed). */
    readonly entryKey: string,
  ) {}

  get data(): PortalProperty {
    if (this.#data === undefined) {
      this.#data = parseRecord(this.dataJson);
      // Its history (GraphQL's PortalProperty.history) is the home's it was answered for.
      noteRecordKey(this.#data, this.entryKey);
    }
    return this.#data;
  }
}

/** A batch item that was found (BatchResult with ok: true). */
export class FoundItem extends LookupOutcome {
  readonly ok = true as const;

  constructor(
    readonly index: number,
    outcome: LookupOutcome,
  ) {
    super(outcome.dataJson, outcome.meta, outcome.entryKey);
  }
}

/** The record's JSON with `raw` added as its last field. */
const withRaw = (recordJson: string, rawJson: string): string =>
  recordJson === '{}' ? `{"raw":${rawJson}}` : `${recordJson.slice(0, -1)},"raw":${rawJson}}`;

export const RELEASE = 'v1';

/**
 * One home (spec 4.1), one unit of the key's rate window (drawn from `admission` when its operation
 * took its units as a whole). Throws a LookupError.
 */
export async function lookupOne(
  ctx: RequestContext,
  locator: Locator,
  options: LookupOptions,
  admission?: Admission,
): Promise<LookupOutcome> {
  await (admission ? admission.draw(1) : admitLookups(ctx, 1));
  return findOne(ctx, locator, options);
}

/**
 * A single lookup's input read by the contract's parsers (`parse`), or its coded error, recorded as
 * that lookup's outcome: invalid input counts in lookups_total like an invalid batch item does.
 */
export function parsedLookup<T>(ctx: RequestContext, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    failedOutcome(ctx, toLookupError(e).code);
    throw e;
  }
}

/** A lookup already admitted; its outcome recorded (metrics, the request's stats) once, here. */
async function findOne(ctx: RequestContext, locator: Locator, options: LookupOptions): Promise<LookupOutcome> {
  try {
    const outcome = await loadOne(ctx, locator, options);
    const { cached, credits, source, stale, sections } = outcome.meta;
    foundOutcome(ctx, { cached, credits, provider: source.provider, stale: stale === true, sections });
    return outcome;
  } catch (e) {
    failedOutcome(ctx, toLookupError(e).code);
    throw e;
  }
}

async function loadOne(ctx: RequestContext, locator: Locator, options: LookupOptions): Promise<LookupOutcome> {
  const started = performance.now();
  const loaded = await loadHome(ctx, { key: homeKeyOf(locator), locator, options });
  let { credits, cached } = loaded;
  // The same home twice in one request: read once, billed once; the later consumers see a hit.
  if (credits === 1) {
    if (ctx.reported.has(loaded.entryKey)) {
      credits = 0;
      cached = true;
    } else ctx.reported.add(loaded.entryKey);
  }
  const record = loaded.entry.record;
  // With raw=true the home was loaded with its raw record (live, or read together with the entry).
  const dataJson = options.raw ? withRaw(record, loaded.rawJson ?? 'null') : record;
  const meta: LookupMeta = {
    credits,
    cached,
    cache_key: loaded.cacheKey,
    fetched_at: loaded.entry.fetchedAt,
    source: loaded.entry.source,
    release: RELEASE,
    took_ms: Math.round(performance.now() - started),
    ...(loaded.warning && credits === 1 ? { warning: loaded.warning } : {}),
    sections: loaded.entry.sections,
    ...freshnessMeta(ctx, loaded, cached),
  };
  if (locator.kind === 'address') {
    // By the snapshot answered (entry key, read time): a repeat hit neither parses nor scores the record.
    const match = addressMatchOf(
      locator,
      `${loaded.entryKey}\u0000${loaded.entry.storedAt}\u0000${loaded.entry.fetchedAt}`,
      () => parseRecord(record),
    );
    if (match) meta.match = match;
  }
  return new LookupOutcome(dataJson, meta, loaded.entryKey);
}

/**
 * How old the record is, whether it stands in for a failed read, and what changed since the snapshot
 * it replaced (kept with the entry: every answer of one snapshot carries the same changes).
 */
function freshnessMeta(
  ctx: RequestContext,
  loaded: Loaded,
  cached: boolean,
): Pick<LookupMeta, 'age_seconds' | 'stale' | 'stale_reason' | 'changes' | 'previous_fetched_at'> {
  const { entry } = loaded;
  return {
    age_seconds: cached ? ageSeconds(entry, ctx.deps.clock().getTime()) : 0,
    ...(loaded.staleReason ? { stale: true, stale_reason: loaded.staleReason } : {}),
    ...(entry.changes ? { changes: entry.changes, previous_fetched_at: entry.previousFetchedAt! } : {}),
  };
}

/** One item's result: found (its record as JSON text), or its error. */
export type BatchItemOutcome = FoundItem | Extract<BatchResult, { ok: false }>;

/** An item's result as JSON (a batch's data item, a job's result line); a found home's record is spliced in as the cache keeps it. */
export const batchItemJson = (r: BatchItemOutcome, index = r.index, meta = r.ok ? r.meta : undefined): string =>
  r.ok
    ? `{"index":${index},"ok":true,"data":${r.dataJson},"meta":${JSON.stringify(meta)}}`
    : JSON.stringify({ ...r, index });

/** A batch under way: each item's result as it settles (in item order), and the totals once all have. */
export interface BatchRun {
  /** Never reject. */
  results: Promise<BatchItemOutcome>[];
  meta: Promise<BatchMeta>;
}

const lookupsIn = (items: readonly BatchItemResult[]): number => items.reduce((n, item) => n + (item.ok ? 1 : 0), 0);

/**
 * Starts up to 50 lookups (spec 4.2); one failed item never fails the batch. The batch takes one unit
 * of the key's rate window per valid item, all or none: refused, every such item fails rate_limited.
 */
export function startBatch(
  ctx: RequestContext,
  items: readonly BatchItemResult[],
  options: LookupOptions,
  admission?: Admission,
): BatchRun {
  const lookups = lookupsIn(items);
  return runBatch(ctx, items, options, admission ? admission.draw(lookups) : admitLookups(ctx, lookups));
}

function runBatch(
  ctx: RequestContext,
  items: readonly BatchItemResult[],
  options: LookupOptions,
  admitted: Promise<void>,
): BatchRun {
  const started = performance.now();
  ctx.deps.metrics.batchSize.observe(items.length);
  // Settled as a value, so a refusal no item waits for (every item invalid) is never unhandled.
  const refusal = admitted.then(
    () => null,
    (e: unknown) => e,
  );
  const results = items.map(async (item, index): Promise<BatchItemOutcome> => {
    if (!item.ok) {
      failedOutcome(ctx, item.error.code);
      return { index, ok: false, error: item.error.toBody() };
    }
    try {
      const refused = await refusal;
      if (refused) throw refused;
      return new FoundItem(index, await findOne(ctx, item.locator, itemOptions(item, options)));
    } catch (e) {
      return { index, ok: false, error: itemError(failureOf(e, ctx.logger, 'batch item failed', { index })) };
    }
  });
  const meta = Promise.all(results).then((data): BatchMeta => {
    const ok = data.filter((r): r is FoundItem => r.ok);
    return {
      count: data.length,
      succeeded: ok.length,
      failed: data.length - ok.length,
      cache_hits: ok.filter((r) => r.meta.cached).length,
      credits: ok.reduce((n, r) => n + r.meta.credits, 0),
      took_ms: Math.round(performance.now() - started),
    };
  });
  return { results, meta };
}

/** A failed item's error. With no response header per item, a wait goes in `details.retry_after` (seconds). */
function itemError(err: LookupError): ErrorBody {
  const body = err.toBody();
  const wait = err.retryAfterSeconds;
  return wait === undefined ? body : { ...body, details: { ...body.details, retry_after: wait } };
}

/** A whole batch, once every item has settled. */
export async function lookupBatch(
  ctx: RequestContext,
  items: readonly BatchItemResult[],
  options: LookupOptions,
): Promise<{ data: BatchItemOutcome[]; meta: BatchMeta }> {
  // Refused here, the whole request is refused (REST: 429), not each item. Counted as a refused GraphQL
  // batch is: its size, its valid items rate_limited (admitLookups), its invalid ones by their own code.
  try {
    await admitLookups(ctx, lookupsIn(items));
  } catch (e) {
    ctx.deps.metrics.batchSize.observe(items.length);
    for (const item of items) if (!item.ok) failedOutcome(ctx, item.error.code);
    throw e;
  }
  const run = runBatch(ctx, items, options, Promise.resolve());
  return { data: await Promise.all(run.results), meta: await run.meta };
}

// A home's history (docs/history.md): each successful live read adds one event to the home's timeline,
// written here where the read's record is cached (live.ts, never on a hit), and read back newest first,
// from the service's own records only: no live read, no credit, one unit of the key's rate window.
import {
  LookupError,
  type HistoryEvent,
  type HistoryEventBody,
  type HistoryPageRequest,
  type Locator,
  type PortalProperty,
} from '../contract/index.js';
import type { CacheEntry } from '../store/index.js';
import { admitLookups, type Admission } from './admission.js';
import { startingValues, unreadFields } from './changes.js';
import { homeKeyOf, isDirectKey, zpidKey } from './keys.js';
import type { RequestContext } from './types.js';

/** A page of a home's timeline, newest first. */
export interface HistoryPage {
  /** The key the home's entry and history are kept under (meta.cache_key of its lookup by zpid). */
  cacheKey: string;
  events: HistoryEvent[];
  /** The last event's id when older ones remain; null: no more. */
  nextCursor: string | null;
}

/**
 * The event a live read adds: its entry as cached, with what changed since the snapshot it replaced
 * (meta.changes), or, when it replaced none, the record's starting values.
 */
export function historyEventOf(entry: CacheEntry, property: PortalProperty): HistoryEventBody {
  return {
    read_at: new Date(entry.storedAt).toISOString(),
    fetched_at: entry.fetchedAt,
    provider: entry.source.provider,
    fallback: entry.source.provider !== 'self_hosted',
    initial: entry.changes === undefined,
    changes: entry.changes ?? startingValues(property, unreadFields(entry.sections)),
  };
}

/**
 * Adds the read's event to the timeline of the home cached under `entryKey`. A history is a record
 * of reads, never a reason to fail one: a failed write is logged, and the home is served without it.
 */
export async function recordRead(
  ctx: RequestContext,
  entryKey: string,
  entry: CacheEntry,
  property: PortalProperty,
): Promise<void> {
  await ctx.deps.store
    .appendHistory(entryKey, JSON.stringify(historyEventOf(entry, property)))
    .catch((err: unknown) =>
      ctx.logger.warn({ err, entryKey }, 'history event not written; the home is served without it'),
    );
}

/**
 * The home a locator names, as the service's own records know it: a zpid (or a home link) is its key;
 * an address or a building link is followed through its alias to the home's key (or holds the entry
 * itself, a home read with no zpid). Nothing is read live: an unknown one has no history (not_found).
 */
async function knownHomeKey(ctx: RequestContext, locator: Locator): Promise<string> {
  const key = homeKeyOf(locator);
  if (isDirectKey(key)) return key;
  const [target] = await ctx.deps.store.getAliases([key]);
  return target ?? key;
}

const noHistory = (cacheKey: string | null): LookupError =>
  new LookupError('not_found', {
    message:
      'This service has no history of that home: it has not read it live within its history retention, or (an address or a building link) it does not know which home it names now. Look the home up first.',
    ...(cacheKey === null ? {} : { details: { cache_key: cacheKey } }),
  });

/** One page of the timeline kept under `cacheKey`; an empty first page is not_found. */
async function pageOf(ctx: RequestContext, cacheKey: string, page: HistoryPageRequest): Promise<HistoryPage> {
  const stored = await ctx.deps.store.readHistory(cacheKey, page.limit + 1, page.cursor);
  if (stored.length === 0 && page.cursor === null) throw noHistory(cacheKey);
  const events = stored
    .slice(0, page.limit)
    .map(({ id, event }) => ({ id, ...(JSON.parse(event) as HistoryEventBody) }));
  return { cacheKey, events, nextCursor: stored.length > page.limit ? events.at(-1)!.id : null };
}

/**
 * The history of the home `locator` names (GET /v1/portal/property/history, GraphQL's propertyHistory,
 * MCP's property_history): one unit of the key's rate window (drawn from `admission` when the operation
 * took its units as a whole), then the service's own records only.
 */
export async function homeHistory(
  ctx: RequestContext,
  locator: Locator,
  page: HistoryPageRequest,
  admission?: Admission,
): Promise<HistoryPage> {
  await (admission ? admission.draw(1) : admitLookups(ctx, 1));
  return pageOf(ctx, await knownHomeKey(ctx, locator), page);
}

/** The keys of records a lookup answered (LookupOutcome.data): a record's history is its home's. */
const recordKeys = new WeakMap<object, string>();

/** Remembers the key of the home `record` was answered for (a building's record is kept under its link's key). */
export function noteRecordKey(record: object, entryKey: string): void {
  recordKeys.set(record, entryKey);
}

/**
 * The history of the home a record stands for (GraphQL's PortalProperty.history): the key it was
 * answered under, else its zpid's. One unit of the key's rate window, as homeHistory.
 */
export async function recordHistory(
  ctx: RequestContext,
  record: Pick<PortalProperty, 'zpid'>,
  page: HistoryPageRequest,
  admission?: Admission,
): Promise<HistoryPage> {
  await (admission ? admission.draw(1) : admitLookups(ctx, 1));
  const key = recordKeys.get(record) ?? (record.zpid ? zpidKey(record.zpid) : null);
  if (key === null) throw noHistory(null);
  return pageOf(ctx, key, page);
}

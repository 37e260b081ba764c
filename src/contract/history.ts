// A home's history in the contract (docs/history.md): one event per successful live read of the home,
// newest first, paged by a cursor. Declared once as TypeBox schemas (the OpenAPI document's
// HistoryEvent and HistoryResponse, GraphQL's HistoryEvent and PropertyHistory, the MCP tool's answer),
// with the readers of its page arguments both faces call (REST's limit and cursor, GraphQL's first and after).
import { Type, type Static } from '@sinclair/typebox';
import { LookupError } from './errors.js';
import { LOCATOR_KEYS } from './inputs.js';
import { FieldChange } from './schema.js';
import { parseLocator, type Locator } from './validate.js';

/** Events per page of GET /v1/portal/property/history (GraphQL: first): at most, and when not given. */
export const MAX_HISTORY_PAGE = 100;
export const DEFAULT_HISTORY_PAGE = 20;

/** One event of a home's timeline: a live read of it, which source served it, and what it changed. */
export const HistoryEvent = Type.Object(
  {
    id: Type.String({
      description: 'The event id: increasing with time within a home; pass it as cursor for the events before it',
    }),
    read_at: Type.String({
      format: 'date-time',
      description: 'When this service read the home live (its clock; meta.age_seconds counts from it)',
    }),
    fetched_at: Type.String({
      format: 'date-time',
      description:
        "The read's meta.fetched_at: when the data was collected (a fallback provider's own collection time can be earlier)",
    }),
    provider: Type.String({
      description:
        "Who served the read: self_hosted (this service's own collector), or the fallback provider's name (meta.source.provider)",
    }),
    fallback: Type.Boolean({
      description:
        'True when the fallback provider served the read instead of the own collector (meta.source.provider is not self_hosted)',
    }),
    initial: Type.Boolean({
      description:
        'True when the read had no earlier snapshot of the home to compare with (its first read, or the earlier one no longer kept): changes then list the starting values, each from null',
    }),
    changes: Type.Array(Type.Ref(FieldChange), {
      description:
        "What changed since the read before (the read's meta.changes: price, homeStatus, estimate, rentEstimate, monthlyHoaFee, photoCount, a daysOnPortal that went down, each new priceHistory event); empty when nothing did. With initial: every field's starting value (from null), and each priceHistory event",
    }),
  },
  {
    $id: 'HistoryEvent',
    description: "A successful live read of a home, in the home's timeline (cache hits add none)",
  },
);
export type HistoryEvent = Static<typeof HistoryEvent>;
/** An event as the store keeps it: its id is the store's. */
export type HistoryEventBody = Omit<HistoryEvent, 'id'>;

export const HistoryResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(HistoryEvent), { description: "The home's events, newest first" }),
    meta: Type.Object({
      cache_key: Type.String({
        description: 'The key of the home the locator names (`zpid:<zpid>`, as meta.cache_key of its lookup)',
      }),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as cursor for the next (older) page; null: no more',
      }),
      took_ms: Type.Integer({ description: 'Milliseconds taken' }),
    }),
  },
  {
    $id: 'HistoryResponse',
    description:
      "A page of a home's timeline, read from this service's own records: no live read, no credit, one unit of the key's rate window",
  },
);

export const HISTORY_SCHEMAS = [HistoryEvent, HistoryResponse] as const;

/** The page asked for: its size, and the id of the last event of the page before (null: the newest first). */
export interface HistoryPageRequest {
  limit: number;
  cursor: string | null;
}

const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** An event id's form (`<ms>-<seq>`): any other text is no cursor of ours. */
const EVENT_ID = /^\d{1,16}-\d{1,16}$/;

/** A history cursor as sent (REST's cursor, GraphQL's after): null when absent; one not of an event id's form is bad_param. */
export function historyCursor(value: unknown, param: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !EVENT_ID.test(value)) throw bad(param, 'must be the cursor of an earlier page');
  return value;
}

/** A page size (REST's limit as text, GraphQL's first as a number): a whole number from 1 to MAX_HISTORY_PAGE. */
export function historyLimit(value: unknown, param: string): number {
  if (value === undefined || value === null) return DEFAULT_HISTORY_PAGE;
  const n = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_HISTORY_PAGE)
    throw bad(param, `must be a whole number from 1 to ${MAX_HISTORY_PAGE}`);
  return n;
}

const HISTORY_QUERY_KEYS: readonly string[] = [...LOCATOR_KEYS, 'limit', 'cursor'];

/** GET /v1/portal/property/history's query string: one locator (as the lookup's), limit and cursor. */
export function parseHistoryQuery(query: Record<string, unknown>): { locator: Locator; page: HistoryPageRequest } {
  for (const [k, v] of Object.entries(query)) {
    if (!HISTORY_QUERY_KEYS.includes(k)) throw bad(k, `unknown parameter (expected ${HISTORY_QUERY_KEYS.join(', ')})`);
    if (Array.isArray(v)) throw bad(k, 'sent more than once');
  }
  const page = { limit: historyLimit(query.limit, 'limit'), cursor: historyCursor(query.cursor, 'cursor') };
  return { locator: parseLocator(query), page };
}

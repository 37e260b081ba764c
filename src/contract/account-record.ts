// The account's own record (docs/accounts.md#the-accounts-own-record): its lookups by UTC day
// (GET /v1/account/usage, Query.account.usage) and its charges, newest first (GET /v1/account/charges,
// Query.account.charges), with the parameters every face reads the same way: the dates, the page size, the
// cursor. Reading the record is free: no credit, no unit of the rate window.
import { Type, type Static } from '@sinclair/typebox';
import { LookupError } from './errors.js';

/** The longest range of days one read covers (from and to included). */
export const MAX_USAGE_DAYS = 93;
export const DEFAULT_CHARGES_PAGE = 50;
export const MAX_CHARGES_PAGE = 100;

/** The columns of GET /v1/account/charges?format=csv, in order. */
export const CHARGE_CSV_COLUMNS = [
  'at',
  'request_id',
  'cache_key',
  'source',
  'job_id',
  'watch_id',
  'kind',
  'credits',
] as const;

const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** A UTC date YYYY-MM-DD that exists, as ms since the epoch; else bad_param naming `param`. */
function dayMs(value: string, param: string): number {
  const m = DAY.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw bad(param, 'must be a UTC date YYYY-MM-DD');
  return ms;
}

/**
 * The days of a usage read, oldest first, `from` and `to` included. By default the current UTC month up to
 * today; `from` alone runs to today, `to` alone from the first of its month. Refused with bad_param naming
 * the parameter: a date that is not YYYY-MM-DD or does not exist, from after to, more than MAX_USAGE_DAYS days.
 */
export function usageDays(from: string | undefined | null, to: string | undefined | null, now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = from === undefined || from === null ? null : dayMs(from, 'from');
  const last = to === undefined || to === null ? today : dayMs(to, 'to');
  const first = start ?? Date.UTC(new Date(last).getUTCFullYear(), new Date(last).getUTCMonth(), 1);
  if (first > last) throw bad('from', 'must not be after to');
  const count = (last - first) / DAY_MS + 1;
  if (count > MAX_USAGE_DAYS) throw bad('to', `the range covers ${count} days, at most ${MAX_USAGE_DAYS}`);
  return Array.from({ length: count }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
}

/** A page size of the charges: 1 to MAX_CHARGES_PAGE (a string from a query, a number from GraphQL or MCP). */
export function chargesLimit(value: unknown, param: string): number {
  if (value === undefined || value === null) return DEFAULT_CHARGES_PAGE;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,4}$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CHARGES_PAGE)
    throw bad(param, `must be a whole number from 1 to ${MAX_CHARGES_PAGE}`);
  return n;
}

const CHARGE_ID = /^\d{1,16}-\d{1,16}$/;

/** The cursor of the page after the one ending at charge `id`. */
export const chargesCursor = (id: string): string => Buffer.from(`c1:${id}`).toString('base64url');

/** The charge id a cursor names (null: none, the newest page); a cursor this service did not give is bad_param. */
export function chargesCursorId(cursor: string | undefined | null, param: string): string | null {
  if (cursor === undefined || cursor === null) return null;
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = text.startsWith('c1:') ? text.slice(3) : '';
  if (!CHARGE_ID.test(id) || chargesCursor(id) !== cursor) throw bad(param, 'must be the cursor of an earlier page');
  return id;
}

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const count = (description: string) => Type.Integer({ minimum: 0, description });

export const UsageDay = Type.Object(
  {
    day: Type.String({ format: 'date', description: 'The UTC day, YYYY-MM-DD' }),
    lookups: count('Lookups that day, whatever their outcome: live_reads + cache_hits + stale + failed'),
    live_reads: count('Homes read live from the listing site or the fallback provider'),
    cache_hits: count('Homes answered from the cache'),
    stale: count('Stale answers: the live read failed and the last good record stood in (free)'),
    failed: count('Lookups that failed (never charged)'),
    credits: count("Credits charged that day: the day's lines of the ledger (GET /v1/account/charges)"),
  },
  { $id: 'UsageDay', description: "One UTC day of the account's lookups" },
);
export type UsageDay = Static<typeof UsageDay>;

export const AccountUsageDays = Type.Object(
  {
    data: Type.Object({
      from: Type.String({ format: 'date', description: 'The first day, UTC' }),
      to: Type.String({ format: 'date', description: 'The last day, UTC (included)' }),
      days: Type.Array(Type.Ref(UsageDay), {
        description: 'Every day of the range, oldest first (days without lookups too)',
      }),
    }),
    meta: Type.Object({ took_ms: Type.Integer({ description: 'Milliseconds taken' }) }),
  },
  { $id: 'AccountUsageDays' },
);

export const ChargeLine = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'When the charge was recorded' }),
    request_id: Type.String({
      description:
        "The request that made it: the x-request-id of its answer when the service chose it (a client's own x-request-id is not recorded), `job:JOB_ID:CHUNK` for a job, `watch:WATCH_ID:CHECK` for a watch",
    }),
    cache_key: Type.String({ description: "The home's cache key (meta.cache_key of the lookup)" }),
    source: Type.Union([Type.Union([Type.Literal('self_hosted'), Type.Literal('fallback')]), Type.Null()], {
      description:
        'What read the home: the own collector or the fallback provider (null on charges older than this field)',
    }),
    job_id: nullableString('The job whose lookup it was, if a job made it'),
    watch_id: nullableString('The watch whose check it was, if a watch made it'),
    kind: Type.Union([Type.Literal('included'), Type.Literal('overage')], {
      description: 'Included in the plan, or billed past it at the overage rate',
    }),
    credits: Type.Integer({ description: 'Always 1: one line per credit charged' }),
  },
  { $id: 'ChargeLine', description: 'One charge of the ledger: one credit, one live read' },
);
export type ChargeLine = Static<typeof ChargeLine>;

export const AccountChargesResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(ChargeLine), { description: "The account's charges, newest first" }),
    meta: Type.Object({
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as cursor for the next (older) page; null: no more',
      }),
      took_ms: Type.Integer({ description: 'Milliseconds taken' }),
    }),
  },
  { $id: 'AccountChargesResponse' },
);

export const ACCOUNT_RECORD_SCHEMAS = [UsageDay, AccountUsageDays, ChargeLine, AccountChargesResponse] as const;

/** A ledger entry as its charge line. */
export function chargeLine(e: {
  at: string;
  requestId: string;
  cacheKey: string;
  kind: 'included' | 'overage';
  source?: 'self_hosted' | 'fallback';
}): ChargeLine {
  const job = /^job:([^:]+):\d+$/.exec(e.requestId);
  const watch = /^watch:([^:]+):\d+$/.exec(e.requestId);
  return {
    at: e.at,
    request_id: e.requestId,
    cache_key: e.cacheKey,
    source: e.source ?? null,
    job_id: job ? job[1]! : null,
    watch_id: watch ? watch[1]! : null,
    kind: e.kind,
    credits: 1,
  };
}

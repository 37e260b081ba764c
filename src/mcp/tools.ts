// The MCP tools: lookup_property, lookup_properties, property_history, account_usage, account_charges,
// webhook_deliveries, service_status. Each parses its arguments with the contract's validator and calls the
// core as REST does (lookupOne, lookupBatch, homeHistory, accountUsage, accountDays, accountCharges; the
// background's delivery log, the public figures), so
// billing, cache and error codes are the same; a LookupError becomes an MCP tool error (isError)
// carrying the spec's code and message.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { accountCharges, accountDays, accountUsage } from '../accounts/index.js';
import {
  chargesCursorId,
  chargesLimit,
  DEFAULT_CHARGES_PAGE,
  MAX_CHARGES_PAGE,
  MAX_USAGE_DAYS,
  usageDays,
} from '../contract/account-record.js';
import {
  BATCH_QUERY_FIELDS,
  BatchItem,
  BatchRequest,
  DEFAULT_HISTORY_PAGE,
  historyCursor,
  historyLimit,
  humanMs,
  LOCATOR_FIELDS,
  LookupError,
  MAX_BATCH_ITEMS,
  MAX_HISTORY_PAGE,
  OPTION_FIELDS,
  parseBatchBody,
  parseDryRun,
  parseLocator,
  parseLookupOptions,
  type AccountUsage,
  type HistoryEvent,
  type LookupMeta,
  type PortalProperty,
} from '../contract/index.js';
import {
  DEFAULT_DELIVERIES_PAGE,
  deliveryCursor,
  deliveryPageSize,
  MAX_DELIVERIES_PAGE,
  WEBHOOK_DELIVERIES_KEEP_DAYS,
} from '../contract/webhook-deliveries.js';
import type { Background } from '../background.js';
import type { Config } from '../config.js';
import {
  failureOf,
  homeHistory,
  lookupBatch,
  lookupOne,
  parsedLookup,
  previewBatch,
  type BatchItemOutcome,
  type CoreDeps,
  type RequestContext,
} from '../lookup/index.js';
import type { ErrorLog } from '../lookup/failure.js';

/** What a tool call needs from its face: the core's request context, opened for this one call. */
export type OpenContext = (opts: { signal: AbortSignal; deadlineMs?: number }) => Promise<RequestContext>;

/**
 * What the tools read beside a call's request context: the public figures (service_status, which needs no
 * key and opens none) and the background's webhook delivery log (webhook_deliveries), read on use.
 */
export interface ToolParts {
  figures: Pick<CoreDeps['figures'], 'status'>;
  background: Pick<Background, 'webhooks'>;
}

/** The record fields an agent usually needs; `full: true` returns the whole record instead. */
export const COMPACT_FIELDS = [
  'zpid',
  'address',
  'price',
  'homeStatus',
  'beds',
  'baths',
  'livingArea',
  'estimate',
  'rentEstimate',
  'detailUrl',
] as const satisfies ReadonlyArray<keyof PortalProperty>;
// stale and stale_reason only on a stale answer: an agent must be able to tell the last good record from a fresh one.
const COMPACT_META = [
  'credits',
  'cached',
  'fetched_at',
  'warning',
  'stale',
  'stale_reason',
] as const satisfies ReadonlyArray<keyof LookupMeta>;
const COMPACT_EVENT = ['read_at', 'provider', 'initial', 'changes'] as const satisfies ReadonlyArray<
  keyof HistoryEvent
>;
const COMPACT_USAGE = ['plan', 'used', 'included', 'remaining', 'period_end'] as const satisfies ReadonlyArray<
  keyof AccountUsage
>;

const pick = <T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> => {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
};

// Every argument is declared as unknown at run time and typed only in the JSON Schema the agent
// reads (zod's meta): the contract's validator then checks it, so a wrong value or type answers
// the spec's bad_param / missing_param / bad_body as in REST, not the SDK's own validation text.
const described = (jsonSchema: object) => z.unknown().optional().meta(plainJsonSchema(jsonSchema));

/** A contract schema (TypeBox) as plain JSON Schema, without its component $id. */
function plainJsonSchema(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

// The input fields as the contract declares them once (contract/inputs.ts), as OpenAPI and GraphQL do.
const locatorArgs = {
  url: described(LOCATOR_FIELDS.url),
  zpid: described(LOCATOR_FIELDS.zpid),
  address: described(LOCATOR_FIELDS.address),
};
const statusArg = described(OPTION_FIELDS.status);
// The faces' freshness options (raw is not offered: `full` is this face's way to ask for more).
const freshnessArgs = { max_age: described(OPTION_FIELDS.max_age), stale: described(OPTION_FIELDS.stale) };
const itemsArg = described({
  type: 'array',
  minItems: 1,
  maxItems: MAX_BATCH_ITEMS,
  items: plainJsonSchema(BatchItem),
  description: BatchRequest.properties.items.description,
});
const dayArg = (description: string) => described({ type: 'string', format: 'date', description });

/** An argument that must be a string when given (a date, a cursor): anything else is bad_param. */
function stringArg(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new LookupError('bad_param', {
    message: `Invalid ${param}: must be a string.`,
    details: { param, reason: 'must be a string' },
  });
}

const fullArg = (what: string) =>
  described({
    type: 'boolean',
    default: false,
    description: `true: ${what}. Default: the fields an agent usually needs.`,
  });

/** `full` is this face's own option: a boolean, like `raw` in a JSON body. */
function parseFull(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  throw new LookupError('bad_param', {
    message: 'Invalid full: must be a boolean.',
    details: { param: 'full', reason: 'must be a boolean' },
  });
}

/** A tool's successful answer: the JSON as text (for any client) and as structured content. */
const answer = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

/**
 * A failure as an MCP tool error with the spec's error body; a wait (REST's retry-after header) goes
 * in details.retry_after, as for a failed batch item.
 */
export function toolError(e: unknown, log: ErrorLog): CallToolResult {
  const err = failureOf(e, log, 'internal error in an MCP tool');
  const body = err.toBody();
  const wait = err.retryAfterSeconds;
  const error = wait === undefined ? body : { ...body, details: { ...body.details, retry_after: wait } };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error }, isError: true };
}

/** A tools/call naming no tool of this server: bad_param on the call's `name`, the tools it has named. */
export function unknownTool(name: unknown, names: string[]): LookupError {
  const reason = `no such tool; the tools are ${names.join(', ')}`;
  return new LookupError('bad_param', { message: `Invalid name: ${reason}.`, details: { param: 'name', reason } });
}

const homeData = (data: PortalProperty, full: boolean) => (full ? data : pick(data, COMPACT_FIELDS));
const homeMeta = (meta: LookupMeta, full: boolean) => (full ? meta : pick(meta, COMPACT_META));

function batchItem(r: BatchItemOutcome, full: boolean): Record<string, unknown> {
  if (!r.ok) return r;
  return { index: r.index, ok: true, data: homeData(r.data, full), meta: homeMeta(r.meta, full) };
}

/** The tools, as McpServer.registerTool takes them; `open` gives each call its request context. */
export function toolDefinitions(
  open: OpenContext,
  config: Pick<Config, 'batchDeadlineMs' | 'cacheTtlMs'>,
  parts: ToolParts,
) {
  const { batchDeadlineMs, cacheTtlMs } = config;
  return {
    lookup_property: {
      config: {
        title: 'Look up one home',
        description:
          'One home by listing link, zpid or one-line US address (send exactly one). A live lookup costs 1 credit; ' +
          `a home read in the last ${humanMs(cacheTtlMs)} is served from the cache for 0 credits (meta.credits, meta.cached; max_age asks for a fresher one). ` +
          'When a live read is blocked, the last good record answers for 0 credits with meta.stale (stale: false for the error instead). ' +
          "Failures are tool errors with the API's error code (e.g. not_found, bad_param, credits_exhausted).",
        inputSchema: {
          ...locatorArgs,
          status: statusArg,
          ...freshnessArgs,
          full: fullArg('the whole record (history, schools, photos, agent) and the whole meta'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal });
          const { locator, options } = parsedLookup(ctx, () => ({
            locator: parseLocator({ url: args.url, zpid: args.zpid, address: args.address }),
            options: parseLookupOptions({ status: args.status, max_age: args.max_age, stale: args.stale }),
          }));
          const full = parseFull(args.full);
          const outcome = await lookupOne(ctx, locator, options);
          return answer({ data: homeData(outcome.data, full), meta: homeMeta(outcome.meta, full) });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    lookup_properties: {
      config: {
        title: 'Look up several homes',
        description:
          `Up to ${MAX_BATCH_ITEMS} homes at once. Each item is a link or an address as a string, or an object with one of url, zpid, address. ` +
          "One failed item never fails the others: each result has ok and either data or error (with the API's error code). " +
          'Credits: 1 per live lookup, 0 for cached homes; a home asked twice is billed once. max_age and stale as for lookup_property (an item object may carry its own max_age). ' +
          'dry_run: true answers what the batch would cost now (per item would_cost, meta.credits_estimate, meta.affordable) without looking anything up or charging.',
        inputSchema: {
          items: itemsArg,
          status: statusArg,
          ...freshnessArgs,
          dry_run: described(BATCH_QUERY_FIELDS.dry_run),
          full: fullArg('every result with the whole record and meta'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal, deadlineMs: batchDeadlineMs });
          const { items, options } = parseBatchBody({
            items: args.items,
            status: args.status,
            max_age: args.max_age,
            stale: args.stale,
          });
          const full = parseFull(args.full);
          // The cost preview as REST's ?dry_run=true answers it (nothing to make compact).
          if (parseDryRun(args.dry_run, false)) return answer({ ...(await previewBatch(ctx, items, options)) });
          const { data, meta } = await lookupBatch(ctx, items, options);
          return answer({ data: data.map((r) => batchItem(r, full)), meta });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    property_history: {
      config: {
        title: "A home's history",
        description:
          "The timeline of one home (by listing link, zpid or one-line US address; send exactly one), newest first: one event per successful live read of it, with its source (provider, fallback) and what changed since the read before (changes; the first read's event, initial, lists the starting values). " +
          "Read from this service's own records only: nothing is read live, free of credits. A home the service has not read (or an address it cannot map to a home it knows) is the tool error not_found. " +
          "Page with limit and cursor (meta.next_cursor). Each event's read_at, provider, initial and changes unless full: true.",
        inputSchema: {
          ...locatorArgs,
          limit: described({
            type: 'integer',
            minimum: 1,
            maximum: MAX_HISTORY_PAGE,
            description: `Events per page, 1 to ${MAX_HISTORY_PAGE}; ${DEFAULT_HISTORY_PAGE} when omitted`,
          }),
          cursor: described({ type: 'string', description: 'meta.next_cursor of the page before' }),
          full: fullArg('every field of each event (id, fetched_at, fallback too)'),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal });
          const locator = parseLocator({ url: args.url, zpid: args.zpid, address: args.address });
          const page = { limit: historyLimit(args.limit, 'limit'), cursor: historyCursor(args.cursor, 'cursor') };
          const full = parseFull(args.full);
          const { cacheKey, events, nextCursor } = await homeHistory(ctx, locator, page);
          const data = full ? events : events.map((e) => pick(e, COMPACT_EVENT));
          return answer({ data, meta: { cache_key: cacheKey, next_cursor: nextCursor } });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    account_usage: {
      config: {
        title: 'Account usage',
        description:
          "The caller's plan and usage: lookups used, included and remaining, and when the period ends. With `from` or " +
          `\`to\`, also its lookups by UTC day (at most ${MAX_USAGE_DAYS} days): outcomes and credits. Free of charge.`,
        inputSchema: {
          full: fullArg('also the key prefix and overage figures'),
          from: dayArg('With days: the first day, YYYY-MM-DD (UTC); default the first of the month of `to`'),
          to: dayArg('With days: the last day, YYYY-MM-DD (UTC), included; default today'),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal });
          const full = parseFull(args.full);
          const from = stringArg(args.from, 'from');
          const to = stringArg(args.to, 'to');
          const days = from === undefined && to === undefined ? null : usageDays(from, to, ctx.deps.clock());
          const usage = await accountUsage(ctx.deps.store, ctx.account, ctx.deps.clock());
          const data = full ? usage : pick(usage, COMPACT_USAGE);
          if (days === null) return answer({ data });
          const perDay = await accountDays(ctx.deps.store, ctx.deps.logger, ctx.account, days);
          return answer({ data: { ...data, days: perDay } });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    account_charges: {
      config: {
        title: 'Account charges',
        description:
          "The caller's charges, newest first: one line per credit (when, the request, the home's cache key, what read it, " +
          'the job that made it). Their count is `used`. Page with `cursor` (next_cursor). Free of charge.',
        inputSchema: {
          limit: described({
            type: 'integer',
            minimum: 1,
            maximum: MAX_CHARGES_PAGE,
            default: DEFAULT_CHARGES_PAGE,
            description: `Charges per page, 1 to ${MAX_CHARGES_PAGE}`,
          }),
          cursor: described({ type: 'string', description: 'next_cursor of the page before' }),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal });
          const limit = chargesLimit(args.limit, 'limit');
          const page = await accountCharges(
            ctx.deps.store,
            ctx.account,
            limit,
            chargesCursorId(stringArg(args.cursor, 'cursor'), 'cursor'),
          );
          return answer({ data: page.lines, meta: { next_cursor: page.nextCursor } });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    webhook_deliveries: {
      config: {
        title: 'Webhook deliveries',
        description:
          "The caller's webhook delivery attempts, newest first: each event's type and URL, " +
          "the receiver's status or the network error, how long it took, when the next attempt is due. " +
          `Kept ${WEBHOOK_DELIVERIES_KEEP_DAYS} days. Page with \`cursor\` (meta.next_cursor). Free of charge.`,
        inputSchema: {
          limit: described({
            type: 'integer',
            minimum: 1,
            maximum: MAX_DELIVERIES_PAGE,
            default: DEFAULT_DELIVERIES_PAGE,
            description: `Attempts per page, 1 to ${MAX_DELIVERIES_PAGE}`,
          }),
          cursor: described({ type: 'string', description: 'meta.next_cursor of the page before' }),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async handler(args: Record<string, unknown>, signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          const ctx = await open({ signal });
          const limit = deliveryPageSize(args.limit, 'limit');
          const cursor = deliveryCursor(stringArg(args.cursor, 'cursor'), 'cursor');
          const page = await parts.background.webhooks.deliveries(ctx.account, { limit, cursor });
          return answer({ data: page.deliveries, meta: { next_cursor: page.next_cursor } });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
    service_status: {
      config: {
        title: 'Service status',
        description:
          "The service's own figures for the last hour and the last 24 hours, across every instance: lookups answered, " +
          "where the found homes came from (own collector, fallback, cache, stale), live-read latency, the share of site requests walled, the breaker's state, " +
          'complete records and errors by code. Counts and shares only. No API key needed; free of charge.',
        inputSchema: {},
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async handler(_args: Record<string, unknown>, _signal: AbortSignal, log: ErrorLog): Promise<CallToolResult> {
        try {
          return answer({ data: await parts.figures.status() });
        } catch (e) {
          return toolError(e, log);
        }
      },
    },
  };
}

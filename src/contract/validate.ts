// Validation of every input the contract accepts (spec 4.1, 4.2, 2.7). One module for REST and GraphQL.
// It runs before any lookup, so an invalid request never costs anything. The keys, limits and patterns
// are the input schemas' (inputs.ts); the rules no schema can say (a link on the listing site, an
// address with a city) are here.
import { KindGuard } from '@sinclair/typebox';
import { ADDRESS_MAX, checkAddress, type AddressParts } from '../address/index.js';
import { LookupError } from './errors.js';
import {
  BATCH_BODY_KEYS,
  BATCH_QUERY_FIELDS,
  ITEM_OPTION_KEYS,
  LOCATOR_KEYS,
  LOOKUP_QUERY_KEYS,
  MAX_AGE_MAX,
  MAX_BATCH_ITEMS,
  OPTION_FIELDS,
  STATUS_HINTS,
  ZPID_PATTERN,
  type LocatorKey,
  type OptionKey,
  type StatusHint,
} from './inputs.js';
import { canonicalZpid, checkListingUrl, homePathForZpid } from './listing-url.js';

/** The largest request body a face accepts (REST's batch body, a GraphQL request), bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request body past its limit (MAX_BODY_BYTES unless the route has its own), as both faces refuse it. */
export const bodyTooLarge = (limitBytes = MAX_BODY_BYTES): LookupError => {
  const size = `${limitBytes / (1024 * 1024)} MB`;
  return new LookupError('bad_body', {
    message: `The request body is larger than ${size}.`,
    details: { reason: `body is larger than ${size}` },
  });
};
const ZPID = new RegExp(ZPID_PATTERN);
const oneOfLocators = LOCATOR_KEYS.join(', ');

export type Locator =
  | { kind: 'url'; input: string; target: 'home'; zpid: string; path: string }
  | { kind: 'url'; input: string; target: 'building'; buildingKey: string; path: string }
  | { kind: 'zpid'; input: string; zpid: string; path: string }
  | { kind: 'address'; input: string; normalized: string; parts: AddressParts };

export interface LookupOptions {
  status?: StatusHint;
  raw: boolean;
  /** Oldest cached record accepted, seconds; the cache lifetime when absent. */
  maxAge?: number;
  /** false: a failed live read is the error, never the last good record (absent: true). */
  stale?: boolean;
}

export type LocatorInput = { [K in LocatorKey]?: unknown };

const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** Exactly one of url, zpid, address (spec 4.1 rules 1-3). */
export function parseLocator(input: LocatorInput): Locator {
  const sent = LOCATOR_KEYS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (sent.length === 0) throw new LookupError('missing_param', { details: { expected: [...LOCATOR_KEYS] } });
  if (sent.length > 1) {
    throw new LookupError('bad_param', {
      message: `Send only one of ${oneOfLocators} (got ${sent.join(', ')}).`,
      details: { param: sent.join(','), reason: 'more than one locator' },
    });
  }
  const key = sent[0]!;
  const value = input[key];
  if (typeof value !== 'string') throw bad(key, 'must be a string');
  if (key === 'url') return parseUrl(value);
  if (key === 'zpid') return parseZpid(value);
  return parseAddress(value);
}

export function parseUrl(value: string): Locator {
  const link = checkListingUrl(value);
  if (!link.ok) throw bad('url', link.reason);
  return link.kind === 'home'
    ? { kind: 'url', input: value, target: 'home', zpid: link.zpid, path: link.path }
    : { kind: 'url', input: value, target: 'building', buildingKey: link.buildingKey, path: link.path };
}

export function parseZpid(value: string): Locator {
  if (!ZPID.test(value)) throw bad('zpid', 'must be 1 to 12 digits');
  const zpid = canonicalZpid(value);
  return { kind: 'zpid', input: value, zpid, path: homePathForZpid(zpid) };
}

export function parseAddress(value: string): Locator {
  // The schema's maxLength counts the text as sent; checkAddress counts it trimmed.
  if (value.length > ADDRESS_MAX) throw bad('address', `address must be at most ${ADDRESS_MAX} characters`);
  const a = checkAddress(value);
  if (!a.ok) throw bad('address', a.reason);
  return { kind: 'address', input: value, normalized: a.normalized, parts: a.parts };
}

export function parseStatus(value: unknown): StatusHint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (STATUS_HINTS as readonly string[]).includes(value)) return value as StatusHint;
  throw bad('status', `must be one of ${STATUS_HINTS.join(', ')}`);
}

/** `raw` in a JSON body or a GraphQL argument: a boolean. */
export function parseRaw(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  throw bad('raw', 'must be a boolean');
}

/** `max_age` in a JSON body or a GraphQL argument: whole seconds, 0 to MAX_AGE_MAX. */
export function parseMaxAge(value: unknown, param = 'max_age'): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_AGE_MAX) return value;
  throw bad(param, `must be a whole number of seconds from 0 to ${MAX_AGE_MAX}`);
}

/** `stale` in a JSON body or a GraphQL argument: a boolean. */
export function parseStale(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  throw bad('stale', 'must be a boolean');
}

/** The options as a JSON body or GraphQL arguments (under the REST names) carry them (raw a boolean): the lookup options. */
export function parseLookupOptions(input: {
  status?: unknown;
  raw?: unknown;
  max_age?: unknown;
  stale?: unknown;
}): LookupOptions {
  const options: LookupOptions = { raw: parseRaw(input.raw) };
  const status = parseStatus(input.status);
  if (status) options.status = status;
  const maxAge = parseMaxAge(input.max_age);
  if (maxAge !== undefined) options.maxAge = maxAge;
  const stale = parseStale(input.stale);
  if (stale !== undefined) options.stale = stale;
  return options;
}

const QUERY_PARAMS = new Set(LOOKUP_QUERY_KEYS);
const OPTION_KEYS = Object.keys(OPTION_FIELDS) as OptionKey[];

/** A boolean option in a query string is the text true or false (OpenAPI's form style): read as the boolean. */
function booleanFromQuery(key: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw bad(key, 'must be true or false');
}

/**
 * A number in a query string: text that reads as a number is that number, as OpenAPI validators
 * coerce query text (Ajv's coerceTypes: so the schema and this validator agree); other text is left
 * to the option's parser to refuse.
 */
const numberFromQuery = (value: unknown): unknown =>
  typeof value === 'string' && value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;

/** A query parameter's text as the option's type: booleans and integers from their text, strings as they are. */
function fromQuery(key: OptionKey, value: unknown): unknown {
  if (KindGuard.IsBoolean(OPTION_FIELDS[key])) return booleanFromQuery(key, value);
  return KindGuard.IsInteger(OPTION_FIELDS[key]) ? numberFromQuery(value) : value;
}

/** A single lookup's query string (REST). Repeated or unknown parameters are refused. */
export function parseLookupQuery(query: Record<string, unknown>): { locator: Locator; options: LookupOptions } {
  for (const [k, v] of Object.entries(query)) {
    if (!QUERY_PARAMS.has(k)) throw bad(k, `unknown parameter (expected ${LOOKUP_QUERY_KEYS.join(', ')})`);
    if (Array.isArray(v)) throw bad(k, 'sent more than once');
  }
  const options = parseOptionsQuery(query);
  return { locator: parseLocator(query), options };
}

/** The lookup options in a query string (REST), each read from its text (the caller refuses unknown or repeated parameters). */
export function parseOptionsQuery(query: Record<string, unknown>): LookupOptions {
  return parseLookupOptions(Object.fromEntries(OPTION_KEYS.map((k) => [k, fromQuery(k, query[k])])));
}

/** A valid item carries its own max_age when it sent one (over the batch's). */
export type BatchItemResult = { ok: true; locator: Locator; maxAge?: number } | { ok: false; error: LookupError };
const ITEM_KEYS: readonly string[] = [...LOCATOR_KEYS, ...ITEM_OPTION_KEYS];

/** A valid item's options: the batch's, with the item's own max_age over the batch's. */
export const itemOptions = (item: Extract<BatchItemResult, { ok: true }>, options: LookupOptions): LookupOptions =>
  item.maxAge === undefined ? options : { ...options, maxAge: item.maxAge };

const URLISH = /^https?:\/\//i;

/** One batch item: a string (link or address) or an object with exactly one locator. */
export function parseBatchItem(item: unknown): BatchItemResult {
  try {
    if (typeof item === 'string') {
      return { ok: true, locator: URLISH.test(item.trim()) ? parseUrl(item) : parseAddress(item) };
    }
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      const obj = item as Record<string, unknown>;
      const unknown = Object.keys(obj).filter((k) => !ITEM_KEYS.includes(k));
      if (unknown.length > 0)
        throw bad(
          'item',
          `unknown field ${unknown.join(', ')} (expected one of ${oneOfLocators}, and optionally ${ITEM_OPTION_KEYS.join(', ')})`,
        );
      const locator = parseLocator(obj);
      const maxAge = parseMaxAge(obj.max_age);
      return maxAge === undefined ? { ok: true, locator } : { ok: true, locator, maxAge };
    }
    throw bad('item', `must be a string or an object with one of ${oneOfLocators}`);
  } catch (e) {
    if (e instanceof LookupError) return { ok: false, error: e };
    throw e;
  }
}

/** `dry_run` of a batch: the text true or false in REST's query string, a boolean as a GraphQL argument. */
export function parseDryRun(value: unknown, fromQuery: boolean): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) throw bad('dry_run', 'sent more than once');
  const dryRun = fromQuery ? booleanFromQuery('dry_run', value) : value;
  if (typeof dryRun !== 'boolean') throw bad('dry_run', 'must be a boolean');
  return dryRun;
}

const BATCH_QUERY_KEYS = Object.keys(BATCH_QUERY_FIELDS);

/** A batch's query string (REST). Unknown parameters are refused, as on a single lookup: a misspelt dry_run (`dryRun`) must not run and bill the batch. */
export function parseBatchQuery(query: Record<string, unknown>): { dryRun: boolean } {
  for (const k of Object.keys(query)) {
    if (!BATCH_QUERY_KEYS.includes(k)) throw bad(k, `unknown parameter (expected ${BATCH_QUERY_KEYS.join(', ')})`);
  }
  return { dryRun: parseDryRun(query.dry_run, true) };
}

const BATCH_FIELDS = new Set(BATCH_BODY_KEYS);

/** A batch body (spec 4.2): request-level errors throw; per-item errors are returned in place. */
export function parseBatchBody(body: unknown): { items: BatchItemResult[]; options: LookupOptions } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new LookupError('bad_body', { details: { reason: 'body must be a JSON object' } });
  }
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.items) || b.items.length === 0) {
    throw new LookupError('bad_body', { details: { reason: 'items must be a non-empty array' } });
  }
  if (b.items.length > MAX_BATCH_ITEMS) {
    throw new LookupError('too_many_items', { details: { max: MAX_BATCH_ITEMS, received: b.items.length } });
  }
  const unknown = Object.keys(b).filter((k) => !BATCH_FIELDS.has(k));
  if (unknown.length > 0) throw bad(unknown[0]!, `unknown field (expected ${BATCH_BODY_KEYS.join(', ')})`);
  return { items: b.items.map(parseBatchItem), options: parseLookupOptions(b) };
}

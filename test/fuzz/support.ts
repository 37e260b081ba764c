// What every fuzzed answer must be, whatever was sent: no 5xx; the v1 headers; REST answers in the
// spec's envelope with a code from the one table whose status matches; GraphQL answers in GraphQL's
// format with a code from the same table on every error. FUZZ_RUNS sets the cases per property (npm test: 200;
// npm run test:fuzz: 10,000).
import fc from 'fast-check';
import { expect } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/contract/index.js';

export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** Generous (a machine shared with other work can be slow): a property must never be stopped by vitest's per-test limit. */
export const FUZZ_TIMEOUT_MS = Math.max(120_000, FUZZ_RUNS * 200);

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

const header = (a: Answer, name: string): string => String(a.headers[name] ?? '');

/**
 * No 5xx, except the honest answer of a saturated process (503 upstream_busy with retry-after: the
 * page readers' queue is full), which a fuzz run beside other work can meet on a live lookup.
 */
function expectNo5xx(a: Answer): void {
  if (a.status === 503 && a.text.includes('"code":"upstream_busy"') && header(a, 'retry-after') !== '') return;
  expect(a.status, a.text).toBeLessThan(500);
}

/** A REST answer: a success, or the envelope with a known code whose status is the answer's status. */
export function expectRestAnswer(a: Answer): void {
  expectNo5xx(a);
  expect(header(a, 'x-api-version')).toBe('v1');
  expect(header(a, 'cache-control')).toBe('no-store');
  expect(header(a, 'content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(a.text);
  if (a.status === 200) {
    expect(
      ['data', 'status'].filter((k) => k in body),
      a.text,
    ).not.toHaveLength(0);
    return;
  }
  expect(Object.keys(body).sort(), a.text).toEqual(['error', 'meta']);
  expect(typeof body.meta.took_ms).toBe('number');
  const code = body.error.code as ErrorCode;
  expect(Object.keys(ERROR_CODES), a.text).toContain(code);
  expect(ERROR_CODES[code].status, a.text).toBe(a.status);
  expect(typeof body.error.message).toBe('string');
  expectNoInternals(a.text);
}

const TABLE_CODES = Object.keys(ERROR_CODES);

/** A GraphQL error: a message and a code from the one table (never Yoga's, envelop's or graphql-js's own). */
function expectGraphqlError(e: any, text: string): void {
  expect(typeof e.message, text).toBe('string');
  expect(TABLE_CODES, text).toContain(e.extensions?.code);
}

/** One GraphQL result: data, or errors each with a message and a code (or both, for partial data). */
function expectGraphqlResult(result: any, text: string): void {
  expect(result !== null && typeof result === 'object' && !Array.isArray(result), text).toBe(true);
  expect('data' in result || 'errors' in result, text).toBe(true);
  for (const e of result.errors ?? []) expectGraphqlError(e, text);
}

/** The JSON parts of an incremental (multipart/mixed) answer: a first result, then `incremental` ones. */
function multipartParts(text: string): any[] {
  return text
    .split(/\r\n---/)
    .map((part) => part.split('\r\n\r\n')[1]?.trim())
    .filter((body): body is string => !!body)
    .map((body) => JSON.parse(body));
}

/**
 * A GraphQL answer: JSON in GraphQL's format (a batched request: an array of results), or, when the
 * client accepts it and the operation defers, GraphQL's incremental delivery (multipart/mixed).
 */
export function expectGraphqlAnswer(a: Answer): void {
  expectNo5xx(a);
  expect(header(a, 'x-api-version')).toBe('v1');
  expectNoInternals(a.text);
  if (header(a, 'content-type').startsWith('multipart/mixed')) {
    const [first, ...rest] = multipartParts(a.text);
    expectGraphqlResult(first, a.text);
    for (const r of rest) {
      expect(typeof r.hasNext, a.text).toBe('boolean');
      for (const inc of r.incremental ?? []) for (const e of inc.errors ?? []) expectGraphqlError(e, a.text);
    }
    return;
  }
  expect(header(a, 'content-type'), a.text).toMatch(/^application\/(graphql-response\+)?json/);
  const body = JSON.parse(a.text);
  if (Array.isArray(body)) for (const r of body) expectGraphqlResult(r, a.text);
  else expectGraphqlResult(body, a.text);
}

export function expectNoInternals(text: string): void {
  expect(text).not.toMatch(/FST_ERR|HPE_|ERR_HTTP|SyntaxError|TypeError|at \S+\.(js|ts):\d+/);
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap after a full collection (when the process runs with --expose-gc), else the resident set. */
function memoryNow(): number {
  if (gc) {
    gc();
    return process.memoryUsage().heapUsed;
  }
  return process.memoryUsage().rss;
}

/**
 * Memory stays flat: with a collector, the heap grows by at most 64 MB once the bounded caches (parsed
 * documents, validation results, records) have filled; without one (the quick run), the resident set
 * stays under 2 GB.
 */
function expectMemoryFlat(before: number): void {
  const after = memoryNow();
  if (gc) expect(after - before).toBeLessThan(64 * 1024 * 1024);
  else expect(after).toBeLessThan(2 * 1024 * 1024 * 1024);
}

/**
 * Runs FUZZ_RUNS cases of the property: a fifth to fill the service's bounded caches, then the rest
 * between two memory readings, which must stay flat.
 */
export async function assertFuzz<T extends unknown[]>(property: fc.IAsyncProperty<T>): Promise<void> {
  const warm = Math.max(1, Math.ceil(FUZZ_RUNS / 5));
  await fc.assert(property, { numRuns: warm });
  const before = memoryNow();
  await fc.assert(property, { numRuns: FUZZ_RUNS - warm });
  expectMemoryFlat(before);
}

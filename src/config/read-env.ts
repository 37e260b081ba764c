// Reading environment variables against a TypeBox schema: every value is a string, turned into the
// type its entry declares, then checked; every problem is collected, so one start-up lists them all.
// The schema itself (which variables, their types, ranges and defaults) lives in src/config.ts.
import { FormatRegistry, Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export type Env = Record<string, string | undefined>;

FormatRegistry.Set('http-url', (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol));
FormatRegistry.Set('redis-url', (v) => URL.canParse(v) && /^rediss?:$/.test(new URL(v).protocol));

/**
 * What every entry may say besides its type: its meaning, and how the Default column of docs/configuration.md
 * shows its default when that is not the literal `default` (computed, or too long for the table).
 */
interface Doc {
  description: string;
  /** The docs page's Default cell for this variable, when it is not the literal default in backticks (or `unset`). */
  docDefault?: string;
  /** Never echoed in a problem line: it may hold a credential. */
  secret?: boolean;
}
interface Bounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

/** Node's timers cannot wait longer: a longer delay fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export const integer = (o: Doc & Bounds & { default?: number }) => Type.Integer(o);
/** A duration in milliseconds: an integer no longer than a timer can wait. */
export const ms = (o: Doc & Bounds & { default?: number }) => Type.Integer({ maximum: MAX_TIMER_MS, ...o });
export const decimal = (o: Doc & Bounds & { default?: number }) => Type.Number(o);
export const flag = (o: Doc & { default: boolean }) => Type.Boolean(o);
export const text = (o: Doc & { default?: string }) => Type.String({ minLength: 1, ...o });
export const httpUrl = (o: Doc & { default?: string }) => Type.String({ format: 'http-url', ...o });
export const redisUrl = (o: Doc) => Type.String({ format: 'redis-url', ...o });
export const oneOf = <T extends string>(values: readonly T[], o: Doc & { default?: T }) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    o,
  );

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The string as the entry's type, or the string itself when it is not one (the check then names it). */
function coerce(schema: TSchema, raw: string): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return NUMBER.test(raw) ? Number(raw) : raw;
  if (schema.type === 'boolean') {
    const v = raw.toLowerCase();
    return TRUE.includes(v) ? true : FALSE.includes(v) ? false : raw;
  }
  return raw;
}

/** What a valid value looks like, in words. */
function expectation(schema: TSchema): string {
  if (schema.type === 'integer' || schema.type === 'number') {
    const bounds = [
      schema.minimum !== undefined
        ? `>= ${schema.minimum}`
        : schema.exclusiveMinimum !== undefined
          ? `> ${schema.exclusiveMinimum}`
          : null,
      schema.maximum !== undefined ? `<= ${schema.maximum}` : null,
    ].filter((b) => b !== null);
    return [schema.type === 'integer' ? 'an integer' : 'a number', bounds.join(' and ')].filter(Boolean).join(' ');
  }
  if (schema.type === 'boolean') return 'true or false (or 1/0, yes/no, on/off)';
  if (schema.format === 'http-url') return 'an http:// or https:// URL';
  if (schema.format === 'redis-url') return 'a redis:// or rediss:// URL';
  if (Array.isArray(schema.anyOf)) return `one of ${(schema.anyOf as TSchema[]).map((s) => s.const).join(', ')}`;
  return 'a non-empty string';
}

/** The service refuses to start: every problem of its environment, one line each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }

  /** What the process prints before it exits: no stack, a heading, then one problem per line. */
  report(): string {
    const n = this.problems.length;
    return `Configuration refused (${n} problem${n === 1 ? '' : 's'}; see docs/configuration.md):\n${this.problems.map((p) => `  ${p}\n`).join('')}`;
  }
}

/** A check across variables: skipped when one it uses is already wrong on its own. */
export interface EnvRule<T> {
  uses: ReadonlyArray<keyof T & string>;
  /** The problem, or null. */
  check(values: T): string | null;
}

/**
 * The environment read against `schema`: unset and blank variables take their defaults; wrong types,
 * ranges, URLs and failed rules are all collected and thrown together as one ConfigError.
 */
export function readEnv<S extends TObject>(
  schema: S,
  env: Env,
  rules: ReadonlyArray<EnvRule<Static<S>>> = [],
): Static<S> {
  const value: Record<string, unknown> = {};
  const raw: Record<string, string> = {};
  for (const [name, entry] of Object.entries(schema.properties)) {
    const v = env[name]?.trim();
    if (!v) continue;
    raw[name] = v;
    value[name] = coerce(entry, v);
  }
  Value.Default(schema, value);
  const wrong = new Set<string>();
  const problems: string[] = [];
  for (const error of Value.Errors(schema, value)) {
    const name = error.path.split('/')[1]!;
    if (wrong.has(name)) continue;
    wrong.add(name);
    const entry = schema.properties[name]!;
    const got = entry.secret ? '' : ` (got ${JSON.stringify(raw[name])})`;
    problems.push(`${name} must be ${expectation(entry)}${got}`);
  }
  const values = value as Static<S>;
  for (const rule of rules) {
    if (rule.uses.some((n) => wrong.has(n))) continue;
    const problem = rule.check(values);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values;
}

/** An entry's Default cell in docs/configuration.md: its docDefault, the literal default in backticks, or `unset`. */
export function docsDefault(entry: TSchema): string {
  if (typeof entry.docDefault === 'string') return entry.docDefault;
  return entry.default === undefined ? 'unset' : `\`${String(entry.default)}\``;
}

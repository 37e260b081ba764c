// Small, total conversions from the site's loosely typed values to the contract's types.
// Every helper returns null for "not shown" (absent, empty, a sentinel) and never throws.

import { isZipCode } from '../../address/normalize.js';
import { publicLink } from '../../contract/listing-url.js';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object at `key`, or an empty one, so paths can be walked without checks. */
export const obj = (v: unknown, key: string): Json => {
  const child = isObject(v) ? v[key] : undefined;
  return isObject(child) ? child : {};
};

/** The array at `key` (objects only), or an empty one. */
export const list = (v: unknown, key: string): Json[] => {
  const child = isObject(v) ? v[key] : undefined;
  return Array.isArray(child) ? child.filter(isObject) : [];
};

/** The first argument that is not null. */
export const first = <T>(...values: Array<T | null>): T | null => {
  for (const v of values) if (v !== null) return v;
  return null;
};

/** A trimmed, non-empty string; numbers become their decimal text (ids are sometimes numbers). */
export function text(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
}

const NUMBER_IN_TEXT = /-?\d[\d,]*(?:\.\d+)?|-?\.\d+/;

/** A finite number from a number or from the first number in a text ("1,206 sqft", "$486 monthly"). */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const m = NUMBER_IN_TEXT.exec(v);
  if (!m) return null;
  const n = Number(m[0].replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** A number above zero; 0 and the site's -1 sentinel mean "not shown". */
export const positive = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n > 0 ? n : null;
};

/** A number of at least zero, for counts where zero is meaningful. */
export const nonNegative = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n >= 0 ? n : null;
};

/** A whole number of at least zero (counts, days). */
export const count = (v: unknown): number | null => {
  const n = nonNegative(v);
  return n !== null && Number.isInteger(n) ? n : null;
};

/** A plausible four-digit year; 0, -1 and junk mean "not shown". */
export const year = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && Number.isInteger(n) && n >= 1600 && n <= 2200 ? n : null;
};

const SQFT_PER_ACRE = 43560;

/** An area in square feet from a value and its unit ("Acres", "acres", "Square Feet", "sqft"); whole square feet. */
export function areaSqft(value: unknown, unit: unknown): number | null {
  const n = positive(value);
  if (n === null) return null;
  const u = typeof unit === 'string' ? unit.trim().toLowerCase() : '';
  if (u.startsWith('acre') || u === 'ac') return Math.round(n * SQFT_PER_ACRE);
  if (u === '' || u === 'sqft' || u === 'square feet' || u === 'sq ft' || u === 'sf') return Math.round(n);
  return null;
}

/** An area in square feet from a text that carries its unit ("6,969 sqft", "1.2 Acres"). */
export function areaSqftFromText(v: unknown): number | null {
  if (typeof v === 'number') return positive(v);
  if (typeof v !== 'string') return null;
  const unit = /acre/i.test(v) ? 'acres' : /sq\s*\.?\s*f|square\s+f|sqft/i.test(v) ? 'sqft' : '';
  return areaSqft(v, unit);
}

const PER_YEAR: Record<string, number> = {
  monthly: 12,
  month: 12,
  mo: 12,
  annually: 1,
  annual: 1,
  yearly: 1,
  year: 1,
  yr: 1,
  quarterly: 4,
  quarter: 4,
  'semi-annually': 2,
  semiannually: 2,
  'semi-annual': 2,
  weekly: 52,
};

/**
 * A monthly fee in whole dollars from an amount and its frequency, or from one text
 * ("$486 monthly", "$276 annually" → 23). A text without a frequency is taken as monthly,
 * the unit the site shows fees in.
 */
export function monthlyFee(amount: unknown, frequency?: unknown): number | null {
  const n = positive(amount);
  if (n === null) return null;
  const words =
    `${typeof amount === 'string' ? amount : ''} ${typeof frequency === 'string' ? frequency : ''}`.toLowerCase();
  const key = Object.keys(PER_YEAR)
    .sort((a, b) => b.length - a.length)
    .find((k) => new RegExp(`\\b${k}\\b`).test(words));
  const perYear = key ? PER_YEAR[key]! : 12;
  return Math.round((n * perYear) / 12);
}

const pad = (n: number) => String(n).padStart(2, '0');

const isoFromParts = (y: number, m: number, d: number): string | null => {
  const t = Date.UTC(y, m - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d
    ? `${y}-${pad(m)}-${pad(d)}`
    : null;
};

/** Epoch milliseconds from a number or a digit string; "0" and small numbers mean "no date". */
export function epochMs(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : typeof v === 'number' ? v : NaN;
  // Anything before 1973 in ms is a sentinel or a year, not a timestamp.
  return Number.isFinite(n) && n >= 1e11 ? n : null;
}

/** A date as YYYY-MM-DD (UTC) from epoch ms, "MM/DD/YYYY", or an ISO date/date-time. */
export function isoDate(v: unknown): string | null {
  const ms = epochMs(v);
  if (ms !== null) return new Date(ms).toISOString().slice(0, 10);
  if (typeof v !== 'string') return null;
  const s = v.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(s);
  if (m) return isoFromParts(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) return isoFromParts(Number(m[3]), Number(m[1]), Number(m[2]));
  return null;
}

/** The UTC year of an epoch-ms time (tax history rows carry only `time`). */
export const yearOf = (v: unknown): number | null => {
  const ms = epochMs(v);
  return ms === null ? null : new Date(ms).getUTCFullYear();
};

/** A neighbourhood's name; a ZIP code is none (the site's fallback region is sometimes the ZIP's). */
export function neighborhoodName(v: unknown): string | null {
  const t = text(v);
  return t !== null && !isZipCode(t) ? t : null;
}

/** "street, city, ST zip" with absent parts left out; null when nothing is known. */
export function oneLineAddress(
  street: string | null,
  city: string | null,
  state: string | null,
  zip: string | null,
): string | null {
  const stateZip = [state, zip].filter(Boolean).join(' ');
  const line = [street, city, stateZip].filter(Boolean).join(', ');
  return line === '' ? null : line;
}

/** An absolute link on the listing site from a site path; absolute links are kept. */
export function siteUrl(pathOrUrl: unknown): string | null {
  const t = text(pathOrUrl);
  if (t === null) return null;
  if (/^https?:\/\//i.test(t)) return t;
  return t.startsWith('/') ? publicLink(t) : null;
}

/** The site's CamelCase and lower-camel enums in its UPPER_SNAKE form ("SingleFamily" → "SINGLE_FAMILY"). */
export function upperSnake(v: unknown): string | null {
  const t = text(v);
  return t === null
    ? null
    : t
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/[\s-]+/g, '_')
        .toUpperCase();
}

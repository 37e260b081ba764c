// API keys: random, shown once, stored only as a keyed hash (HMAC-SHA256 under a server secret).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'pl_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new key: `pl_live_` + 32 base62 characters (~190 bits). */
export function generateApiKey(): string {
  const bytes = randomBytes(32);
  let body = '';
  for (const b of bytes) body += ALPHABET[b % 62];
  return KEY_PREFIX + body;
}

export function hashApiKey(key: string, secret: string): string {
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

/** The part of a key that may be shown and logged. */
export const visiblePrefix = (key: string): string => key.slice(0, Math.min(12, Math.max(4, key.length - 8)));

/** Compares two hex digests of equal length in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A stable account id for a key seeded from a file, so seeding is idempotent. */
export const seededAccountId = (keyHash: string): string => `acct_${keyHash.slice(0, 16)}`;

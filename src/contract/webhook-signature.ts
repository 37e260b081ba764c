// The webhook signature, part of the contract: Standard Webhooks signing (https://www.standardwebhooks.com): the headers a delivery carries, and the
// check a receiver makes (verifyWebhook, used by the demo's receiver). Plain node:crypto, so the
// service needs no webhook library; the tests check both against the `standardwebhooks` package.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** Bytes of a new secret's key (the spec allows 24 to 64). */
const SECRET_BYTES = 24;
/** How long after a rotation deliveries also carry the previous secret's signature. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 3600 * 1000;
/** How far a delivery's webhook-timestamp may be from the receiver's clock, either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

/** The secret's key bytes, or null when it is not `whsec_` + base64 of 24 to 64 bytes. */
function secretKey(secret: string): Buffer | null {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) return null;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const key = Buffer.from(b64, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : null;
}

export const isWebhookSecret = (secret: unknown): secret is string =>
  typeof secret === 'string' && secretKey(secret) !== null;

function mustKey(secret: string): Buffer {
  const key = secretKey(secret);
  if (!key) throw new Error('A webhook secret is whsec_ followed by the base64 of 24 to 64 bytes');
  return key;
}

const hmac = (key: Buffer, id: string, timestamp: number, body: string): Buffer =>
  createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The three signature headers of one attempt; `timestamp` in unix seconds (the attempt's time). Several
 * secrets (after a rotation): one space-separated `v1,…` signature each, as Standard Webhooks allows.
 */
export function signWebhook(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): WebhookHeaders {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(mustKey);
  if (keys.length === 0) throw new Error('No webhook secret to sign with');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((key) => `v1,${hmac(key, id, timestamp, body).toString('base64')}`).join(' '),
  };
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/**
 * Checks a delivery as a receiver should: the signature (any of the space-separated `v1,…` values,
 * compared in constant time) over the exact body received, and a timestamp within 5 minutes of `now`.
 * Returns the parsed body; throws WebhookVerificationError otherwise. Header names are matched in any case.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string | Buffer,
  now: Date = new Date(),
): unknown {
  const header = (name: string): string => {
    const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
    const v = Array.isArray(entry?.[1]) ? entry[1].join(' ') : entry?.[1];
    if (!v) throw new WebhookVerificationError(`Missing ${name} header`);
    return v;
  };
  const id = header('webhook-id');
  const timestampText = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!/^\d{1,12}$/.test(timestampText)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const timestamp = Number(timestampText);
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = hmac(mustKey(secret), id, timestamp, text);
  const match = signatures.split(' ').some((s) => {
    const [version, sig] = s.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('No matching signature');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}

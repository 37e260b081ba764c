// One delivery attempt: the URL checked again (its host resolved now), a POST signed for this moment
// with the account's current secret, sent to the addresses just checked (a custom lookup, so DNS cannot
// change between check and connect), redirects never followed. A 2xx answer is delivered; anything
// else, an error or the time limit throws, and the caller retries.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { signWebhook } from '../contract/webhook-signature.js';
import { checkWebhookUrl, type CheckedAddress, type Resolver } from './url-guard.js';

export const WEBHOOK_USER_AGENT = 'portal-lookup-webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface Delivery {
  /** The webhook-id every attempt carries (msg_…). */
  id: string;
  accountId: string;
  url: string;
  type: string;
  /** The exact JSON body, made once when queued, so every attempt sends the same bytes. */
  body: string;
  /** Sent again on the account's request (POST /v1/webhooks/deliveries/<id>/redeliver): one attempt, not retried. */
  redelivery?: boolean;
}

export interface AttemptOptions {
  /** The account's secret, then the one a rotation replaced while its grace lasts: one signature each. */
  secrets: string | readonly string[];
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: Resolver;
  /** Aborts the attempt (the process is closing). */
  signal?: AbortSignal;
  now?: () => number;
}

export class AttemptError extends Error {
  override name = 'AttemptError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** A lookup that answers only with the checked addresses. */
function pinnedLookup(addresses: CheckedAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

/** Sends one attempt; resolves with the 2xx status, throws AttemptError otherwise. */
export async function attemptDelivery(d: Delivery, o: AttemptOptions): Promise<number> {
  // One limit for the whole attempt, the host's resolution included.
  const deadline = Date.now() + o.timeoutMs;
  const late = () => new AttemptError(`no answer within ${o.timeoutMs} ms`);
  let checked;
  let timer: NodeJS.Timeout | undefined;
  try {
    checked = await Promise.race([
      checkWebhookUrl(d.url, 'webhook_url', { allowPrivate: o.allowPrivate, resolve: o.resolve }),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late()), o.timeoutMs))),
    ]);
  } catch (e) {
    if (e instanceof AttemptError) throw e;
    throw new AttemptError(
      `URL refused: ${(e as { details?: { reason?: string } }).details?.reason ?? (e as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
  const timestamp = Math.floor((o.now?.() ?? Date.now()) / 1000);
  const headers = {
    ...signWebhook(o.secrets, d.id, timestamp, d.body),
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(d.body)),
    'user-agent': WEBHOOK_USER_AGENT,
  };
  const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const req = send(checked.url, {
      method: 'POST',
      headers,
      agent: false,
      lookup: pinnedLookup(checked.addresses),
      signal: o.signal,
    });
    const timer = setTimeout(() => req.destroy(late()), Math.max(1, deadline - Date.now()));
    const done = () => clearTimeout(timer);
    req.on('response', (res: IncomingMessage) => {
      done();
      const status = res.statusCode ?? 0;
      // The answer's body is not read: only the status counts.
      res.destroy();
      if (status >= 200 && status < 300) resolve(status);
      else reject(new AttemptError(`answered ${status}`, status));
    });
    req.on('error', (err) => {
      done();
      reject(err instanceof AttemptError ? err : new AttemptError((err as NodeJS.ErrnoException).code ?? err.message));
    });
    req.end(d.body);
  });
}

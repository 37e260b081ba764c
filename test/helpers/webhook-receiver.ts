// A real webhook receiver for tests: an HTTP server on a free loopback port that checks every delivery
// with the `standardwebhooks` package (an oracle independent of the service's signing code), records
// the verified ones, can be told to fail the next N with 500, and waits (bounded) for what a test expects.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** webhook-id */
  id: string;
  /** webhook-timestamp (unix seconds) */
  timestamp: number;
  type: string;
  /** The whole parsed body: { type, timestamp, data }. */
  body: { type: string; timestamp: string; data: unknown };
  data: unknown;
  headers: IncomingHttpHeaders;
}

export interface ReceivedAttempt {
  id: string | undefined;
  /** Whether the signature verified (with the secret of that moment). */
  verified: boolean;
  /** What the receiver answered. */
  status: number;
  headers: IncomingHttpHeaders;
  raw: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hooks */
  readonly url: string;
  /** Deliveries verified and answered 204, in arrival order (a retry of a delivered one appears again). */
  readonly events: ReceivedWebhook[];
  /** Every request received, verified or not, failed on purpose or not. */
  readonly attempts: ReceivedAttempt[];
  /** The secret deliveries are verified with from now on (after a rotation). */
  setSecret(secret: string): void;
  /** Answers the next `n` verified deliveries with `status` (default 500) instead of 204. */
  failNext(n: number, status?: number): void;
  /** Resolves with the events once `predicate(events)` holds; rejects after `timeoutMs` (default 10 s). */
  waitFor(predicate: (events: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

const MAX_BODY = 8 * 1024 * 1024;

export interface WebhookReceiverOptions {
  secret: string;
  path?: string;
  /** Awaited after a request is checked and recorded, before it is answered (e.g. to rotate a secret meanwhile). */
  beforeAnswer?: (attempt: ReceivedAttempt) => void | Promise<void>;
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  let verifier = new Webhook(options.secret);
  const events: ReceivedWebhook[] = [];
  const attempts: ReceivedAttempt[] = [];
  const waiters = new Set<() => void>();
  let failing = 0;
  let failStatus = 500;
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : undefined;
      let body: ReceivedWebhook['body'] | null = null;
      try {
        body = verifier.verify(raw, req.headers as Record<string, string>) as ReceivedWebhook['body'];
      } catch {
        body = null;
      }
      let status = 204;
      if (body === null) status = 400;
      else if (failing > 0) {
        failing -= 1;
        status = failStatus;
      }
      const attempt = { id, verified: body !== null, status, headers: req.headers, raw };
      attempts.push(attempt);
      if (body !== null && status === 204) {
        events.push({
          id: id!,
          timestamp: Number(req.headers['webhook-timestamp']),
          type: body.type,
          body,
          data: body.data,
          headers: req.headers,
        });
      }
      await options.beforeAnswer?.(attempt);
      res.statusCode = status;
      res.end();
      notify();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${options.path ?? '/hooks'}`,
    events,
    attempts,
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    failNext(n, status = 500) {
      failing = n;
      failStatus = status;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(events)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(events);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `webhook receiver: not met within ${timeoutMs} ms (${events.length} events, ${attempts.length} attempts)`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

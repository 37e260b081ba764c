// The demo's webhook receiver (`npm run demo`): a small HTTP server on loopback that checks each
// delivery's Standard Webhooks signature with the account's secret (the webhooks module's own
// verifyWebhook, as any receiver would with the `standardwebhooks` package), answers 204, and prints
// each verified event once: deliveries are at least once, so a repeat webhook-id is acknowledged and
// not printed again. A delivery that does not verify is answered 400 and printed as refused.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from './webhooks/index.js';

export interface DemoReceiver {
  /** Where to point a webhook_url: http://127.0.0.1:<port>/hooks */
  url: string;
  close(): Promise<void>;
}

/** The largest delivery read: a job's event is a few hundred bytes, a watched home's a record. */
const MAX_BODY_BYTES = 1024 * 1024;

async function bodyOf(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One line for a person: what happened, from the event's data. */
function describe(event: { type?: string; data?: Record<string, unknown> }): string {
  const d = event.data ?? {};
  if (event.type === 'job.completed' || event.type === 'job.failed') {
    return `job ${String(d.id)} ${String(d.status)}: ${String(d.succeeded)} found, ${String(d.failed)} failed, ${String(d.credits)} credits`;
  }
  return JSON.stringify(d).slice(0, 200);
}

export async function startDemoReceiver(secret: string, print: (line: string) => void): Promise<DemoReceiver> {
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/hooks') {
        response.writeHead(404).end();
        return;
      }
      const body = await bodyOf(request);
      if (body === null) {
        response.writeHead(413).end();
        return;
      }
      try {
        const event = verifyWebhook(secret, request.headers, body) as { type?: string; data?: Record<string, unknown> };
        const id = String(request.headers['webhook-id']);
        if (!seen.has(id)) {
          seen.add(id);
          print(`Webhook receiver: verified ${event.type ?? 'event'} (${id}): ${describe(event)}`);
        }
        response.writeHead(204).end();
      } catch (e) {
        if (!(e instanceof WebhookVerificationError)) throw e;
        print(`Webhook receiver: refused a delivery: ${e.message}`);
        response.writeHead(400, { 'content-type': 'text/plain' }).end(e.message);
      }
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

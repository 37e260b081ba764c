// One attempt connects to the addresses its own check resolved, never to a second DNS answer: a name
// no system resolver knows reaches the receiver through the checked address (with the name kept in
// the Host header), and a name resolving to loopback without WEBHOOK_ALLOW_PRIVATE is not contacted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery, type Delivery } from '../../src/webhooks/deliver.js';
import { newWebhookSecret } from '../../src/contract/webhook-signature.js';
import type { Resolver } from '../../src/webhooks/url-guard.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const secret = newWebhookSecret();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
});
afterAll(async () => {
  await receiver.close();
});

const delivery = (url: string): Delivery => ({
  id: 'msg_pinned',
  accountId: 'acct_1',
  url,
  type: 'job.completed',
  body: JSON.stringify({ type: 'job.completed', timestamp: new Date().toISOString(), data: { id: 'job_1' } }),
});

describe('attemptDelivery', () => {
  it('connects to the checked address of a name only its check resolved', async () => {
    const port = new URL(receiver.url).port;
    const calls: string[] = [];
    const resolve: Resolver = async (host) => {
      calls.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const status = await attemptDelivery(delivery(`http://hooks.invalid:${port}/hooks`), {
      secrets: secret,
      allowPrivate: true,
      timeoutMs: 2000,
      resolve,
    });
    expect(status).toBe(204);
    expect(calls).toEqual(['hooks.invalid']);
    const [event] = await receiver.waitFor((e) => e.some((x) => x.id === 'msg_pinned'));
    expect(event!.headers.host).toBe(`hooks.invalid:${port}`);
  });

  it('refuses, without connecting, a name resolving to loopback when private addresses are not allowed', async () => {
    const before = receiver.attempts.length;
    const port = new URL(receiver.url).port;
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(
      attemptDelivery(delivery(`http://hooks.invalid:${port}/hooks`), {
        secrets: secret,
        allowPrivate: false,
        timeoutMs: 2000,
        resolve,
      }),
    ).rejects.toThrow(/URL refused: .*loopback/);
    expect(receiver.attempts.length).toBe(before);
  });
});

describe('attemptDelivery time limit', () => {
  it("covers the host's resolution too: a resolver that never answers fails the attempt at the limit", async () => {
    const never: Resolver = () => new Promise(() => undefined);
    await expect(
      attemptDelivery(delivery('http://slow.invalid/hooks'), {
        secrets: secret,
        allowPrivate: true,
        timeoutMs: 50,
        resolve: never,
      }),
    ).rejects.toThrow('no answer within 50 ms');
  });
});

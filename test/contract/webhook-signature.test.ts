// The contract's webhook signature (src/contract/webhook-signature.ts). Signing per Standard Webhooks, checked by the `standardwebhooks` package (an independent oracle) and by
// our own verifyWebhook (the demo's receiver): the same deliveries pass both, and both refuse a tampered
// body, another secret, and a timestamp over 5 minutes from now.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  isWebhookSecret,
  newWebhookSecret,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/contract/webhook-signature.js';

const body = JSON.stringify({
  type: 'job.completed',
  timestamp: '2026-11-24T03:00:00.000Z',
  data: { id: 'job_1', count: 2 },
});
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('webhook signatures', () => {
  it('a new secret is whsec_ + base64 of 24 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(isWebhookSecret(a)).toBe(true);
    expect(a).not.toBe(newWebhookSecret());
  });

  it('what we sign, standardwebhooks and verifyWebhook accept, with the parsed body', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook(secret, 'msg_abc', nowSeconds(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, { ...headers }, body)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, { ...headers }, Buffer.from(body))).toEqual(JSON.parse(body));
  });

  it('the signature equals the one standardwebhooks makes', () => {
    const secret = newWebhookSecret();
    const t = nowSeconds();
    expect(signWebhook(secret, 'msg_x', t, body)['webhook-signature']).toBe(
      new Webhook(secret).sign('msg_x', new Date(t * 1000), body),
    );
  });

  it('verifyWebhook accepts what standardwebhooks signs, among several signatures, any header case', () => {
    const secret = newWebhookSecret();
    const t = nowSeconds();
    const theirs = new Webhook(secret).sign('msg_y', new Date(t * 1000), body);
    const other = new Webhook(newWebhookSecret()).sign('msg_y', new Date(t * 1000), body);
    const headers = {
      'Webhook-Id': 'msg_y',
      'WEBHOOK-TIMESTAMP': String(t),
      'webhook-signature': `${other} ${theirs}`,
    };
    expect(verifyWebhook(secret, headers, body)).toEqual(JSON.parse(body));
  });

  it('a tampered body, another id, another secret or a missing header: refused by both', () => {
    const secret = newWebhookSecret();
    const headers = { ...signWebhook(secret, 'msg_abc', nowSeconds(), body) };
    const tampered = body.replace('"count":2', '"count":3');
    const cases: [string, Record<string, string>, string][] = [
      [secret, headers, tampered],
      [secret, { ...headers, 'webhook-id': 'msg_other' }, body],
      [newWebhookSecret(), headers, body],
      [secret, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, body],
    ];
    for (const [s, h, b] of cases) {
      expect(() => new Webhook(s).verify(b, h)).toThrow();
      expect(() => verifyWebhook(s, h, b)).toThrow(WebhookVerificationError);
    }
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(() => verifyWebhook(secret, unsigned, body)).toThrow(/webhook-signature/);
  });

  it('a timestamp over 5 minutes away (old or ahead): refused by both; within: accepted', () => {
    const secret = newWebhookSecret();
    for (const offset of [-301, 301, -3600]) {
      const headers = { ...signWebhook(secret, 'msg_t', nowSeconds() + offset, body) };
      expect(() => new Webhook(secret).verify(body, headers), String(offset)).toThrow();
      expect(() => verifyWebhook(secret, headers, body), String(offset)).toThrow(/timestamp/);
    }
    const headers = { ...signWebhook(secret, 'msg_t', nowSeconds() - 240, body) };
    expect(() => verifyWebhook(secret, headers, body)).not.toThrow();
    // `now` is the receiver's clock.
    expect(() => verifyWebhook(secret, headers, body, new Date(Date.now() + 3600_000))).toThrow(/timestamp/);
  });

  it('a malformed secret cannot sign', () => {
    expect(() => signWebhook('whsec_short', 'msg', nowSeconds(), body)).toThrow(/24 to 64 bytes/);
    expect(() => signWebhook('not-a-secret', 'msg', nowSeconds(), body)).toThrow();
  });
});

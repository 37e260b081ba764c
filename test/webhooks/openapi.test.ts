// The OpenAPI document's `webhooks` describe what is really sent: a job.completed and a property.changed
// delivered through the webhooks (memory) into a real receiver validate against their request schemas,
// headers included; every reference resolves in the document.
import { Ajv2020 } from 'ajv/dist/2020.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/admin.js';
import { loadConfig } from '../../src/config.js';
import type { JobView } from '../../src/jobs/types.js';
import { buildOpenApi, exampleProperty } from '../../src/rest/openapi.js';
import { MemoryStore } from '../../src/store/memory.js';
import { createWebhooks, type WebhookDeps } from '../../src/webhooks/index.js';
import { backendFor } from '../../src/backend.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

type Doc = {
  components: unknown;
  webhooks: Record<
    string,
    { post: { parameters: { name: string }[]; requestBody: { content: Record<string, { schema: unknown }> } } }
  >;
};

const job: JobView = {
  id: 'job_1',
  status: 'completed',
  count: 2,
  done: 2,
  succeeded: 1,
  failed: 1,
  cache_hits: 0,
  credits: 1,
  created_at: '2026-11-24T03:00:00.000Z',
  started_at: '2026-11-24T03:00:01.000Z',
  finished_at: '2026-11-24T03:00:09.000Z',
  webhook_url: 'https://example.com/hooks',
  waiting: 0,
  waiting_until: null,
};

describe('OpenAPI webhooks', () => {
  it('names every event, and the bodies really sent validate against their schemas', async () => {
    const doc = buildOpenApi(loadConfig({})) as unknown as Doc;
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'account.usage_threshold',
      'job.completed',
      'job.failed',
      'property.changed',
    ]);
    for (const op of Object.values(doc.webhooks)) {
      expect(op.post.parameters.map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const validator = (type: string) =>
      ajv.compile(
        JSON.parse(
          JSON.stringify(doc.webhooks[type]!.post.requestBody.content['application/json']!.schema).replaceAll(
            '"#/components/',
            '"doc#/components/',
          ),
        ),
      );

    const store = new MemoryStore();
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const logger = pino({ level: 'silent' });
    const deps: WebhookDeps = { config, store, logger, clock: () => new Date() };
    const webhooks = createWebhooks(deps, backendFor(config).webhookRunner(deps, logger));
    const { account } = await createAccount(store, 'k', {});
    const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
    try {
      await webhooks.startWorker();
      await webhooks.send(account, receiver.url, { type: 'job.completed', id: job.id, data: job });
      await webhooks.send(account, receiver.url, {
        type: 'property.changed',
        id: 'w1:1',
        data: { zpid: exampleProperty.zpid, changes: [{ field: 'price', from: 1, to: 2 }], data: exampleProperty },
      });
      const events = await receiver.waitFor((e) => e.length === 2);
      for (const e of events) {
        const validate = validator(e.type);
        expect(validate(e.body), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      // The schemas can refuse: another event's payload does not pass.
      expect(validator('property.changed')(events.find((e) => e.type === 'job.completed')!.body)).toBe(false);
      expect(validator('job.completed')({ ...events[0]!.body, extra: 1 })).toBe(false);
    } finally {
      await receiver.close();
      await webhooks.close();
    }
  });
});

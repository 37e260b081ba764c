// Where newcomers look (the landing page and /llms.txt): what max_age, a stale answer, a batch's
// cost preview and an Idempotency-Key retry cost (issue 10 §1, §2, §5, §6), through the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AGE_MAX } from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

const LINES = [
  `max_age (seconds, 0 to ${MAX_AGE_MAX}) asks for a fresher record: a cached one older than that is read live and costs 1; max_age=0 always reads live.`,
  'When a live read is blocked or the site is down, the last good record answers for 0 credits, marked meta.stale (send stale=false to get the error instead).',
  'POST /v1/portal/batch?dry_run=true says what a batch would cost now (would_cost per item, meta.credits_estimate, meta.affordable) without looking anything up or charging.',
  'An Idempotency-Key header (1 to 255 printable ASCII characters) on POST /v1/portal/batch or a GraphQL POST makes a retry safe: the same request with the same key within 24 h gets the first answer again (header idempotent-replayed: true), billed once.',
];

describe('costs of the freshness options, of a cost preview and of an idempotent retry', () => {
  it('/llms.txt lists them under Costs', async () => {
    const text = await (await svc.fetch(`${svc.url}/llms.txt`)).text();
    const costs = text.slice(text.indexOf('## Costs'), text.indexOf('## Errors'));
    for (const line of LINES) expect(costs).toContain(`- ${line}`);
  });

  it('the landing page lists them under billing', async () => {
    const html = await (await svc.fetch(`${svc.url}/`)).text();
    for (const line of LINES) expect(html).toContain(`<li>${line.replace(/&/g, '&amp;')}</li>`);
  });
});

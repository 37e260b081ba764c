// The canary (PORTAL_CANARY_ZPIDS): the configured homes read by the own collector alone, past its
// breaker, never billed and never cached; its last round in /readyz and each read in the metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Canary } from '../../src/collector/site/canary.js';
import { LookupError } from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('the canary in a service', () => {
  let svc: TestService;
  beforeAll(async () => {
    // 2146993218 is a home of the recorded catalog; 999000401 its bot wall (403).
    svc = await startTestService({
      env: {
        PORTAL_CANARY_ZPIDS: '2146993218,999000401',
        PORTAL_CANARY_INTERVAL_MS: '1000',
        PORTAL_SESSION_RETRIES: '0',
        METRICS_TOKEN: 'canary',
      },
    });
  });
  afterAll(() => svc?.close());

  it('reads its homes on its own schedule: the round in /readyz and the metrics; nothing billed, nothing cached', async () => {
    let canary: { read: number; served: number; outcomes: Record<string, number> } | null = null;
    // The first round is due a second after start: wait for it to be reported (bounded, not timed).
    for (let i = 0; i < 600 && !canary; i++) {
      canary = (await svc.get('/readyz', null)).body.checks.collector.site.canary;
      if (!canary) await new Promise((r) => setTimeout(r, 50));
    }
    expect(canary).toMatchObject({ read: 2, served: 1, outcomes: { served: 1, wall: 1 } });
    const metrics = await svc
      .fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer canary' } })
      .then((r) => r.text());
    expect(metrics).toMatch(/^site_canary_reads_total\{outcome="served"\} [1-9]/m);
    expect(metrics).toMatch(/^site_canary_reads_total\{outcome="wall"\} [1-9]/m);
    expect(await svc.store.ledger()).toEqual([]);
    expect(await svc.store.getEntries(['zpid:2146993218'])).toEqual([null]);
  });
});

describe('Canary', () => {
  it('one read at a time, each outcome told; a round under way is not started twice; close stops it', async () => {
    const order: string[] = [];
    const outcomes: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const canary = new Canary({
      zpids: ['1', '2'],
      intervalMs: 3_600_000,
      readTimeoutMs: 5_000,
      read: async (zpid) => {
        order.push(`start ${zpid}`);
        if (zpid === '1') await held;
        order.push(`end ${zpid}`);
        if (zpid === '2') throw new LookupError('upstream_blocked', { details: { reason: 'bot_wall', status: 403 } });
      },
      onRead: (o) => void outcomes.push(o),
    });
    const first = canary.round();
    expect(canary.round()).toBe(first);
    release();
    await first;
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    expect(outcomes).toEqual(['served', 'wall']);
    expect(canary.last()).toMatchObject({ read: 2, served: 1, outcomes: { served: 1, wall: 1 } });
    await canary.close();
  });
});

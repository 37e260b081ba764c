// event_loop_lag_seconds over fixed windows (issue 12 review): a scrape does not reset it, so two
// scrapers see the same figures; a window's figures stand until the next window ends.
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceMetrics } from '../../src/observability/metrics.js';
import { parseMetrics, type Sample } from './prometheus.js';

let metrics: ServiceMetrics | undefined;
afterEach(() => metrics?.close());

const lagOf = async (m: ServiceMetrics): Promise<Sample[]> =>
  parseMetrics((await m.render()).text).filter((s) => s.name === 'event_loop_lag_seconds');

/** Holds the event loop for `ms`, then lets the delay monitor take its sample. */
async function blockLoop(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until);
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('event_loop_lag_seconds', () => {
  it('is the same for every scrape of one window, and moves only when a window ends', async () => {
    metrics = new ServiceMetrics();
    await blockLoop(60);
    metrics.closeLagWindow();
    const first = await lagOf(metrics);
    expect(first.map((s) => s.labels.quantile).sort()).toEqual(['0.99', 'max']);
    expect(first.find((s) => s.labels.quantile === 'max')!.value).toBeGreaterThan(0);
    // A second scraper, later in the same window (after more lag): the same figures.
    await blockLoop(60);
    expect(await lagOf(metrics)).toEqual(first);
    expect(await lagOf(metrics)).toEqual(first);
    // The next window holds only what happened since the first ended.
    metrics.closeLagWindow();
    const second = await lagOf(metrics);
    expect(second.find((s) => s.labels.quantile === 'max')!.value).toBeGreaterThan(0);
  });
});

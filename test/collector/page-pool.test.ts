// The page pool: pages are read on worker threads with the real reader, the bytes are handed over
// (not copied), a full queue is refused with a coded answer, and a worker that dies on a hostile page
// is a coded error the pool recovers from. No timing: reads are held at a gate where order matters.
import { readFileSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { LookupError } from '../../src/contract/index.js';
import { PagePool, type PagePoolOptions } from '../../src/collector/page-pool.js';
import { readPage } from '../../src/collector/read-page.js';
import { SelfHostedCollector } from '../../src/collector/self-hosted.js';
import { SiteClient } from '../../src/collector/site/client.js';
import { WithFallback } from '../../src/collector/with-fallback.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/store/index.js';
import { compiledModule, compiledTestModule } from '../helpers/compiled-src.js';
import { failure } from '../helpers/lookup-error.js';
import { GATE_CHANNEL } from './workers/gated-page-worker.js';

const PAGE = readFileSync(new URL('../../fixtures/portal/hdp-2146993218-condo-for-sale-2024.html', import.meta.url));
const TASK = {
  want: { zpid: '2146993218', building: false },
  scrapedAt: '2026-10-10T12:00:00.000Z',
  now: '2026-10-10T12:00:00.000Z',
};
const copy = () => Buffer.from(PAGE);
// The page workers as this run compiled them (as a build runs the real one): a thread started under
// tsx's loader takes about half a second more, and these tests start a dozen.
const WORKER = compiledModule('collector/page-worker.ts');
const GATED = compiledTestModule('collector/workers/gated-page-worker.ts');

const pools: PagePool[] = [];
const pool = (opts: Partial<PagePoolOptions> = {}) => {
  const p = new PagePool({ workers: 2, maxQueue: 8, worker: WORKER, ...opts });
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** The test's end of the gated worker's channel: waits for reads to start, opens the gate. */
function gate() {
  const channel = new BroadcastChannel(GATE_CHANNEL);
  let started = 0;
  const waiters: Array<() => void> = [];
  channel.onmessage = (m) => {
    if ((m as { data?: unknown }).data !== 'started') return;
    started += 1;
    waiters.splice(0).forEach((w) => w());
  };
  return {
    async started(n: number) {
      while (started < n) await new Promise<void>((r) => waiters.push(r));
    },
    open() {
      channel.postMessage('open');
    },
    close: () => channel.close(),
  };
}

describe('PagePool', () => {
  it('reads a page on a worker to the same record as reading it in place, taking over its bytes', async () => {
    const page = copy();
    const read = await pool().read(page, TASK);
    expect(read).toEqual(readPage({ ...TASK, page: new Uint8Array(PAGE) }));
    expect(read).toMatchObject({
      kind: 'property',
      zpid: '2146993218',
      property: { price: 265000, city: 'Sandy Springs' },
    });
    // Transferred, not copied: the buffer now belongs to the worker's side.
    expect(page.byteLength).toBe(0);
  });

  it('copies a page that shares its memory with other buffers instead of taking that memory away', async () => {
    const small = Buffer.from('<html><body>no data</body></html>');
    expect(small.byteLength).toBeLessThan(small.buffer.byteLength);
    const e = await failure(pool().read(small, TASK));
    expect(e.code).toBe('upstream_bad_response');
    expect(small.toString()).toBe('<html><body>no data</body></html>');
  });

  it('keeps the event loop free while a page is being read on a worker', async () => {
    const g = gate();
    try {
      const p = pool({ worker: GATED });
      const reading = p.read(copy(), TASK);
      // The read is under way on the worker and cannot finish until the gate opens; meanwhile this
      // thread goes on running: it gets the worker's message and starts a second read.
      await g.started(1);
      const second = p.read(copy(), TASK);
      await g.started(2);
      g.open();
      const [a, b] = await Promise.all([reading, second]);
      expect(a).toMatchObject({ kind: 'property', zpid: '2146993218' });
      expect(b).toEqual(a);
    } finally {
      g.close();
    }
  });

  it('refuses a read with upstream_busy and a retry-after when the queue is full, and reads the rest', async () => {
    const g = gate();
    try {
      const p = pool({ worker: GATED, workers: 1, maxQueue: 2 });
      const running = p.read(copy(), TASK);
      await g.started(1);
      const queued = [p.read(copy(), TASK), p.read(copy(), TASK)];
      const e = await failure(p.read(copy(), TASK));
      expect(e.code).toBe('upstream_busy');
      expect(e.status).toBe(503);
      expect(e.retryAfterSeconds).toBe(1);
      expect(e.details).toMatchObject({ reason: 'page_readers_busy', queued: 2 });
      g.open();
      for (const r of await Promise.all([running, ...queued]))
        expect(r).toMatchObject({ kind: 'property', zpid: '2146993218' });
    } finally {
      g.close();
    }
  });

  // Ends on the worker's exit and the next read, never on a clock: the bound is only for a machine so
  // loaded that the worker's start and its collection up to the heap limit crawl.
  it('turns a worker that dies on a hostile page into upstream_bad_response, and keeps reading pages', {
    timeout: 120_000,
  }, async () => {
    // A page whose data expands past the worker's heap limit: 400,000 small objects (some 35 MB parsed)
    // for a 16 MB heap, so the worker is killed, not the process. Written as text (String.repeat), not
    // built as objects and serialized: on a loaded machine that construction alone took seconds.
    const cache = `{"Q{}":{"property":{"zpid":1,"blob":[${'{"k":[1,2]},'.repeat(400_000)}{"k":[1,2]}]}}}`;
    const hostile = Buffer.from(
      `<html><head></head><body><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps: { componentProps: { gdpClientCache: cache } } } })}</script></body></html>`,
    );
    const p = pool({ workers: 1, workerMemoryMb: 16 });
    const e = await failure(p.read(hostile, TASK));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toEqual({ reason: 'page_reader_failed' });
    expect(await p.read(copy(), TASK)).toMatchObject({ kind: 'property', zpid: '2146993218' });
  });

  it("passes on the reader's coded errors and the bot wall as they are", async () => {
    const wall = readFileSync(new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url));
    expect(await pool().read(wall, TASK)).toEqual({ kind: 'blocked' });
    const truncated = readFileSync(
      new URL('../../fixtures/portal/synthetic/malformed-truncated.html', import.meta.url),
    );
    const e = await failure(pool().read(truncated, TASK));
    expect(e.code).toBe('upstream_bad_response');
    expect(e.details).toMatchObject({ reason: expect.any(String) });
  });

  it('refuses reads once closed, with a coded error, and starts no worker again', async () => {
    const p = pool({ workers: 1 });
    await p.read(copy(), TASK);
    await p.close();
    const e = await failure(p.read(copy(), TASK));
    expect({ code: e.code, reason: e.details?.reason, retryAfter: e.retryAfterSeconds }).toEqual({
      code: 'upstream_busy',
      reason: 'shutting_down',
      retryAfter: 1,
    });
    expect(p.threads).toBe(0);
  });

  it('cancels a read with its lookup: a queued page and a running one end with the abort reason', async () => {
    const g = gate();
    try {
      const p = pool({ worker: GATED, workers: 1, maxQueue: 4 });
      const running = new AbortController();
      const reading = p.read(copy(), TASK, running.signal);
      await g.started(1);
      const queued = new AbortController();
      const waiting = p.read(copy(), TASK, queued.signal);
      const reason = new LookupError('batch_deadline', { details: { reason: 'aborted at the deadline' } });
      queued.abort(reason);
      expect(await failure(waiting)).toBe(reason);
      // No reason of the service's own (the client went away): the code the site client uses for it.
      running.abort();
      const e = await failure(reading);
      expect({ code: e.code, details: e.details }).toEqual({
        code: 'upstream_timeout',
        details: { reason: 'aborted' },
      });
      // The stopped worker is replaced: the pool still reads the next page.
      const next = p.read(copy(), TASK);
      await g.started(2);
      g.open();
      expect(await next).toMatchObject({ kind: 'property', zpid: '2146993218' });
    } finally {
      g.close();
    }
  });
});

describe('PagePool in the service', () => {
  it('stops its workers when the app closes', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const pages = new PagePool({ workers: 1, maxQueue: 4, worker: WORKER });
    const own = new SelfHostedCollector({
      origin: 'http://127.0.0.1:9',
      suggestUrl: 'http://127.0.0.1:9/suggest',
      client: new SiteClient({ budgetMs: 1_000 }),
      pages,
      clock: () => new Date(),
    });
    const app = await buildApp({
      config,
      store: new MemoryStore(),
      collector: new WithFallback(own, null),
      logger: pino({ level: 'silent' }),
    });
    await pages.read(copy(), TASK);
    expect(pages.threads).toBeGreaterThan(0);
    await app.close();
    expect(pages.threads).toBe(0);
  });
});

// Listing pages are read (decoded, extracted, mapped: a few ms of CPU each) on worker threads, so the
// event loop stays free for cache hits. The queue is bounded: when it is full a read is refused at
// once with upstream_busy and a short retry-after, instead of piling pages (about 1 MB each) up in memory.
// A read is cancelled with its lookup (a queued page is dropped, a running worker stopped), and a closed
// pool refuses reads instead of starting its workers again.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { Piscina } from 'piscina';
import { instanceBusy, LookupError } from '../contract/index.js';
import { failureError, type PageRead, type PageFailure, type PageTask } from './read-page.js';
import { transportError } from './http-errors.js';
import type { PageWorkersStatus } from './types.js';

type TransferList = NonNullable<Parameters<Piscina['run']>[1]>['transferList'];

export interface PagePoolOptions {
  /** Worker threads (config.pageWorkers). */
  workers: number;
  /** Pages that may wait for a worker (config.pageQueueMax). */
  maxQueue: number;
  /** Heap limit of one worker, MB: a hostile page that needs more fails alone. */
  workerMemoryMb?: number;
  /** The worker's module (default page-worker); tests give one that holds reads at a gate. */
  worker?: URL;
}

const DEFAULT_WORKER_MEMORY_MB = 256;
/** Seconds a refused read should wait: the queue drains in well under a second. */
const BUSY_RETRY_AFTER = 1;

const WORKER = new URL(import.meta.url.endsWith('.ts') ? './page-worker.ts' : './page-worker.js', import.meta.url);

// Run from TypeScript (tsx, vitest) the worker is a .ts file and needs tsx's loader; run from the
// compiled build it is the .js file beside this one.
const execArgvFor = (worker: URL): string[] =>
  worker.pathname.endsWith('.ts')
    ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
    : [];

/** The page as a Uint8Array owning its whole ArrayBuffer, which can be transferred (a pooled slice cannot). */
function transferable(page: Buffer): Uint8Array {
  if (page.byteOffset === 0 && page.byteLength === page.buffer.byteLength)
    return new Uint8Array(page.buffer, 0, page.byteLength);
  return new Uint8Array(page);
}

export class PagePool {
  private pool: Piscina<PageTask, PageRead | PageFailure> | null = null;
  private closed = false;

  constructor(private readonly opts: PagePoolOptions) {}

  /**
   * Reads one page on a worker. The page's bytes are handed over: the caller must not use them again.
   * An abort of `signal` ends the read with the lookup's abort reason.
   */
  async read(page: Buffer, task: Omit<PageTask, 'page'>, signal?: AbortSignal): Promise<PageRead> {
    if (this.closed)
      throw instanceBusy('shutting_down', { message: 'The page readers are stopped: this instance is shutting down.' });
    const pool = (this.pool ??= this.start());
    if (pool.queueSize >= this.opts.maxQueue) {
      throw new LookupError('upstream_busy', {
        message: 'Too many listing pages are waiting to be read. Retry after the retry-after header.',
        details: { reason: 'page_readers_busy', queued: pool.queueSize },
        retryAfter: BUSY_RETRY_AFTER,
      });
    }
    const bytes = transferable(page);
    let outcome: PageRead | PageFailure;
    try {
      outcome = await pool.run(
        { ...task, page: bytes },
        // piscina types its transfer list from MessagePort#postMessage's last overload, which @types/node 26
        // gives an options object; at run time it is the array postMessage transfers.
        { transferList: [bytes.buffer as ArrayBuffer] as unknown as TransferList, signal: signal ?? null },
      );
    } catch (e) {
      if (signal?.aborted) throw transportError(e, signal);
      // The worker died on this page (out of memory, a crash): piscina replaces it; the page is unreadable.
      throw new LookupError('upstream_bad_response', { details: { reason: 'page_reader_failed' }, cause: e });
    }
    if ('failure' in outcome) throw failureError(outcome);
    return outcome;
  }

  status(): PageWorkersStatus {
    return {
      threads: this.threads,
      maxThreads: this.opts.workers,
      queued: this.pool?.queueSize ?? 0,
      maxQueue: this.opts.maxQueue,
      closed: this.closed,
    };
  }

  /** Worker threads running: none before the first read and after close. */
  get threads(): number {
    return this.pool?.threads.length ?? 0;
  }

  /** Stops the workers; later reads are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }

  private start(): Piscina<PageTask, PageRead | PageFailure> {
    const worker = this.opts.worker ?? WORKER;
    return new Piscina({
      filename: fileURLToPath(worker),
      minThreads: 1,
      maxThreads: this.opts.workers,
      // Workers past the first stay a while, so bursts do not pay for thread start-up each time.
      idleTimeout: 60_000,
      execArgv: execArgvFor(worker),
      resourceLimits: { maxOldGenerationSizeMb: this.opts.workerMemoryMb ?? DEFAULT_WORKER_MEMORY_MB },
    });
  }
}

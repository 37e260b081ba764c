// The queue of job chunks: BullMQ on Redis (one queue job per chunk, jobId `<job>-<chunk>`; a chunk
// whose worker died is taken over by another once its lock lapses, BullMQ's stalled-job check), or, without
// Redis, an in-process runner with the same semantics (a chunk at a time per slot, waits by timer, retried
// on error; lost on restart). Either way a chunk asked to wait is run again at the time it names.
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { bullConnection, bullOptions, closeWithin } from '../queue/bull.js';
import { boundQueueCall } from '../store/fail-fast.js';
import type { RedisClient } from '../store/redis-connection.js';
import type { ChunkOutcome } from './chunk.js';

export interface ChunkRef {
  job: string;
  chunk: number;
}

export type ChunkHandler = (ref: ChunkRef) => Promise<ChunkOutcome>;
/** Called once a chunk failed past its retries. */
export type ChunkFailure = (ref: ChunkRef, err: unknown) => Promise<void>;

export interface ChunkRunner {
  /** Its queue is shared by every process (BullMQ on Redis); else only this process runs its chunks. */
  readonly shared: boolean;
  enqueue(job: string, chunks: number): Promise<void>;
  /**
   * Drops the job's chunks that have not started, except those in `keep` (best effort: a run checks the
   * job's status first).
   */
  remove(job: string, chunks: number, keep?: ReadonlySet<number>): Promise<void>;
  start(handle: ChunkHandler, failed: ChunkFailure): Promise<void>;
  close(): Promise<void>;
}

/** Attempts of a chunk that throws (the store unreachable, say) before the job fails. */
const ATTEMPTS = 8;
const BACKOFF_MS = 1_000;

// BullMQ ids may not contain ':'.
const bullJobId = (ref: ChunkRef): string => `${ref.job}-${ref.chunk}`;

export class BullChunkRunner implements ChunkRunner {
  readonly shared = true;
  #connection: RedisClient | null = null;
  #queue: Queue | null = null;
  #worker: Worker | null = null;
  #workerConnection: RedisClient | null = null;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  #conn(): RedisClient {
    return (this.#connection ??= bullConnection(this.config));
  }

  #q(): Queue {
    return (this.#queue ??= new Queue('jobs', {
      ...bullOptions(this.config, 'jobs', this.#conn()),
      defaultJobOptions: {
        attempts: ATTEMPTS,
        backoff: { type: 'exponential', delay: BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    }));
  }

  // A request waits on these two: bounded as any store call (store/fail-fast.ts), never through a reconnection.
  async enqueue(job: string, chunks: number): Promise<void> {
    const refs = Array.from({ length: chunks }, (_, chunk) => ({ job, chunk }));
    await boundQueueCall(this.#conn(), this.config.redisCommandTimeoutMs, () =>
      this.#q().addBulk(refs.map((ref) => ({ name: 'chunk', data: ref, opts: { jobId: bullJobId(ref) } }))),
    );
  }

  async remove(job: string, chunks: number, keep: ReadonlySet<number> = new Set()): Promise<void> {
    // A chunk running (locked) is not removed: it sees the job cancelled, or finishes its write. Best effort:
    // a chunk left queued (the queue unreachable now) finds the job cancelled when it runs.
    const drop = Array.from({ length: chunks }, (_, chunk) => chunk).filter((chunk) => !keep.has(chunk));
    await boundQueueCall(this.#conn(), this.config.redisCommandTimeoutMs, () =>
      Promise.all(
        drop.map((chunk) =>
          this.#q()
            .remove(bullJobId({ job, chunk }))
            .catch(() => 0),
        ),
      ),
    ).catch(() => undefined);
  }

  async start(handle: ChunkHandler, failed: ChunkFailure): Promise<void> {
    if (this.#worker) return;
    const worker = new Worker<ChunkRef>(
      'jobs',
      async (job: Job<ChunkRef>, token?: string) => {
        const outcome = await handle(job.data);
        if (outcome.kind === 'later') {
          await job.moveToDelayed(Math.max(outcome.at, Date.now()), token);
          throw new DelayedError();
        }
      },
      {
        ...bullOptions(this.config, 'jobs', (this.#workerConnection = bullConnection(this.config))),
        concurrency: this.config.jobConcurrency,
        // A killed worker's chunk is taken over once its lock lapses (checked as often as the lock lasts).
        lockDuration: this.config.jobLockMs,
        stalledInterval: this.config.jobLockMs,
        maxStalledCount: 100,
      },
    );
    worker.on('failed', (job, err) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
        void failed(job.data, err).catch((e: unknown) => this.logger.error({ err: e }, 'job failure not recorded'));
      else this.logger.warn({ err, chunk: job?.id }, 'job chunk failed; it is retried');
    });
    worker.on('error', (err) => this.logger.warn({ err }, 'job worker error'));
    this.#worker = worker;
    await worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await closeWithin(this.#worker?.close());
    await closeWithin(this.#queue?.close());
    // Connections given to BullMQ are the caller's to close.
    this.#workerConnection?.disconnect();
    this.#connection?.disconnect();
  }
}

/** Chunks run in this process: a queue, `concurrency` at a time, waits and retries by timer. */
export class MemoryChunkRunner implements ChunkRunner {
  readonly shared = false;
  readonly #waiting: { ref: ChunkRef; attempt: number }[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #removed = new Set<string>();
  #running = 0;
  #handle: ChunkHandler | null = null;
  #failed: ChunkFailure | null = null;
  #closed = false;

  constructor(
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {}

  async enqueue(job: string, chunks: number): Promise<void> {
    for (let chunk = 0; chunk < chunks; chunk += 1) this.#waiting.push({ ref: { job, chunk }, attempt: 0 });
    this.#pump();
  }

  async remove(job: string, chunks: number, keep: ReadonlySet<number> = new Set()): Promise<void> {
    for (let chunk = 0; chunk < chunks; chunk += 1) if (!keep.has(chunk)) this.#removed.add(bullJobId({ job, chunk }));
    for (let i = this.#waiting.length - 1; i >= 0; i -= 1) {
      const { ref } = this.#waiting[i]!;
      if (ref.job === job && !keep.has(ref.chunk)) this.#waiting.splice(i, 1);
    }
  }

  async start(handle: ChunkHandler, failed: ChunkFailure): Promise<void> {
    this.#handle = handle;
    this.#failed = failed;
    this.#pump();
  }

  #later(item: { ref: ChunkRef; attempt: number }, at: number): void {
    const t = setTimeout(
      () => {
        this.#timers.delete(t);
        if (this.#removed.has(bullJobId(item.ref))) return;
        this.#waiting.push(item);
        this.#pump();
      },
      Math.max(0, at - Date.now()),
    );
    this.#timers.add(t);
  }

  #pumping = false;

  /** Starts what may start, on a later turn: the caller (create) answers first, and a cancel right after lands before the chunk starts. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    setImmediate(() => {
      this.#pumping = false;
      this.#startWaiting();
    });
  }

  #startWaiting(): void {
    while (!this.#closed && this.#handle && this.#running < this.concurrency && this.#waiting.length > 0) {
      const item = this.#waiting.shift()!;
      this.#running += 1;
      void this.#run(item).finally(() => {
        this.#running -= 1;
        this.#pump();
      });
    }
  }

  async #run(item: { ref: ChunkRef; attempt: number }): Promise<void> {
    try {
      const outcome = await this.#handle!(item.ref);
      if (outcome.kind === 'later') this.#later(item, outcome.at);
    } catch (err) {
      if (this.#closed) return;
      if (item.attempt + 1 >= ATTEMPTS) {
        await this.#failed!(item.ref, err).catch((e: unknown) =>
          this.logger.error({ err: e }, 'job failure not recorded'),
        );
        return;
      }
      this.logger.warn({ err, job: item.ref.job, chunk: item.ref.chunk }, 'job chunk failed; it is retried');
      this.#later({ ref: item.ref, attempt: item.attempt + 1 }, Date.now() + BACKOFF_MS * 2 ** item.attempt);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}

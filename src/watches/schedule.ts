// When checks run. On Redis: one BullMQ job scheduler per watch on the queue `watches` (its id is the
// watch's id), so the schedule lives in Redis: a restart keeps it, and any number of instances share
// it, each iteration a job with its own id (`repeat:<watch>:<millis>`) that one worker takes. Without
// Redis: timers in this process (lost on restart, as docs/watches-and-webhooks.md says).
import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { bullConnection, bullOptions } from '../queue/bull.js';
import { boundQueueCall } from '../store/fail-fast.js';
import type { RedisClient } from '../store/redis-connection.js';

/** Thrown by a check that must run again shortly (refused for a budget, the store unreachable). */
export class CheckLater extends Error {
  constructor(
    readonly code: string,
    opts?: ErrorOptions,
  ) {
    super(`watch check to run again: ${code}`, opts);
  }
}

/** Runs of one iteration (the first and its retries after CheckLater), and the first retry's delay (doubling). */
const CHECK_ATTEMPTS = 6;
const RETRY_BASE_MS = 2_000;

/** One check to run: which watch, and the iteration (a BullMQ job id, or a new id in process). */
export interface CheckRun {
  account: string;
  watchId: string;
  iteration: string;
  /**
   * A re-run of an iteration whose worker died (BullMQ's stalled-job recovery): the iteration's scheduled
   * time (ms), so a read the first run made since is a fresh hit, not billed twice.
   */
  rerunSince?: number;
}

export interface WatchScheduler {
  /** The first check at once, then one every `everyMs`. */
  schedule(account: string, watchId: string, everyMs: number): Promise<void>;
  unschedule(watchId: string): Promise<void>;
  /**
   * Runs the checks in this process from now on, WORKER_CONCURRENCY at a time (watches made together
   * queue for their first check, none is dropped); a check that throws CheckLater runs again later.
   */
  start(run: (check: CheckRun) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Checks of one process at once (each a single live lookup). */
const WORKER_CONCURRENCY = 4;
/** How long close waits for checks under way before leaving them to BullMQ's stalled-job recovery. */
const CLOSE_WAIT_MS = 5_000;
/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Timed {
  account: string;
  everyMs: number;
  next: number;
  timer: NodeJS.Timeout | null;
  running: boolean;
}

export class TimerScheduler implements WatchScheduler {
  readonly #watches = new Map<string, Timed>();
  #run: ((check: CheckRun) => Promise<void>) | null = null;
  /** Checks due and not yet running, in the order they came due. */
  readonly #due: { watchId: string; timed: Timed; check: CheckRun; attempt: number }[] = [];
  #running = 0;

  constructor(private readonly newId: () => string) {}

  async schedule(account: string, watchId: string, everyMs: number): Promise<void> {
    const timed: Timed = { account, everyMs, next: Date.now(), timer: null, running: false };
    this.#watches.set(watchId, timed);
    if (this.#run) this.#arm(watchId, timed);
  }

  async unschedule(watchId: string): Promise<void> {
    const timed = this.#watches.get(watchId);
    if (timed?.timer) clearTimeout(timed.timer);
    this.#watches.delete(watchId);
  }

  async start(run: (check: CheckRun) => Promise<void>): Promise<void> {
    this.#run = run;
    for (const [id, timed] of this.#watches) this.#arm(id, timed);
  }

  /** Waits for `next` (in steps a timer can take), runs the check unless the last is still running, and again. */
  #arm(watchId: string, timed: Timed): void {
    const wait = Math.max(0, timed.next - Date.now());
    timed.timer = setTimeout(
      () => {
        if (this.#watches.get(watchId) !== timed || !this.#run) return;
        if (Date.now() < timed.next) return this.#arm(watchId, timed);
        const scheduled = timed.next;
        timed.next += timed.everyMs;
        if (!timed.running) {
          timed.running = true;
          this.#due.push({
            watchId,
            timed,
            check: { account: timed.account, watchId, iteration: `${this.newId()}:${scheduled}` },
            attempt: 0,
          });
          this.#pump();
        }
        this.#arm(watchId, timed);
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timed.timer.unref();
  }

  /** Starts due checks while fewer than WORKER_CONCURRENCY run. */
  #pump(): void {
    while (this.#run && this.#running < WORKER_CONCURRENCY && this.#due.length > 0) {
      const due = this.#due.shift()!;
      if (this.#watches.get(due.watchId) !== due.timed) continue;
      this.#running += 1;
      const run = this.#run;
      void run(
        due.attempt === 0 ? due.check : { ...due.check, rerunSince: Number(due.check.iteration.split(':').pop()) },
      )
        .then(
          () => (due.timed.running = false),
          (e: unknown) => {
            if (!(e instanceof CheckLater) || due.attempt + 1 >= CHECK_ATTEMPTS) return (due.timed.running = false);
            const retry = setTimeout(
              () => {
                this.#due.push({ ...due, attempt: due.attempt + 1 });
                this.#pump();
              },
              RETRY_BASE_MS * 2 ** due.attempt,
            );
            retry.unref();
            return undefined;
          },
        )
        .finally(() => {
          this.#running -= 1;
          this.#pump();
        });
    }
  }

  async close(): Promise<void> {
    this.#run = null;
    for (const timed of this.#watches.values()) if (timed.timer) clearTimeout(timed.timer);
  }
}

export class BullScheduler implements WatchScheduler {
  #connection: RedisClient | null = null;
  #queue: Queue | null = null;
  #worker: Worker | null = null;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  #conn(): RedisClient {
    return (this.#connection ??= bullConnection(this.config));
  }

  #q(): Queue {
    return (this.#queue ??= new Queue('watches', bullOptions(this.config, 'watches', this.#conn())));
  }

  // A request waits on these two: bounded as any store call (store/fail-fast.ts), never through a reconnection.
  async schedule(account: string, watchId: string, everyMs: number): Promise<void> {
    await boundQueueCall(this.#conn(), this.config.redisCommandTimeoutMs, () =>
      this.#q().upsertJobScheduler(
        watchId,
        { every: everyMs },
        {
          name: 'check',
          data: { account, watchId },
          // A check that throws CheckLater (a budget, an outage) is run again with backoff, a few times.
          opts: {
            removeOnComplete: true,
            removeOnFail: 100,
            attempts: CHECK_ATTEMPTS,
            backoff: { type: 'exponential', delay: RETRY_BASE_MS },
          },
        },
      ),
    );
  }

  async unschedule(watchId: string): Promise<void> {
    await boundQueueCall(this.#conn(), this.config.redisCommandTimeoutMs, () => this.#q().removeJobScheduler(watchId));
  }

  async start(run: (check: CheckRun) => Promise<void>): Promise<void> {
    if (this.#worker) return;
    this.#worker = new Worker<{ account: string; watchId: string }>(
      'watches',
      async (job) => {
        const rerun = job.attemptsStarted > 1 || job.stalledCounter > 0;
        // The scheduler's job id ends with the iteration's scheduled time: repeat:<watch>:<millis>.
        const scheduled = Number(job.id!.split(':').pop());
        return run({
          account: job.data.account,
          watchId: job.data.watchId,
          iteration: job.id!,
          ...(rerun ? { rerunSince: Number.isFinite(scheduled) ? scheduled : job.timestamp } : {}),
        });
      },
      { ...bullOptions(this.config, 'watches', this.#conn()), concurrency: WORKER_CONCURRENCY },
    );
    this.#worker.on('error', (e) => this.logger.warn({ err: e }, 'watch worker error'));
    await this.#worker.waitUntilReady();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (worker) {
      let timer: NodeJS.Timeout | undefined;
      // A check still running after CLOSE_WAIT_MS is not waited for (worker.close(true) would be no help:
      // BullMQ answers a second close with the first, still waiting): the connection's end below stops
      // its lock renewals, and BullMQ's stalled-job check gives the iteration to another worker.
      const closing = worker.close().catch((e: unknown) => this.logger.warn({ err: e }, 'watch worker close failed'));
      await Promise.race([closing, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    }
    await this.#queue?.close();
    this.#queue = null;
    this.#connection?.disconnect();
    this.#connection = null;
  }
}

// The one outage rule of every Redis call a request waits on: the shared store's (redis.ts), the job
// store's, the watch store's, and a request's calls on the BullMQ queues (queue/bull.ts: a job's chunks,
// a watch's schedule, a webhook's delivery). A store that cannot be reached answers 503 store_unavailable
// (retry-after 30 s, the contract's error table), never a 500 and never a hung request, within the same
// bound wherever it is met:
//
// - The client fails fast (failFastOptions): no offline queue, no retry of a command, no resend after a
//   reconnection; the connection itself is retried forever in the background (every ≤ 1 s), so the same
//   instance recovers by itself once Redis is back.
// - A call is bounded (boundStoreCall) by the command timeout, REDIS_COMMAND_TIMEOUT_MS: that is what a
//   frozen Redis (its connections open, nothing answering) needs, which no connection error reports.
// - Every failure becomes LookupError('store_unavailable'); a LookupError of the call's own is kept.
//
// A busy process is not a dead store: the bound is this file's own, not ioredis', and it only blames the
// store for silence while this process was free to hear an answer (the event loop spent at least half the
// window idle, waiting for I/O, as a share: a blocked loop stretches the window), and decides only after
// the poll phase has read any answer already in the socket. A window the loop spent busy (a saturated
// process: timers fire late, before the answer that is already in the socket is read) does not count;
// after a few such windows the call is shed as 503 `upstream_busy` with reason `overloaded` (retry-after 1 s).
import { performance } from 'node:perf_hooks';
import type { RedisOptions } from 'ioredis';
import { instanceBusy, isLookupError, LookupError } from '../contract/errors.js';
import { createRedisClient, type RedisClient, type RedisTarget } from './redis-connection.js';

/** Share of a timeout window the event loop must have spent idle for the store's silence to count. */
const IDLE_SHARE = 0.5;
/** Windows a call may wait while the process is too busy to judge the store, before it is shed. */
const MAX_BUSY_WINDOWS = 5;

/** A store call: what boundStoreCall does for a store, given its timeout (see FailFastRedis.run). */
export type StoreCall = <T>(call: () => Promise<T>) => Promise<T>;

/** The store's one failure; its retry-after (30 s) comes from the contract's error table. */
export function storeUnavailable(cause: unknown): LookupError {
  return new LookupError('store_unavailable', { cause });
}

/** A failure as the store reports it: a LookupError as it is, anything else store_unavailable. */
const classify = (e: unknown): LookupError => (isLookupError(e) ? e : storeUnavailable(e));

export interface FailFastOptions {
  /** TCP connect timeout (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts (default 1000 ms). */
  maxReconnectDelayMs?: number;
}

/** The client options of the rule (lazy: the caller connects, see FailFastRedis). */
export function failFastOptions(opts: FailFastOptions = {}): RedisOptions {
  const maxDelay = opts.maxReconnectDelayMs ?? 1000;
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: opts.connectTimeoutMs ?? 1000,
    retryStrategy: (times: number) => Math.min(times * 100, maxDelay),
    enableReadyCheck: true,
    lazyConnect: true,
  };
}

/**
 * Runs one store call within `timeoutMs` (judged as above): any failure (down, no answer, reply error)
 * becomes store_unavailable, and a process too busy to read the answer sheds the call as upstream_busy.
 */
export function boundStoreCall<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = call();
  } catch (e) {
    return Promise.reject(classify(e));
  }
  return new Promise<T>((resolve, reject) => {
    let busyWindows = 0;
    let settled = false;
    let since = performance.eventLoopUtilization();
    const decide = () => {
      if (settled) return;
      const window = performance.eventLoopUtilization(since);
      since = performance.eventLoopUtilization();
      // The share, not the idle time: a window stretched by a blocked loop is mostly busy.
      if (window.idle >= (window.idle + window.active) * IDLE_SHARE) {
        settled = true;
        reject(storeUnavailable(new Error(`no answer within ${timeoutMs} ms`)));
      } else if (++busyWindows >= MAX_BUSY_WINDOWS) {
        settled = true;
        reject(instanceBusy('overloaded', { cause: new Error(`event loop busy for ${busyWindows} command windows`) }));
      } else {
        timer = setTimeout(judge, timeoutMs);
      }
    };
    // Timers run before the poll phase: decide after it, so an answer that reached the socket while
    // the loop was blocked is read first and not blamed on the store.
    const judge = () => setImmediate(decide);
    let timer = setTimeout(judge, timeoutMs);
    pending.then(
      (v) => {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(classify(e));
      },
    );
  });
}

/** Without a time bound (a store made over a client the caller opened, as tests do): failures are still store_unavailable. */
export const classifiedCall: StoreCall = (call) => {
  try {
    return call().catch((e: unknown) => Promise.reject(classify(e)));
  } catch (e) {
    return Promise.reject(classify(e));
  }
};

/**
 * A client of the configured Redis under the rule: connecting from the start; `run` bounds each call,
 * and a call made before the first connection has settled waits for it within the same bound (without
 * an offline queue a command sent while connecting would fail at once).
 */
export class FailFastRedis {
  readonly client: RedisClient;
  readonly #firstConnect: Promise<void>;
  #connected = false;

  constructor(
    target: RedisTarget,
    private readonly timeoutMs: number,
    opts: FailFastOptions = {},
  ) {
    this.client = createRedisClient(target, failFastOptions(opts));
    // Reported by the calls that fail; the client reconnects by itself.
    this.client.on('error', () => undefined);
    // The first attempt may fail (Redis down): the retry strategy keeps trying in the background.
    this.#firstConnect = this.client
      .connect()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.#connected = true;
      });
  }

  /** One call under the rule. */
  readonly run: StoreCall = (call) =>
    boundStoreCall(async () => {
      if (!this.#connected) await this.#firstConnect;
      return call();
    }, this.timeoutMs);
}

/**
 * A request's call on a connection that waits through reconnections (BullMQ's, which its workers need):
 * refused at once while that connection is down (nothing is left queued to run later), else bounded and
 * classified as any store call.
 */
export function boundQueueCall<T>(connection: RedisClient, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  const status = connection.status;
  if (status === 'reconnecting' || status === 'close' || status === 'end') {
    return Promise.reject(storeUnavailable(new Error(`queue connection ${status}`)));
  }
  return boundStoreCall(call, timeoutMs);
}

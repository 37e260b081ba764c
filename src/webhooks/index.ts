// Webhook delivery: events queued durably and sent at least once, signed per Standard Webhooks with
// the account's secret as it is at each attempt. On Redis: the BullMQ queue `webhooks` (any process
// running startWorker delivers); without Redis: timers in this process (lost on restart). Both retry
// on the same schedule: WEBHOOK_RETRY_BASE_MS doubling, 11 attempts in all (about a day by default).
// Every attempt is one log line, and one entry of the account's attempt log (deliveries.ts), which the
// account reads (GET /v1/webhooks/deliveries) and from which it has an event sent again (redeliver: the
// same webhook-id and body, one attempt).
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LookupError } from '../contract/errors.js';
import type { Store } from '../store/index.js';
import { bullConnection, bullOptions, closeWithin } from '../queue/bull.js';
import { boundQueueCall } from '../store/fail-fast.js';
import type { RedisClient } from '../store/redis-connection.js';
import { attemptDelivery, type Delivery } from './deliver.js';
import type { DeliveryLog, DeliveryRecord } from './deliveries.js';
import { accountWebhookSecrets } from './secret.js';
import { WEBHOOK_ATTEMPTS, type WebhookDeliveries, type WebhookEvent, type Webhooks } from './types.js';
import { checkWebhookUrl, hostOf } from './url-guard.js';

export {
  WEBHOOK_ATTEMPTS,
  type WebhookDeliveries,
  type Webhooks,
  type WebhookEvent,
  type WebhookEventType,
} from './types.js';
export { MemoryDeliveryLog, RedisDeliveryLog, type DeliveryLog } from './deliveries.js';
export { verifyWebhook, WebhookVerificationError } from '../contract/webhook-signature.js';

/** Deliveries kept (for dedupe on webhook-id and inspection) after they end. */
const KEEP = { age: 7 * 24 * 3600, count: 10_000 };
const CONCURRENCY = 16;

/** The wait after failed attempt `attempt` (1-based): base × 2^(attempt-1). */
export const retryDelayMs = (config: Pick<Config, 'webhookRetryBaseMs'>, attempt: number): number =>
  config.webhookRetryBaseMs * 2 ** (attempt - 1);

/** The webhook-id: derived from the event's own id when it has one, so sending it again is not a second delivery. */
export function webhookId(accountId: string, event: WebhookEvent): string {
  if (event.id === undefined) return `msg_${randomUUID().replace(/-/g, '')}`;
  return `msg_${createHash('sha256').update(`${accountId}\0${event.type}\0${event.id}`).digest('base64url').slice(0, 32)}`;
}

/** What deliveries need of the process: its configuration, store (accounts' secrets), clock and log. */
export type WebhookDeps = { config: Config; store: Store; clock: () => Date; logger: Logger };
type Deps = WebhookDeps;

/** `runner`: where deliveries are queued and attempted, in memory or on BullMQ (src/backend.ts). */
export function createWebhooks(deps: Deps, runner: WebhookRunner): Webhooks & WebhookDeliveries {
  const { config } = deps;
  return {
    async checkUrl(raw, param) {
      return (
        await checkWebhookUrl(raw, param, {
          allowPrivate: config.webhookAllowPrivate,
          timeoutMs: config.webhookTimeoutMs,
        })
      ).url.href;
    },
    async send(account, url, event) {
      const delivery: Delivery = {
        id: webhookId(account.id, event),
        accountId: account.id,
        url,
        type: event.type,
        body: JSON.stringify({ type: event.type, timestamp: deps.clock().toISOString(), data: event.data }),
      };
      await runner.enqueue(delivery);
      return delivery.id;
    },
    deliveries: (account, page) => runner.deliveries.list(account.id, page),
    async redeliver(account, id) {
      const found = await runner.deliveries.get(account.id, id);
      if (!found) throw new LookupError('not_found', { message: 'No such delivery.' });
      // The same event (webhook-id, body) to the same URL, one attempt now.
      await runner.enqueue({ ...found.event, redelivery: true });
      return found.delivery;
    },
    startWorker: () => runner.start(),
    close: () => runner.close(),
  };
}

export interface WebhookRunner {
  /** Where every attempt is recorded (and read back by the account). */
  readonly deliveries: DeliveryLog;
  /** Queues `d`; a redelivery is queued even when the same webhook-id was before. */
  enqueue(d: Delivery): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown when retrying cannot help (the account is gone). */
class GiveUp extends Error {}

/** Attempts a delivery gets in all: a redelivery one. */
const attemptsOf = (d: Delivery): number => (d.redelivery ? 1 : WEBHOOK_ATTEMPTS);

/**
 * One attempt, logged and recorded in the account's attempt log (the one place both runners record).
 * Resolves when delivered; throws to be retried (GiveUp: not to be). `attempt` is 1-based; the log line
 * says the wait before the next one (null: none left).
 */
async function runAttempt(
  deps: Deps,
  log: Logger,
  deliveries: DeliveryLog,
  d: Delivery,
  attempt: number,
  signal: AbortSignal,
): Promise<void> {
  const fields = { webhookId: d.id, type: d.type, account: d.accountId, attempt, host: safeHost(d.url) };
  const nextRetryMs = attempt < attemptsOf(d) ? retryDelayMs(deps.config, attempt) : null;
  let secrets: string[] | null;
  try {
    secrets = await accountWebhookSecrets(deps.store, d.accountId, deps.config.apiKeySecret, deps.clock());
  } catch (e) {
    // The store is down: a failed attempt like any other, logged (the runner retries it).
    logFailed({ ...fields, status: null, error: (e as Error).message, nextRetryMs });
    throw e;
  }
  if (secrets === null) {
    log.warn({ ...fields, nextRetryMs: null }, 'webhook dropped: the account is gone');
    throw new GiveUp('the account is gone');
  }
  const started = performance.now();
  try {
    const status = await attemptDelivery(d, {
      secrets,
      allowPrivate: deps.config.webhookAllowPrivate,
      timeoutMs: deps.config.webhookTimeoutMs,
      signal,
    });
    log.info({ ...fields, status }, 'webhook delivered');
    await record({ ok: true, status, error: null, next_retry_at: null });
  } catch (e) {
    const err = e as Error & { status?: number | null };
    logFailed({ ...fields, status: err.status ?? null, error: err.message, nextRetryMs });
    const at = deps.clock().getTime();
    await record({
      ok: false,
      status: err.status ?? null,
      error: err.message,
      next_retry_at: nextRetryMs === null ? null : new Date(at + nextRetryMs).toISOString(),
    });
    throw e;
  }

  /** The attempt in the account's log; a log that cannot be written loses the entry, never the delivery. */
  async function record(outcome: Pick<DeliveryRecord, 'ok' | 'status' | 'error' | 'next_retry_at'>): Promise<void> {
    // An attempt cut short by the process closing is no answer of the receiver's: it runs again elsewhere.
    if (signal.aborted) return;
    const entry: DeliveryRecord = {
      webhook_id: d.id,
      type: d.type,
      url: d.url,
      attempt,
      redelivery: d.redelivery === true,
      ...outcome,
      duration_ms: Math.round(performance.now() - started),
      at: deps.clock().toISOString(),
    };
    try {
      await deliveries.record(d, entry);
    } catch (err) {
      log.warn({ ...fields, err }, 'webhook attempt not recorded in the attempt log');
    }
  }

  function logFailed(line: typeof fields & { status: number | null; error: string; nextRetryMs: number | null }): void {
    if (line.nextRetryMs === null) log.error(line, 'webhook attempt failed; no attempts left, given up');
    else log.warn(line, 'webhook attempt failed; will retry');
  }
}

const safeHost = (url: string): string => {
  try {
    return hostOf(new URL(url));
  } catch {
    return '?';
  }
};

/**
 * Without Redis: timers in this process, the same schedule; lost on restart. Deliveries start at once,
 * without startWorker (nothing else could deliver them), as the in-process jobs do.
 */
export function memoryWebhookRunner(deps: Deps, log: Logger, deliveries: DeliveryLog): WebhookRunner {
  const timers = new Set<NodeJS.Timeout>();
  /** webhook-ids queued or sent (bounded), so the same event queued twice is delivered once. */
  const seen = new Set<string>();
  const aborter = new AbortController();
  let closed = false;

  const schedule = (d: Delivery, attempt: number, delayMs: number) => {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      runAttempt(deps, log, deliveries, d, attempt, aborter.signal).catch((e: unknown) => {
        if (!(e instanceof GiveUp) && attempt < attemptsOf(d))
          schedule(d, attempt + 1, retryDelayMs(deps.config, attempt));
      });
    }, delayMs);
    timers.add(timer);
  };

  return {
    deliveries,
    async enqueue(d) {
      if (d.redelivery) return schedule(d, 1, 0);
      if (seen.has(d.id)) return;
      seen.add(d.id);
      if (seen.size > KEEP.count) seen.delete(seen.values().next().value!);
      schedule(d, 1, 0);
    },
    async start() {},
    async close() {
      closed = true;
      aborter.abort();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await deliveries.close();
    },
  };
}

/** On Redis: the BullMQ queue `webhooks`; any process's worker delivers. */
export function bullWebhookRunner(deps: Deps, log: Logger, deliveries: DeliveryLog): WebhookRunner {
  const { config } = deps;
  let connection: RedisClient | null = null;
  let queue: Queue<Delivery> | null = null;
  let worker: Worker<Delivery> | null = null;
  const aborter = new AbortController();
  const conn = () => (connection ??= bullConnection(config));
  const getQueue = () => {
    if (queue) return queue;
    queue = new Queue<Delivery>('webhooks', bullOptions(config, 'webhooks', conn()));
    // A connection error is reported here (an 'error' event without a listener would throw); add() waits through it.
    queue.on('error', (err) => log.warn({ err }, 'webhook queue error'));
    return queue;
  };

  return {
    deliveries,
    async enqueue(d) {
      // jobId = webhook-id: a second add of the same id is ignored while the first is kept (a redelivery has
      // its own). Bounded as any store call (store/fail-fast.ts): a request (a job's DELETE sends its event)
      // never waits through an outage.
      await boundQueueCall(conn(), config.redisCommandTimeoutMs, () =>
        getQueue().add(d.type, d, {
          jobId: d.redelivery ? `${d.id}.r${randomUUID().replace(/-/g, '')}` : d.id,
          attempts: attemptsOf(d),
          backoff: { type: 'custom' },
          removeOnComplete: KEEP,
          removeOnFail: KEEP,
        }),
      );
    },
    async start() {
      if (worker) return;
      worker = new Worker<Delivery>(
        'webhooks',
        async (job: Job<Delivery>) => {
          try {
            await runAttempt(deps, log, deliveries, job.data, job.attemptsMade + 1, aborter.signal);
          } catch (e) {
            if (e instanceof GiveUp) throw new UnrecoverableError(e.message);
            throw e;
          }
        },
        {
          ...bullOptions(config, 'webhooks', conn()),
          concurrency: CONCURRENCY,
          // A worker that died mid-attempt: the delivery is taken over (at least once), a few times at most.
          maxStalledCount: 5,
          settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(config, attemptsMade) },
        },
      );
      worker.on('error', (err) => log.warn({ err }, 'webhook worker error'));
    },
    async close() {
      aborter.abort();
      // force: no wait for attempts under way (an interrupted one is taken over by a worker later).
      await closeWithin(worker?.close(true));
      await closeWithin(queue?.close());
      connection?.disconnect();
      await deliveries.close();
    },
  };
}

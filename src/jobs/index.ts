// Lookup jobs: up to MAX_JOB_ITEMS items looked up in the background as the account that sent them,
// in chunks of CHUNK_SIZE (chunk.ts), queued on BullMQ when the service uses Redis and in this process
// otherwise (runner.ts), kept with their results for JOB_TTL_MS (store.ts). When the last chunk settles
// the job is completed and, if it has a webhook_url, one job.completed event is sent (also when it is
// cancelled: the event's job says `cancelled`, sent once no chunk of it still runs); a job that cannot run (its account is gone) is failed,
// with job.failed.
import { EventEmitter } from 'node:events';
import { LookupError, toLookupError } from '../contract/index.js';
import type { CoreDeps } from '../lookup/types.js';
import type { Account } from '../store/index.js';
import type { Webhooks } from '../webhooks/types.js';
import { indexOfLine, runChunk, voidSkippedChunks, type ChunkOutcome } from './chunk.js';
import type { ChunkRef, ChunkRunner } from './runner.js';
import { CHUNK_SIZE, type JobRecord, type JobRefusal, type JobStore } from './store.js';
import { JOB_TTL_MS, MAX_JOB_ITEMS, type Jobs, type JobView } from './types.js';

export * from './types.js';
export { CHUNK_SIZE } from './store.js';

/** When a chunk that met the store unreachable runs again. */
const STORE_RETRY_MS = 3_000;

/**
 * How often progress() looks at the job (changes made by other processes); this process's changes wake it at once.
 * One read per job per process, whatever the number of its open streams (they share the job's feed).
 */
export const PROGRESS_POLL_MS = 500;
/** An open event stream's lease on its account's count: renewed every third of it while open, so a crashed instance's streams stop counting after it. */
const STREAM_LEASE_MS = 60_000;
/** Seconds a client refused for a job bound is told to wait (jobs take a while to end); for an event stream bound. */
const JOBS_RETRY_AFTER_S = 30;
const STREAMS_RETRY_AFTER_S = 5;

const notFound = (): LookupError => new LookupError('not_found', { message: 'No such job.' });
// A cancelled job is final once no chunk of it still runs (the store then sets its finished_at): its
// event, like the stream's end, then shows what those chunks billed.
const isFinal = (v: Pick<JobView, 'status' | 'finished_at'>): boolean =>
  v.status === 'completed' || v.status === 'failed' || (v.status === 'cancelled' && v.finished_at !== null);

export function viewOf(job: JobRecord): JobView {
  return {
    id: job.id,
    status: job.status,
    count: job.count,
    done: job.done,
    succeeded: job.succeeded,
    failed: job.failed,
    cache_hits: job.cache_hits,
    credits: job.credits,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    webhook_url: job.webhook_url,
    waiting: job.waiting,
    waiting_until: job.waiting_until,
  };
}

/** 429 rate_limited naming the per-account job bound a new job would pass (README "Bulk jobs", limits). */
export function jobBoundError(refusal: JobRefusal): LookupError {
  const max = refusal.max.toLocaleString('en-US');
  return refusal.limit === 'jobs_active'
    ? new LookupError('rate_limited', {
        message: `This account already has ${max} lookup jobs queued or running. Retry when one has finished.`,
        retryAfter: JOBS_RETRY_AFTER_S,
        details: { limit: refusal.limit, max: refusal.max, active: refusal.active },
      })
    : new LookupError('rate_limited', {
        message: `This account's queued and running jobs would hold more than ${max} items. Retry when one has finished.`,
        retryAfter: JOBS_RETRY_AFTER_S,
        details: { limit: refusal.limit, max: refusal.max, queued: refusal.queued },
      });
}

export function eventStreamsError(max: number): LookupError {
  return new LookupError('rate_limited', {
    message: `This account already has ${max.toLocaleString('en-US')} job event streams open. Close one first.`,
    retryAfter: STREAMS_RETRY_AFTER_S,
    details: { limit: 'event_streams', max },
  });
}

/** A job's progress as read once per poll for every open stream of it in this process. */
interface Feed {
  /** The job as last read (null: gone), and how many reads have landed. */
  job: JobRecord | null;
  version: number;
  /** Open streams following it. */
  refs: number;
  timer: NodeJS.Timeout;
  read: () => void;
  reading: boolean;
  /** A read was asked for while one was under way: read again after it (a change may have come after it began). */
  again: boolean;
  wake: Set<() => void>;
}

/** Where jobs are kept and how their chunks are queued: in memory or on Redis (src/backend.ts). */
export interface JobsParts {
  store: JobStore;
  runner: ChunkRunner;
}

export function createJobs(deps: CoreDeps, webhooks: Webhooks, parts: JobsParts): Jobs {
  const { config } = deps;
  const log = deps.logger.child({ component: 'jobs' });
  const { store, runner } = parts;
  // This process's changes to a job, by id: progress() wakes at once on them.
  const changed = new EventEmitter().setMaxListeners(0);

  async function owned(account: Pick<Account, 'id'>, id: string): Promise<JobRecord> {
    const job = typeof id === 'string' && id.length <= 100 ? await store.get(id) : null;
    if (!job || job.accountId !== account.id) throw notFound();
    return job;
  }

  /** The job's final event, once (the store's flag); a send that fails gives the flag back for the retry. */
  async function notify(job: JobRecord): Promise<void> {
    if (!job.webhook_url || !isFinal(job)) return;
    if (!(await store.claimNotice(job.id))) return;
    try {
      await webhooks.send({ id: job.accountId }, job.webhook_url, {
        type: job.status === 'failed' ? 'job.failed' : 'job.completed',
        id: job.id,
        data: viewOf(job),
      });
    } catch (e) {
      await store.releaseNotice(job.id).catch(() => undefined);
      throw e;
    }
  }

  /**
   * A cancelled or failed job's chunks no run will reach: those whose round has not begun (a later round's,
   * dropped from the queue or skipped as the job is final) and `also` (the chunk that failed past its retries).
   * Their charges no settled line shows (a dead run's) are taken back. A chunk whose round began has a run to
   * settle it (a cancelled job's), or one under way (a failed job's other chunks): left to it.
   */
  async function voidUnreached(job: JobRecord, also?: number): Promise<void> {
    try {
      const account = await deps.store.getAccount(job.accountId);
      if (!account) return;
      const begun = new Set(await store.begunChunks(job.id));
      const chunks = Array.from({ length: job.chunks }, (_, n) => n).filter((n) => n === also || !begun.has(n));
      await voidSkippedChunks(deps, store, job, account, chunks);
    } catch (err) {
      log.warn({ err, job: job.id }, 'job final: unreported charges of its chunks not taken back');
    }
  }

  async function fail(id: string, reason: string, chunk?: number): Promise<void> {
    log.warn({ job: id, reason }, 'job failed');
    const failedNow = await store.finish(id, 'failed', deps.clock().toISOString());
    const job = await store.get(id);
    if (failedNow && job) await voidUnreached(job, chunk);
    try {
      if (job) await notify(job);
    } finally {
      changed.emit(id);
    }
  }

  /**
   * A run that met the store unreachable waits and runs again (no attempt of the queue's used up: an outage
   * of any length delays the job, never fails it); its next run settles what this one began.
   */
  async function handle(ref: ChunkRef): Promise<ChunkOutcome> {
    try {
      return await handleOnce(ref);
    } catch (e) {
      if (toLookupError(e).code !== 'store_unavailable') {
        deps.metrics.jobChunkRuns.inc({ outcome: 'failed' });
        throw e;
      }
      deps.metrics.jobChunkRuns.inc({ outcome: 'store_unavailable' });
      log.warn({ err: e, job: ref.job, chunk: ref.chunk }, 'job chunk met the store unreachable; it runs again');
      return { kind: 'later', at: Date.now() + STORE_RETRY_MS };
    }
  }

  async function handleOnce(ref: ChunkRef): Promise<ChunkOutcome> {
    const job = await store.get(ref.job);
    if (!job) return { kind: 'done', completed: false };
    if (isFinal(job)) {
      // A run that died between the last write and its event: the event is sent here (once).
      await notify(job);
      return { kind: 'done', completed: false };
    }
    const account = await deps.store.getAccount(job.accountId);
    if (!account || account.revoked) {
      await fail(job.id, account ? 'account revoked' : 'account gone');
      return { kind: 'done', completed: false };
    }
    const outcome = await runChunk(deps, store, job, account, ref.chunk);
    deps.metrics.jobChunkRuns.inc({
      outcome: outcome.kind === 'later' ? 'waiting' : outcome.completed ? 'settled' : 'skipped',
    });
    // The job's event is queued before this process's streams are woken: one that sees the job final sees
    // its job.completed already sent (a failed send still wakes them: the next run or DELETE sends it).
    const after = await store.get(job.id);
    try {
      if (after && isFinal(after)) await notify(after);
    } finally {
      changed.emit(job.id);
    }
    return outcome;
  }

  // Progress feeds: one per job followed in this process, read every PROGRESS_POLL_MS and at once on this
  // process's changes, whatever the number of its streams; dropped with its last stream.
  const feeds = new Map<string, Feed>();
  function follow(id: string): Feed {
    let feed = feeds.get(id);
    if (!feed) {
      const f: Feed = {
        job: null,
        version: 0,
        refs: 0,
        timer: undefined as unknown as NodeJS.Timeout,
        read: () => undefined,
        reading: false,
        again: false,
        wake: new Set(),
      };
      f.read = () => {
        if (f.reading) {
          f.again = true;
          return;
        }
        f.reading = true;
        store
          .get(id)
          .then(
            (job) => {
              f.job = job;
              f.version += 1;
            },
            // A failed read is not an end: the next poll reads again.
            (err: unknown) => log.warn({ err, job: id }, 'job progress read failed'),
          )
          .finally(() => {
            f.reading = false;
            for (const wake of [...f.wake]) wake();
            if (f.again && feeds.get(id) === f) {
              f.again = false;
              f.read();
            }
          });
      };
      f.timer = setInterval(f.read, PROGRESS_POLL_MS);
      changed.on(id, f.read);
      feeds.set(id, f);
      feed = f;
    }
    feed.refs += 1;
    return feed;
  }
  function unfollow(id: string, feed: Feed): void {
    feed.refs -= 1;
    if (feed.refs > 0 || feeds.get(id) !== feed) return;
    clearInterval(feed.timer);
    changed.off(id, feed.read);
    feeds.delete(id);
  }

  // This process's open event streams by account: their leases on the account's count, renewed together.
  const streamsHeld = new Map<string, Set<string>>();
  const renewal = setInterval(() => {
    for (const [accountId, ids] of streamsHeld) {
      store
        .renewStreams(accountId, [...ids], STREAM_LEASE_MS)
        .catch((err: unknown) => log.warn({ err }, 'job event stream renewal failed'));
    }
  }, STREAM_LEASE_MS / 3);
  renewal.unref();
  /** Holds the stream on its account's count until the returned close (once). */
  function holdStream(accountId: string, streamId: string): () => void {
    const ids = streamsHeld.get(accountId) ?? new Set<string>();
    ids.add(streamId);
    streamsHeld.set(accountId, ids);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      ids.delete(streamId);
      if (ids.size === 0 && streamsHeld.get(accountId) === ids) streamsHeld.delete(accountId);
      store
        .closeStream(accountId, streamId)
        .catch((err: unknown) => log.warn({ err }, 'job event stream close failed'));
    };
  }

  const failed = async (ref: ChunkRef, err: unknown): Promise<void> =>
    fail(ref.job, toLookupError(err).code, ref.chunk);
  let started: Promise<void> | null = null;
  const startWorker = (): Promise<void> => (started ??= runner.start(handle, failed));
  // Without Redis no other process can run this process's jobs: they run here whatever WORK_IN_SERVICE says.
  if (!runner.shared) void startWorker();

  return {
    async create(account, request) {
      const { items } = request;
      if (!Array.isArray(items) || items.length === 0)
        throw new LookupError('bad_body', { details: { reason: 'items must be a non-empty array' } });
      if (items.length > MAX_JOB_ITEMS) {
        throw new LookupError('too_many_items', {
          message: 'At most 10,000 items per job.',
          details: { max: MAX_JOB_ITEMS, received: items.length },
        });
      }
      const webhookUrl =
        request.webhookUrl === null ? null : await webhooks.checkUrl(request.webhookUrl, 'webhook_url');
      const jobId = `job_${deps.newId().replace(/[^A-Za-z0-9]/g, '')}`;
      // Counted against the account's bounds before anything is written; released when the job is final.
      const refused = await store.admit(account.id, jobId, items.length, config.jobBounds);
      if (refused) {
        deps.metrics.rateLimited.inc({ limit: refused.limit });
        throw jobBoundError(refused);
      }
      const created = deps.clock();
      const chunks: unknown[][] = [];
      for (let i = 0; i < items.length; i += CHUNK_SIZE) chunks.push(items.slice(i, i + CHUNK_SIZE));
      const job: JobRecord = {
        id: jobId,
        accountId: account.id,
        status: 'queued',
        count: items.length,
        done: 0,
        succeeded: 0,
        failed: 0,
        cache_hits: 0,
        credits: 0,
        created_at: created.toISOString(),
        started_at: null,
        finished_at: null,
        webhook_url: webhookUrl,
        waiting: 0,
        waiting_until: null,
        options: request.options,
        chunks: chunks.length,
        chunks_done: 0,
      };
      try {
        await store.create(job, chunks);
        await runner.enqueue(job.id, chunks.length);
      } catch (e) {
        // Not queued: nothing will run it, so it must not hold the account's count (failed if it was written).
        await store.finish(job.id, 'failed', deps.clock().toISOString()).catch(() => undefined);
        await store.release(account.id, job.id).catch(() => undefined);
        throw e;
      }
      return viewOf(job);
    },

    async get(account, id) {
      return viewOf(await owned(account, id));
    },

    async list(account, page) {
      const { ids, next } = await store.list(account.id, page.limit, page.cursor);
      const jobs = (await Promise.all(ids.map((id) => store.get(id)))).filter((j): j is JobRecord => j !== null);
      return { jobs: jobs.map(viewOf), next_cursor: next };
    },

    async cancel(account, id) {
      const job = await owned(account, id);
      if (await store.finish(id, 'cancelled', deps.clock().toISOString())) {
        // A chunk whose round began (its run under way, dead, or waiting for its retry) stays queued: its
        // run settles what it began, and the last to settle gives the job its finished_at.
        await runner.remove(id, job.chunks, new Set(await store.begunChunks(id)));
        // A chunk dropped that had a round (waiting for its next one) is never run: its unreported charges go.
        await voidUnreached(job);
      }
      const after = (await store.get(id)) ?? job;
      // Its job.completed (once, the store's flag) when no chunk runs, else when the last running one settles
      // (handle); a DELETE retried after a failed send sends it then. Streams are woken after it, as in handle.
      try {
        await notify(after);
      } finally {
        changed.emit(id);
      }
      return viewOf(after);
    },

    async results(account, id, range = {}) {
      const job = await owned(account, id);
      const from = Math.max(0, range.from ?? 0);
      const limit = range.limit ?? Infinity;
      return (async function* () {
        let left = limit;
        for (let chunk = Math.floor(from / CHUNK_SIZE); chunk < job.chunks && left > 0; chunk += 1) {
          const text = await store.results(id, chunk);
          const lines = text.split('\n').filter((l) => l !== '' && indexOfLine(l) >= from);
          // A chunk not yet settled keeps its rounds' lines in the order they settled.
          lines.sort((a, b) => indexOfLine(a) - indexOfLine(b));
          for (const line of lines) {
            if (left <= 0) break;
            left -= 1;
            yield line;
          }
        }
      })();
    },

    async progress(account, id, signal) {
      let view = viewOf(await owned(account, id));
      const streamId = deps.newId();
      if (!(await store.openStream(account.id, streamId, config.jobBounds.maxEventStreams, STREAM_LEASE_MS))) {
        deps.metrics.rateLimited.inc({ limit: 'event_streams' });
        throw eventStreamsError(config.jobBounds.maxEventStreams);
      }
      const close = holdStream(account.id, streamId);
      signal.addEventListener('abort', close, { once: true });
      // Left already (the client went while the stream was being opened): an abort is not heard twice.
      if (signal.aborted) close();
      // A cancelled job whose running chunks have not settled is not shown: the faces end the stream on its
      // status, and its final view (with what those chunks billed) comes once they settle.
      const shown = (v: JobView) => v.status !== 'cancelled' || isFinal(v);
      return (async function* () {
        const feed = follow(id);
        try {
          if (shown(view)) yield view;
          // A read already under way when this stream began may predate its own first read: the one after it counts.
          let seen = feed.reading ? feed.version + 1 : feed.version;
          while (!isFinal(view) && !signal.aborted) {
            if (feed.version <= seen) {
              await new Promise<void>((resolve) => {
                const done = () => {
                  feed.wake.delete(done);
                  signal.removeEventListener('abort', done);
                  resolve();
                };
                feed.wake.add(done);
                signal.addEventListener('abort', done);
              });
            }
            if (signal.aborted) return;
            if (feed.version <= seen) continue;
            seen = feed.version;
            if (!feed.job) return;
            const next = viewOf(feed.job);
            if (JSON.stringify(next) !== JSON.stringify(view)) {
              view = next;
              if (shown(view)) yield view;
            }
          }
        } finally {
          unfollow(id, feed);
          signal.removeEventListener('abort', close);
          close();
        }
      })();
    },

    startWorker,

    async close() {
      for (const [id, feed] of feeds) {
        clearInterval(feed.timer);
        changed.off(id, feed.read);
      }
      feeds.clear();
      clearInterval(renewal);
      await runner.close();
      await store.close();
    },
  };
}

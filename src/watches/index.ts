// Watched homes: a home read live on a schedule as its account (a billed lookup each time, as a normal
// lookup would be), and a property.changed webhook when one of WATCHED_FIELDS differs from the last
// check's. Kept and scheduled on Redis (BullMQ job schedulers) when the service uses Redis, else in
// this process (lost on restart). The faces (REST routes/watches.ts, GraphQL schema/watches.ts) parse
// the body with the contract's parseWatchBody; the rest of the rules are here.
import {
  hasFailedSection,
  LookupError,
  MAX_WATCHES_PER_ACCOUNT,
  WATCH_MAX_INTERVAL_HOURS,
  toLookupError,
  type PortalProperty,
  type Sections,
} from '../contract/index.js';
import { unreadFields } from '../lookup/changes.js';
import { createRequestContext } from '../lookup/context.js';
import { lookupOne } from '../lookup/lookup.js';
import type { CoreDeps } from '../lookup/types.js';
import type { Account } from '../store/index.js';
import { classifiedCall } from '../store/fail-fast.js';
import type { Webhooks } from '../webhooks/types.js';
import { CheckLater, type CheckRun, type WatchScheduler } from './schedule.js';
import type { StoredWatch, WatchChange, WatchStore } from './store.js';
import { WATCHED_FIELDS, type WatchRequest, type Watches, type WatchView } from './types.js';

export * from './types.js';

const HOUR_MS = 3_600_000;
/** Codes a check meets for a budget or an outage, not for the home: its iteration is run again. */
const RETRIED = new Set(['rate_limited', 'store_unavailable', 'upstream_busy']);
/** Compare-and-store attempts of one check before it gives way to the checks that keep writing. */
const MAX_STORE_ATTEMPTS = 5;

/** Where watches are kept (opened on first use) and what runs their checks: in memory or on Redis (src/backend.ts). */
export interface WatchesParts {
  store: () => WatchStore;
  scheduler: WatchScheduler;
}

export interface WatchesOptions {
  /** Watches one account may have (tests lower it). */
  maxPerAccount?: number;
}

const notFound = (): LookupError => new LookupError('not_found', { message: 'No such watch.' });

/**
 * A request's call on the watch store or the schedule: any failure that is not already a coded one is
 * store_unavailable (the Redis store and the BullMQ schedule bound their own calls: store/fail-fast.ts).
 */
const stored = classifiedCall;

const bad = (param: string, reason: string): LookupError =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** interval_hours as sent: a number from the configured minimum to WATCH_MAX_INTERVAL_HOURS. */
function checkInterval(value: unknown, minSeconds: number): number {
  const min = minSeconds / 3600;
  const shown = Number(min.toFixed(6));
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw bad('interval_hours', `must be a number of hours from ${shown} to ${WATCH_MAX_INTERVAL_HOURS}`);
  if (value < min) throw bad('interval_hours', `must be at least ${shown} (the shortest interval this service allows)`);
  if (value > WATCH_MAX_INTERVAL_HOURS) throw bad('interval_hours', `must be at most ${WATCH_MAX_INTERVAL_HOURS}`);
  return value;
}

function viewOf(w: StoredWatch): WatchView {
  const next = w.stopped
    ? null
    : w.last_checked_at === null
      ? w.created_at
      : new Date(Date.parse(w.last_checked_at) + w.interval_hours * HOUR_MS).toISOString();
  return {
    id: w.id,
    [w.locator.kind]: w.locator.input,
    webhook_url: w.webhook_url,
    interval_hours: w.interval_hours,
    created_at: w.created_at,
    home_zpid: w.home_zpid,
    last_checked_at: w.last_checked_at,
    next_check_at: next,
    last_error: w.last_error,
  };
}

/**
 * The WATCHED_FIELDS this read says something about. Not those of a section it could not read or did not
 * have (unreadFields, as the change hints), nor price and status when it came without them (a section
 * failed: answered free): their null there is no change, and the value last seen stays.
 */
function watchedValues(record: PortalProperty, sections: Sections): Record<string, unknown> {
  const unread: Set<string> = unreadFields(sections);
  if (hasFailedSection(sections) && record.price == null && record.homeStatus == null)
    unread.add('price').add('homeStatus');
  return Object.fromEntries(
    WATCHED_FIELDS.filter((f) => !unread.has(f)).map((f) => [f, (record as Record<string, unknown>)[f] ?? null]),
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** `core` is the whole core (a check makes a request context from it). */
export function createWatches(
  core: CoreDeps,
  webhooks: Webhooks,
  parts: WatchesParts,
  opts: WatchesOptions = {},
): Watches {
  const deps = core;
  const maxPerAccount = opts.maxPerAccount ?? MAX_WATCHES_PER_ACCOUNT;
  const { scheduler } = parts;
  let opened = false;
  const watchStore = (): WatchStore => {
    opened = true;
    return parts.store();
  };

  /** Writes `change` onto the kept watch (compare-and-store, again on a race); false when the watch is gone. */
  async function amend(
    account: string,
    id: string,
    change: (w: StoredWatch) => StoredWatch | null,
  ): Promise<StoredWatch | null> {
    for (let attempt = 0; attempt < MAX_STORE_ATTEMPTS; attempt++) {
      const kept = await watchStore().get(account, id);
      if (!kept) return null;
      const next = change(kept.watch);
      if (!next) return null;
      if (await watchStore().update(next, kept.version)) return next;
    }
    return null;
  }

  /** The watch's account as it stands now; a watch whose account is gone or revoked stops. */
  async function ownerOf(run: CheckRun): Promise<Account | null> {
    const account = await deps.store.getAccount(run.account);
    if (account && !account.revoked) return account;
    await scheduler.unschedule(run.watchId);
    if (!account) await watchStore().remove(run.account, run.watchId);
    else await amend(run.account, run.watchId, (w) => ({ ...w, stopped: true, last_error: 'invalid_api_key' }));
    return null;
  }

  async function check(run: CheckRun): Promise<void> {
    const kept = await watchStore().get(run.account, run.watchId);
    if (!kept) return scheduler.unschedule(run.watchId);
    const account = await ownerOf(run);
    if (!account) return;
    const checkedAt = deps.clock().toISOString();
    // The iteration names the ledger entry: a check's charge leads back to its watch and scheduler run.
    const ctx = createRequestContext(deps, account, {
      requestId: `watch:${run.watchId}:${run.iteration}`,
      budget: 'background',
    });
    if (run.rerunSince !== undefined) ctx.retrySince = run.rerunSince;
    let record: PortalProperty;
    let sections: Sections;
    try {
      // Live (max_age 0), and a failed read is the error, never the last good record standing in.
      const outcome = await lookupOne(ctx, kept.watch.locator, { raw: false, maxAge: 0, stale: false });
      record = outcome.data;
      sections = outcome.meta.sections;
    } catch (e) {
      const code = toLookupError(e).code;
      // Refused for the key's background slots (all held past the wait) or the store: not the home's
      // answer. The iteration fails and the scheduler runs it again shortly; the watch keeps its record.
      if (RETRIED.has(code)) throw new CheckLater(code, { cause: e });
      if (code === 'internal') ctx.logger.error({ err: e, watch: run.watchId }, 'watch check failed');
      await amend(run.account, run.watchId, (w) =>
        later(w, checkedAt) ? null : { ...w, last_checked_at: checkedAt, last_error: code },
      );
      return;
    }
    const values = watchedValues(record, sections);
    let changes: WatchChange[] = [];
    let before: StoredWatch | null = null;
    const stored = await amend(run.account, run.watchId, (w) => {
      // A check that began later already recorded: this older reading must not undo it.
      if (later(w, checkedAt)) return null;
      // Values of another home than the one last seen (an address or link that now finds another home)
      // are a first sighting of that home, not changes of the one watched.
      const last = w.home_zpid === null || w.home_zpid === record.zpid ? w.last_values : null;
      // Only what both this read and the last one said something about is compared.
      changes = last
        ? WATCHED_FIELDS.filter((f) => f in values && f in last && !same(last[f], values[f])).map((f) => ({
            field: f,
            from: last[f] ?? null,
            to: values[f],
          }))
        : [];
      // A re-run of the iteration that recorded a change (its worker died before queuing the event) finds
      // nothing new: it queues that change again, under the same event id, so it is delivered once, not lost.
      if (changes.length === 0 && w.last_change?.iteration === run.iteration) changes = w.last_change.changes;
      before = w;
      const lastChange = changes.length > 0 ? { iteration: run.iteration, changes } : (w.last_change ?? null);
      return {
        ...w,
        last_values: { ...(last ?? {}), ...values },
        home_zpid: record.zpid,
        last_checked_at: checkedAt,
        last_error: null,
        last_change: lastChange,
      };
    });
    // Only the check whose compare-and-store recorded the change announces it: exactly once per change.
    if (!stored || changes.length === 0) return;
    try {
      await webhooks.send({ id: run.account }, stored.webhook_url, {
        type: 'property.changed',
        // One event per iteration: a re-run of the iteration (a worker died) is not a second delivery.
        id: `${run.watchId}:${run.iteration}`,
        data: { zpid: record.zpid, changes, data: record },
      });
    } catch (e) {
      // Not queued: the old values go back, so the next check finds the change again and announces it.
      ctx.logger.warn(
        { err: e, watch: run.watchId },
        'property.changed could not be queued; the next check tries again',
      );
      const previous = before as StoredWatch | null;
      await amend(run.account, run.watchId, (w) =>
        w.last_checked_at === checkedAt
          ? {
              ...w,
              last_values: previous?.last_values ?? null,
              home_zpid: previous?.home_zpid ?? null,
              last_change: previous?.last_change ?? null,
              last_error: 'store_unavailable',
            }
          : null,
      );
    }
  }

  const later = (w: StoredWatch, checkedAt: string): boolean =>
    w.last_checked_at !== null && w.last_checked_at > checkedAt;

  async function runCheck(run: CheckRun): Promise<void> {
    try {
      await check(run);
    } catch (e) {
      // The scheduler's retry (a few, with backoff) takes it; so does a store that did not answer around
      // the read (the watch's record, its account): the retry passes rerunSince, so nothing is billed twice.
      if (e instanceof CheckLater) throw e;
      if (toLookupError(e).code === 'store_unavailable') throw new CheckLater('store_unavailable', { cause: e });
      // The store could not be reached: this iteration is skipped, the schedule stands.
      deps.logger.warn({ err: e, watch: run.watchId }, 'watch check could not run');
    }
  }

  return {
    async create(account: Account, request: WatchRequest): Promise<WatchView> {
      const intervalHours = checkInterval(request.intervalHours, core.config.watchMinIntervalSeconds);
      const webhookUrl = await webhooks.checkUrl(request.webhookUrl, 'webhook_url');
      const watch: StoredWatch = {
        id: `w_${core.newId().replace(/-/g, '')}`,
        account: account.id,
        locator: request.locator,
        webhook_url: webhookUrl,
        interval_hours: intervalHours,
        created_at: core.clock().toISOString(),
        home_zpid: null,
        last_values: null,
        last_checked_at: null,
        last_error: null,
        stopped: false,
      };
      if (!(await stored(() => watchStore().add(watch, maxPerAccount)))) {
        // A per-account bound, coded as the jobs' are: 429 naming it (a count that frees only by a delete).
        throw new LookupError('rate_limited', {
          message: `At most ${maxPerAccount.toLocaleString('en-US')} watches per account. Delete one first.`,
          retryAfter: 60,
          details: { limit: 'watches', max: maxPerAccount },
        });
      }
      try {
        await stored(() => scheduler.schedule(account.id, watch.id, Math.round(intervalHours * HOUR_MS)));
      } catch (e) {
        await watchStore()
          .remove(account.id, watch.id)
          .catch(() => undefined);
        throw e;
      }
      return viewOf(watch);
    },
    async list(account: Account): Promise<WatchView[]> {
      const all = await stored(() => watchStore().list(account.id));
      return all
        .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? 1 : -1))
        .map(viewOf);
    },
    async get(account: Account, id: string): Promise<WatchView> {
      const kept = await stored(() => watchStore().get(account.id, id));
      if (!kept) throw notFound();
      return viewOf(kept.watch);
    },
    async remove(account: Account, id: string): Promise<void> {
      if (!(await stored(() => watchStore().remove(account.id, id)))) throw notFound();
      // The watch is gone; a schedule that cannot be reached now is left behind: its next check finds no
      // watch and removes it.
      await stored(() => scheduler.unschedule(id)).catch((e: unknown) =>
        deps.logger.warn({ err: e, watch: id }, 'watch schedule not removed now'),
      );
    },
    startWorker: () => scheduler.start(runCheck),
    async close() {
      await scheduler.close();
      if (opened) await parts.store().close();
    },
  };
}

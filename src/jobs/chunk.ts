// Running one chunk of a job: its items as a batch (the core's lookupBatch, as the job's account on its
// background budget, the job's options, each item's own), written with the job's counters in one step,
// once. An item never fails for a budget: what the chunk settles is written, and the items refused are
// run in a later round (a delayed queue job, not a re-run): those that met the key's background slots
// all held after their wait, soon; those over the daily live-lookup limit, after 00:00 UTC. An item
// that met the store unreachable fails the run, which the queue retries. A run after a crash (the chunk's round had begun)
// bills nothing twice: reads since the round began are fresh (ctx.retrySince), and a read the dead run made
// and did not charge is charged only when the cached entry is that read's (readBy: the round's reservation
// id for the home, chunkReservationId, another in each round). Every run that follows another run of the
// chunk (a re-run, or a later round: a re-run may have put off the item of its dead run's charge) reports
// billed the homes of the chunk's charges (found under its deterministic requestId) no settled line shows.
// A run whose lock lapsed and whose settle is refused (another run settled its round) moves its charges onto
// the settled lines (adjustChunk), and counts an adjust of the chunk even when it moved nothing. A settle is
// refused (adjusted) when the chunk had an adjust since the run read it: a charge the adjusting run recorded
// after this run read the chunk's charges, or one it moved onto lines this run took it as owed to, is seen
// when the run reads lines, billed keys and charges again, and is reported once. A chunk's final round takes back
// (voidReservation) the charges still owed after its adoptions, which no line reports (a dead run's whose entry
// was evicted, the home read live again): before its settle, never one of its own reads; so does a cancelled or
// failed job's chunk that no run will reach (skipped, or dropped from the queue), for the charges its settled
// billed keys do not show. No usage alert for a charge taken back.
import { LookupError, parseBatchItem, type BatchItemResult, type LookupMeta } from '../contract/index.js';
import { periodOf, reserveRequest } from '../accounts/index.js';
import { sourceOf } from '../observability/instrument.js';
import { createRequestContext } from '../lookup/context.js';
import { homeKeyOf } from '../lookup/keys.js';
import { batchItemJson, lookupBatch, type BatchItemOutcome } from '../lookup/lookup.js';
import type { CoreDeps } from '../lookup/types.js';
import type { Account, LedgerEntry } from '../store/index.js';
import {
  CHUNK_SIZE,
  type ChunkAdjust,
  type ChunkStart,
  type ChunkWrite,
  type JobRecord,
  type JobStore,
} from './store.js';

/** What became of a run: settled (or nothing to do), or to run again at `at` (epoch ms). */
export type ChunkOutcome = { kind: 'done'; completed: boolean } | { kind: 'later'; at: number };

/** When a chunk whose items met the key's background slots all held runs again (their holders end meanwhile). */
const LIVE_SLOT_WAIT_MS = 1_000;

export const chunkRequestId = (jobId: string, chunk: number): string => `job:${jobId}:${chunk}`;

/** The next 00:00 UTC after `now`. */
export const nextUtcMidnight = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

/**
 * Refused for a budget or the service's own load, not for the home: the key's background slots all held
 * after the wait, or upstream_busy (the collector or the provider busy). The item runs in a later round.
 */
const isRefusedForNow = (r: BatchItemOutcome): boolean =>
  !r.ok &&
  (r.error.code === 'upstream_busy' || (r.error.code === 'rate_limited' && r.error.details?.limit === 'live_lookups'));
const isCapped = (r: BatchItemOutcome): boolean => !r.ok && r.error.code === 'live_lookups_capped';
const isUnread = (r: BatchItemOutcome): boolean =>
  !r.ok && r.error.code === 'live_lookups_disabled' && r.error.details?.reason === 'cache_only';

export async function runChunk(
  deps: CoreDeps,
  jobs: JobStore,
  job: JobRecord,
  account: Account,
  chunk: number,
): Promise<ChunkOutcome> {
  const now = deps.clock();
  const start = await jobs.startChunk(job.id, chunk, now.getTime(), now.toISOString());
  if (start.state === 'skip') await voidSkipped(deps, account, job.id, chunk, start);
  if (start.state !== 'run') return { kind: 'done', completed: false };
  // One line per chunk run: a re-run (rerun: true) is a chunk whose earlier run was cut short (a worker died).
  deps.logger.info({ job: job.id, chunk, round: start.round, rerun: start.rerun }, 'job chunk started');
  const raw = await jobs.items(job.id, chunk);
  const base = chunk * CHUNK_SIZE;
  const settled = new Set(start.partial.split('\n').filter(Boolean).map(indexOfLine));
  const pending = raw.map((_, i) => base + i).filter((index) => !settled.has(index));
  const requestId = chunkRequestId(job.id, chunk);

  const ctx = createRequestContext(deps, account, { requestId, budget: 'background' });
  // The reservation ids this run's live reads used (its own charges: never taken back as leftovers).
  const own = new Set<string>();
  const idFor = reservationIds(requestId, start.round);
  ctx.reservationIdFor = (homeKey) => {
    const id = idFor(homeKey);
    own.add(id);
    return id;
  };
  // A re-run of the round (a crash): reads since the round began are fresh enough.
  if (start.rerun) ctx.retrySince = start.roundStart;
  // A cancelled job's chunk runs only to settle what its dead run began: nothing more is read live, and
  // the items it did not read get no result (as the items of a cancelled job that never started).
  const cancelled = start.cancelled;
  if (cancelled) ctx.cacheOnly = true;
  const run = await lookupBatch(
    ctx,
    pending.map((index) => parseBatchItem(raw[index - base])),
    job.options,
  );
  const results = new Map<number, BatchItemOutcome>(run.data.map((r, i) => [pending[i]!, r]));
  // The store unreachable for an item: the chunk fails and is retried (a re-run of this round), so the
  // item is looked up again rather than ending as store_unavailable.
  const unreachable = run.data.find((r) => !r.ok && r.error.code === 'store_unavailable');
  if (unreachable && !unreachable.ok)
    throw new LookupError('store_unavailable', { message: unreachable.error.message });

  // The chunk's charges no settled line shows (a run that died: of this round, or of an earlier round whose
  // re-run put the item off): each one, once, to the first item answered from that home's entry without a
  // charge. Found under the chunk's request id (one store read, not the ledger), by a run that follows another
  // run of the chunk (a re-run, or a later round); the first run of a fresh chunk has none to find.
  const follows = start.rerun || start.round > 0;
  let charges = follows ? await deps.store.chargesOf(requestId) : [];
  const charged = new Set(charges.map((e) => e.reservationId));
  const items = new Map(pending.map((index) => [index, parseBatchItem(raw[index - base])]));
  const held = pending.filter((index) => isCapped(results.get(index)!));
  // Items still refused for the background slots after their wait run in the next round, soon.
  const refused = pending.filter((index) => isRefusedForNow(results.get(index)!));
  const final = cancelled || (held.length === 0 && refused.length === 0);
  // Items whose dead run's read this run charged (chargeUnbilledRead): this run's own charges, in every write.
  const chargedHere = new Set<number>();

  /**
   * This run's write, given the chunk's settled lines, billed keys and adjusts (read before its charges) and
   * its charges as last read.
   */
  const compose = async (partial: string, billedBefore: string[], adjustsSeen: number) => {
    const owed = chargesOwed(charges, billedBefore);
    // This run's own charges are among them: they are reported as they are, not owed again.
    for (const [index, r] of results)
      if (r.ok && (r.meta.credits > 0 || chargedHere.has(index))) owed.set(r.entryKey, (owed.get(r.entryKey) ?? 0) - 1);
    const lines: string[] = [];
    const counts = { done: 0, succeeded: 0, failed: 0, cache_hits: 0, credits: 0 };
    let adopted = 0;
    const billed: string[] = [];
    for (const index of pending) {
      const r = results.get(index)!;
      if (isCapped(r) || isRefusedForNow(r) || (cancelled && isUnread(r))) continue;
      let meta: LookupMeta | undefined;
      if (r.ok) {
        meta = r.meta;
        const left = owed.get(r.entryKey) ?? 0;
        if (chargedHere.has(index)) meta = { ...meta, credits: 1, cached: false };
        // A read of this chunk's: not cached for the job, whenever it was made (age_seconds says when).
        else if (meta.credits === 0 && left > 0) {
          owed.set(r.entryKey, left - 1);
          adopted += 1;
          meta = { ...meta, credits: 1, cached: false };
        } else if (
          meta.credits === 0 &&
          start.rerun &&
          (await chargeUnbilledRead(deps, account, requestId, start.round, items.get(index)!, r.entryKey, charged, own))
        ) {
          // The dead run read and cached this home but died before its charge: that read is charged now.
          chargedHere.add(index);
          meta = { ...meta, credits: 1, cached: false };
        }
        if (meta.credits === 1) billed.push(r.entryKey);
        counts.succeeded += 1;
        counts.credits += meta.credits;
        if (meta.cached) counts.cache_hits += 1;
      } else counts.failed += 1;
      counts.done += 1;
      lines.push(batchItemJson(r, index, meta));
    }
    const write: ChunkWrite = {
      round: start.round,
      final,
      text: final ? mergeLines(partial, lines) : lines.map((l) => `${l}\n`).join(''),
      counts,
      held: held.length,
      waitingUntil: final && cancelled ? null : held.length === 0 ? null : nextUtcMidnight(deps.clock()).toISOString(),
      billed,
      adjustsSeen,
      now: deps.clock().toISOString(),
    };
    return { write, adopted, owed };
  };

  /**
   * The final round's leftovers: charges of the chunk no line reports (a dead run's whose entry no item of the
   * chunk was answered from: evicted, and the home read live again), taken back before the settle. Never one
   * this run made. A settle refused as adjusted recomputes from the charges read again (these gone); a refused
   * run's adjust after this finds nothing to move.
   */
  const voidLeftovers = async (owed: Map<string, number>) => {
    if (!final) return;
    const leftovers = pickCharges(charges, owed, own);
    if (leftovers.length === 0) return;
    await voidCharges(deps, account, leftovers);
    deps.logger.warn(
      { job: job.id, chunk, reservations: leftovers.map((e) => e.reservationId) },
      'job chunk charges no result reports taken back',
    );
    const gone = new Set(leftovers.map((e) => e.reservationId));
    charges = charges.filter((e) => !gone.has(e.reservationId));
  };

  let { write, adopted, owed } = await compose(start.partial, start.billed, start.adjusts);
  await voidLeftovers(owed);
  let answer = await jobs.settleChunk(job.id, chunk, write);
  // A run of an earlier round whose settle was refused adjusted the chunk since this run read it: it may have
  // moved a charge onto the settled lines that this run took as owed to it, or recorded one after this run read
  // the chunk's charges and found no settled line for it. The lines, billed keys and adjusts are read again,
  // then the charges (in that order: an adjust after the read refuses this settle again, one before it came
  // after its run's charges), and what this run reports is recomputed (its lookups stand), so the charge is
  // reported once; an adjust after this settle finds it on a line or moves it onto one.
  for (let attempt = 1; answer === 'adjusted'; attempt += 1) {
    if (attempt > 10) throw new Error(`job ${job.id} chunk ${chunk}: settle kept losing to adjusts`);
    const now = await jobs.readSettled(job.id, chunk);
    if (follows) charges = await deps.store.chargesOf(requestId);
    for (const e of charges) charged.add(e.reservationId);
    ({ write, adopted, owed } = await compose(now.text, now.billed, now.adjusts));
    await voidLeftovers(owed);
    answer = await jobs.settleChunk(job.id, chunk, write);
  }
  if (answer === 'refused') {
    // Another run of this round settled first (a lapsed lock ran the chunk twice at once): a charge this
    // run made that the settled lines do not show is moved onto them, so results and bill agree. The adjust
    // is counted even when nothing moves: a run of the next round that read the chunk's charges before this
    // run's were recorded has its settle refused, and reads them again.
    // Not a later round's: the run of that round reports its own charges, whatever is moved here.
    const mine = new Map<string, number>();
    for (const e of await deps.store.chargesOf(requestId))
      if ((roundOfReservation(e.reservationId) ?? 0) <= start.round)
        mine.set(e.cacheKey, (mine.get(e.cacheKey) ?? 0) + 1);
    const candidates = pending.flatMap((index) => {
      const r = results.get(index)!;
      return r.ok
        ? [
            {
              index,
              key: r.entryKey,
              line: batchItemJson(r, index, { ...r.meta, credits: 1, cached: false, age_seconds: 0 }),
            },
          ]
        : [];
    });
    const moved = await jobs.adjustChunk(job.id, chunk, (text, billedKeys) =>
      adoptCharges(text, billedKeys, mine, candidates),
    );
    if (moved > 0)
      deps.logger.warn(
        { job: job.id, chunk, moved },
        'job chunk ran twice at once; charges of the dropped run moved onto the settled results',
      );
    return { kind: 'done', completed: false };
  }
  // Charges a dead run made whose answer was lost were never announced (usage alerts): announced now, once settled.
  if (adopted > 0) {
    const at = deps.clock();
    deps.charges?.emit({ account, period: periodOf(account, at), at: at.toISOString() });
  }
  if (refused.length > 0) return { kind: 'later', at: Date.now() + LIVE_SLOT_WAIT_MS };
  if (!final) return { kind: 'later', at: Date.parse(write.waitingUntil!) };
  return { kind: 'done', completed: true };
}

/** The item index a result line starts with (`{"index":N,`). */
export const indexOfLine = (line: string): number => Number(/^\{"index":(\d+)/.exec(line)?.[1] ?? -1);

/** Earlier rounds' lines and this one's, in item order, as NDJSON. */
function mergeLines(partial: string, lines: string[]): string {
  const all = [...partial.split('\n').filter(Boolean), ...lines];
  all.sort((a, b) => indexOfLine(a) - indexOfLine(b));
  return all.map((l) => `${l}\n`).join('');
}

/**
 * Settled lines (`text`) made to show the charges in `charged` (entry key → charges under the chunk's
 * requestId) that `billed` does not: each such charge goes to the first candidate (a line of the dropped
 * run, as billed) whose settled line is unbilled. Null when nothing is owed.
 */
export function adoptCharges(
  text: string,
  billed: string[],
  charged: Map<string, number>,
  candidates: { index: number; key: string; line: string }[],
): ChunkAdjust | null {
  const owed = new Map(charged);
  for (const key of billed) owed.set(key, (owed.get(key) ?? 0) - 1);
  const lines = text.split('\n').filter(Boolean);
  const at = new Map(lines.map((l, i) => [indexOfLine(l), i]));
  const change: ChunkAdjust = { text, billed: [], counts: { succeeded: 0, failed: 0, cache_hits: 0, credits: 0 } };
  for (const c of candidates) {
    const left = owed.get(c.key) ?? 0;
    const i = at.get(c.index);
    if (left <= 0 || i === undefined) continue;
    const old = JSON.parse(lines[i]!) as { ok: boolean; meta?: LookupMeta };
    if (old.ok && old.meta!.credits > 0) continue;
    owed.set(c.key, left - 1);
    lines[i] = c.line;
    change.billed.push(c.key);
    change.counts.credits += 1;
    if (!old.ok) {
      change.counts.succeeded += 1;
      change.counts.failed -= 1;
    } else if (old.meta!.cached) change.counts.cache_hits -= 1;
  }
  if (change.billed.length === 0) return null;
  change.text = lines.map((l) => `${l}\n`).join('');
  return change;
}

/**
 * Charges to take back: for each entry key, as many of its charges as `owed` counts (owed and reported by no
 * line), none whose reservation id is in `keep` (a run's own).
 */
function pickCharges(
  charges: readonly LedgerEntry[],
  owed: Map<string, number>,
  keep: ReadonlySet<string>,
): LedgerEntry[] {
  const left = new Map(owed);
  return charges.filter((e) => {
    const n = left.get(e.cacheKey) ?? 0;
    if (n <= 0 || keep.has(e.reservationId)) return false;
    left.set(e.cacheKey, n - 1);
    return true;
  });
}

/**
 * Takes charges back (voidReservation: the ledger entry, the account's usage and its day's credit). The ref
 * is the one the charge's reservation was made with, as of the charge's time. No usage alert: one is sent for
 * a charge, not for its taking back.
 */
async function voidCharges(deps: CoreDeps, account: Account, charges: readonly LedgerEntry[]): Promise<void> {
  for (const e of charges) {
    const terms = reserveRequest(account, deps.config, new Date(e.at), e.reservationId);
    await deps.store.voidReservation({
      reservationId: e.reservationId,
      accountId: e.accountId,
      period: terms.period,
      day: terms.budget.day,
      scope: terms.budget.scope,
      requestId: e.requestId,
      chargedAt: e.at,
    });
  }
}

/**
 * A chunk of a cancelled or failed job that is not run (skipped) but had a round (an earlier round settled
 * lines, or its round began): no run will report the charges under its request id that its settled billed keys
 * do not show (a dead run's), so they are taken back.
 */
async function voidSkipped(
  deps: CoreDeps,
  account: Account,
  jobId: string,
  chunk: number,
  start: Extract<ChunkStart, { state: 'skip' }>,
): Promise<void> {
  if (start.settled || (start.status !== 'cancelled' && start.status !== 'failed')) return;
  if (start.round === 0 && !start.begun) return;
  const charges = await deps.store.chargesOf(chunkRequestId(jobId, chunk));
  const leftovers = pickCharges(charges, chargesOwed(charges, start.billed), new Set());
  if (leftovers.length === 0) return;
  await voidCharges(deps, account, leftovers);
  deps.logger.warn(
    { job: jobId, chunk, status: start.status, reservations: leftovers.map((e) => e.reservationId) },
    'job chunk skipped: charges no result reports taken back',
  );
}

/**
 * A cancelled or failed job's chunks that no run will reach (dropped from the queue by the cancel, or skipped as
 * the job is final), their charges no line reports taken back (voidSkipped): each is started, skipped. Best
 * effort: a chunk whose store call fails is logged, its charges left as they are.
 */
export async function voidSkippedChunks(
  deps: CoreDeps,
  jobs: JobStore,
  job: JobRecord,
  account: Account,
  chunks: readonly number[],
): Promise<void> {
  const now = deps.clock();
  await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const start = await jobs.startChunk(job.id, chunk, now.getTime(), now.toISOString());
        if (start.state === 'skip') await voidSkipped(deps, account, job.id, chunk, start);
      } catch (err) {
        deps.logger.warn({ err, job: job.id, chunk }, 'job chunk skipped: its unreported charges not taken back');
      }
    }),
  );
}

/** Entry keys of the chunk's charges not yet reported by earlier rounds (`billed`), with how many times. */
function chargesOwed(charges: readonly LedgerEntry[], billed: string[]): Map<string, number> {
  const owed = new Map<string, number>();
  for (const e of charges) owed.set(e.cacheKey, (owed.get(e.cacheKey) ?? 0) + 1);
  for (const key of billed) owed.set(key, (owed.get(key) ?? 0) - 1);
  return owed;
}

/**
 * The reservation id of a chunk's live read of a home in a run of round `round`:
 * `<requestId>|r<round>|<homeKey>`, and `#<n>` after it for the run's n-th read of the home (n > 1). The same
 * in every run of the round, so a re-run adopts (reserve) or charges (chargeUnbilledRead) what its dead run
 * held; another in each round, so a later round that reads the home again charges under an id of its own (one
 * charge per id: the request's charges are indexed by it), and a charge names the round that made it.
 */
export const chunkReservationId = (requestId: string, round: number, homeKey: string, nth = 1): string =>
  `${requestId}|r${round}|${homeKey}${nth > 1 ? `#${nth}` : ''}`;

/** The round a chunk's reservation id names (chunkReservationId); null for an id made otherwise. */
const roundOfReservation = (id: string): number | null => {
  const m = /\|r(\d+)\|/.exec(id);
  return m ? Number(m[1]) : null;
};

/** A run's reservation ids (chunkReservationId), the n-th read of a home in the run numbered. */
function reservationIds(requestId: string, round: number): (homeKey: string) => string {
  const reads = new Map<string, number>();
  return (homeKey) => {
    const nth = (reads.get(homeKey) ?? 0) + 1;
    reads.set(homeKey, nth);
    return chunkReservationId(requestId, round, homeKey, nth);
  };
}

/**
 * Charges a read a dead run of the chunk's round made and did not charge: only when the home's cached entry is
 * that read's (its readBy is the round's reservation id for the home), never a read another request made
 * meanwhile; true when charged. The reservation the dead run held is committed if it still is; when it is
 * not (the sweep gave it back: the take-over comes after JOB_LOCK_MS, mostly longer than LEASE_TTL_MS)
 * and no charge was made under it (`charged`, which a charge made here joins), the read is charged anew
 * under the same id (which joins `own`, this run's charges).
 */
async function chargeUnbilledRead(
  deps: CoreDeps,
  account: Account,
  requestId: string,
  round: number,
  item: BatchItemResult,
  entryKey: string,
  charged: Set<string>,
  own: Set<string>,
): Promise<boolean> {
  if (!item.ok) return false;
  const reservationId = chunkReservationId(requestId, round, homeKeyOf(item.locator));
  if (charged.has(reservationId)) return false;
  // A store call that fails (store_unavailable) fails the run: the next run finds under the request
  // whatever of this one's landed (chargesOf), so nothing is charged without being reported.
  const [entry] = await deps.store.getEntries([entryKey]);
  if (entry?.readBy !== reservationId) return false;
  const charge = async (kind: LedgerEntry['kind']): Promise<boolean> => {
    const done = await deps.store.commit({
      reservationId,
      accountId: account.id,
      cacheKey: entryKey,
      requestId,
      kind,
      at: deps.clock().toISOString(),
      source: sourceOf(entry.source.provider),
    });
    if (done) {
      charged.add(reservationId);
      own.add(reservationId);
      const at = deps.clock();
      deps.charges?.emit({ account, period: periodOf(account, at), at: at.toISOString() });
    }
    return done;
  };
  if (await charge('included')) return true;
  const held = await deps.store.reserve(reserveRequest(account, deps.config, deps.clock(), reservationId));
  if (!held?.ok) return false;
  if (await charge(held.kind)) return true;
  await deps.store.release(reservationId).catch(() => undefined);
  return false;
}

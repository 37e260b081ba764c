// The fallback provider: the listing site read by a scraping actor on a third-party platform (Apify's
// API; research: fallback-platform.md). A link goes to the actor as `startUrls: [{ url }]`, an address
// as `addresses: [line]` (one paid run finds and reads the home), with `propertyStatus` when the
// caller gave a status; the cost cap goes in the query, never in the input. Items are matched to the
// input by zpid or `addressOrUrlFromInput`, never by position; the one chosen must carry the core fields.
import pino, { type Logger } from 'pino';
import { LookupError, homePathForZpid, publicLink, type StatusHint } from '../../contract/index.js';
import { bestCandidate, partsWithUnit } from '../../address/index.js';
import { addressAmbiguous } from '../address-ambiguous.js';
import type { MappedProperty } from '../mapping/index.js';
import type {
  AddressQuery,
  Collected,
  Collector,
  CollectorStatus,
  ReadContext,
  ReadTarget,
  ResolvedAddress,
} from '../types.js';
import { inputOf, isMiss, mapItem, missingCoreFields, sameInput, zpidOf, type ActorItem } from './actor-item.js';
import { CostCap } from './cost-cap.js';
import { PlatformClient, minimumCapOf, stoppedAtCap, type Run } from './platform.js';
import { runActor, type RunResult } from './run.js';

export interface FallbackProviderOptions {
  /** Platform base URL, e.g. https://api.apify.com (config.fallback.url). */
  url: string;
  token: string;
  /** `owner/name` or `owner~name`. */
  actor: string;
  /** Per-lookup cost cap, USD. */
  maxCostUsd: number;
  /** Highest cap the service may use when the actor's minimum is above `maxCostUsd`, USD. */
  maxCostCeilingUsd: number;
  /** Reported in meta.source.provider. */
  name: string;
  /** How long one lookup waits for its run at most (config.lookupTimeoutMs); less when the read context's deadline is nearer. */
  timeoutMs: number;
  clock: () => Date;
  logger?: Logger;
  maxBytes?: number;
  /** First pause after a 429, ms. */
  backoffMs?: number;
}

const PROPERTY_STATUS: Record<StatusHint, string> = {
  for_sale: 'FOR_SALE',
  sold: 'RECENTLY_SOLD',
  for_rent: 'FOR_RENT',
};

export class FallbackProvider implements Collector {
  private readonly client: PlatformClient;
  private readonly cap: CostCap;
  private readonly logger: Logger;

  constructor(private readonly opts: FallbackProviderOptions) {
    this.logger = opts.logger ?? pino({ level: 'silent' });
    this.client = new PlatformClient({
      url: opts.url,
      token: opts.token,
      actor: opts.actor,
      logger: this.logger,
      ...(opts.maxBytes === undefined ? {} : { maxBytes: opts.maxBytes }),
      ...(opts.backoffMs === undefined ? {} : { backoffMs: opts.backoffMs }),
    });
    this.cap = new CostCap(
      opts.maxCostUsd,
      opts.maxCostCeilingUsd,
      async () => minimumCapOf(await this.client.actor(), opts.clock()),
      this.logger,
    );
  }

  get name(): string {
    return this.opts.name;
  }

  status(): CollectorStatus {
    return { selfHosted: null, fallback: this.opts.name };
  }

  /** Reads the actor's minimum cost cap (at start-up); logs what it finds, never throws. */
  checkCostCap(): Promise<void> {
    return this.cap.refresh();
  }

  async read(target: ReadTarget, ctx: ReadContext): Promise<Collected> {
    const url = publicLink(target.path);
    const result = await this.run({ startUrls: [{ url }] }, ctx);
    const mine = result.items.filter(
      (i): i is ActorItem =>
        isItem(i) &&
        ((inputOf(i) !== null && sameInput(inputOf(i)!, url)) || (target.zpid !== null && zpidOf(i) === target.zpid)),
    );
    const homes = mine.filter((i) => !isMiss(i));
    const answer = homes.find((i) => zpidOf(i) === target.zpid) ?? homes[0];
    if (!answer) throw this.noAnswer(result, mine);
    return this.collect(answer, this.map(answer, ctx), result.run);
  }

  /** Takes the address directly: one paid run finds and reads the home, held to the own resolver's address rules. */
  async resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress> {
    const line = address.input.trim();
    const result = await this.run({ addresses: [line] }, ctx);
    // Items of the old raw shape do not say which input they answer: the address rules pick among them.
    const mine = result.items.filter(
      (i): i is ActorItem => isItem(i) && (inputOf(i) === null || sameInput(inputOf(i)!, line)),
    );
    // Ranked first, checked after: another item without the core fields does not sink the answer.
    const homes = mine.filter((i) => !isMiss(i)).map((item) => ({ item, mapped: this.map(item, ctx) }));
    const best = bestCandidate(address.parts, homes, (h) => partsOf(h.mapped.property));
    if (!best) throw this.noAnswer(result, mine);
    const collected = this.collect(best.candidate.item, best.candidate.mapped, result.run);
    const zpid = collected.zpid;
    if (!zpid)
      throw new LookupError('upstream_bad_response', {
        details: { reason: 'item_without_zpid', run_id: result.run.id },
      });
    if (best.mismatch.length > 0) throw addressAmbiguous({ zpid, address: collected.property.address }, best.mismatch);
    return { zpid, path: homePathForZpid(zpid), collected };
  }

  private run(input: Record<string, unknown>, ctx: ReadContext): Promise<RunResult> {
    const withStatus = ctx.status ? { ...input, propertyStatus: PROPERTY_STATUS[ctx.status] } : input;
    return runActor(
      { client: this.client, cap: this.cap, timeoutMs: this.opts.timeoutMs, logger: this.logger },
      withStatus,
      ctx,
    );
  }

  private map(item: ActorItem, ctx: ReadContext): Mapped {
    return mapItem(item, { now: ctx.now, scrapedAt: this.opts.clock().toISOString() });
  }

  /** The chosen item as a record; one without the core fields is not an answer (not billed, not cached). */
  private collect(item: ActorItem, { property, building, sections }: Mapped, run: Run): Collected {
    const missing = missingCoreFields(property, building);
    if (missing.length > 0) {
      throw new LookupError('upstream_bad_response', {
        details: { reason: 'item_without_core_fields', missing, run_id: run.id },
      });
    }
    return {
      property,
      raw: item,
      sections,
      zpid: zpidOf(item) ?? property.zpid,
      source: {
        provider: this.opts.name,
        note: "Read by the fallback provider's scraping actor.",
        actor: this.opts.actor,
        run_id: run.id,
      },
    };
  }

  /** Why a run gave no home for our input, read from the run object and the items that answer it. */
  private noAnswer({ run, items }: RunResult, mine: ActorItem[]): LookupError {
    const details = { run_id: run.id, run_status: run.status };
    const miss = mine.find(isMiss);
    if (miss)
      return new LookupError('not_found', {
        details: {
          ...details,
          reason: typeof miss.invalidReason === 'string' ? miss.invalidReason : 'provider_found_nothing',
        },
      });
    if (stoppedAtCap(run)) {
      return new LookupError('upstream_cost_cap', {
        details: { ...details, usage_usd: run.usageTotalUsd, max_total_charge_usd: run.maxTotalChargeUsd },
      });
    }
    const message = run.statusMessage ? { status_message: run.statusMessage.slice(0, 300) } : {};
    if (run.status === 'TIMED-OUT')
      return new LookupError('upstream_timeout', { details: { ...details, reason: 'run_timed_out', ...message } });
    if (run.status !== 'SUCCEEDED')
      return new LookupError('upstream_run_failed', { details: { ...details, ...message } });
    // This actor reports a miss as an item, so a dataset without one for our input is a failed run.
    if (items.length === 0)
      return new LookupError('upstream_run_failed', { details: { ...details, reason: 'empty_dataset', ...message } });
    return new LookupError('upstream_bad_response', { details: { ...details, reason: 'no_item_for_input' } });
  }
}

type Mapped = ReturnType<typeof mapItem>;

const isItem = (i: unknown): i is ActorItem => typeof i === 'object' && i !== null && !Array.isArray(i);

const partsOf = (p: MappedProperty) => partsWithUnit(p.streetAddress ?? '', p.unit, p.city, p.state, p.zipcode);

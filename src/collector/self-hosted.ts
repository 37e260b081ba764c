// The own collector: reads the listing site's public pages and its address-suggestion endpoint.
import { LookupError, homePathForZpid } from '../contract/index.js';
import { bestCandidate, partsFromPieces, type AddressPieces } from '../address/index.js';
import { addressAmbiguous } from './address-ambiguous.js';
import type { PagePool } from './page-pool.js';
import { Canary } from './site/canary.js';
import type { AttemptOutcome, SiteClient } from './site/client.js';
import type {
  AddressQuery,
  Collected,
  Collector,
  CollectorStatus,
  ReadContext,
  ReadTarget,
  ResolvedAddress,
} from './types.js';

export const SELF_HOSTED = 'self_hosted';

// Pages that describe one property; anything else after redirects is a search or landing page.
const PROPERTY_PAGE = /^\/(?:homedetails|apartments|b|community)\//;

export interface SelfHostedOptions {
  /** config.portalOrigin */
  origin: string;
  /** config.portalSuggestUrl */
  suggestUrl: string;
  client: SiteClient;
  /** Reads pages off the event loop. */
  pages: PagePool;
  clock: () => Date;
  /** PORTAL_CANARY_ZPIDS, read every intervalMs (none: no canary). */
  canary?: { zpids: readonly string[]; intervalMs: number; readTimeoutMs: number };
}

interface Suggestion extends AddressPieces {
  zpid: string;
  display: string;
}

export class SelfHostedCollector implements Collector {
  readonly #canary: Canary | null;
  readonly #canaryListeners = new Set<(outcome: AttemptOutcome) => void>();

  constructor(private readonly opts: SelfHostedOptions) {
    const c = opts.canary;
    this.#canary =
      c && c.zpids.length > 0
        ? new Canary({
            ...c,
            read: (zpid, signal) =>
              this.read(
                { path: homePathForZpid(zpid), zpid, building: false },
                { signal, now: opts.clock(), probe: true },
              ),
            onRead: (outcome) => {
              for (const l of this.#canaryListeners) l(outcome);
            },
          })
        : null;
    this.#canary?.start();
  }

  /** Tells `listener` of each canary read's outcome; returns how to stop. */
  onCanary(listener: (outcome: AttemptOutcome) => void): () => void {
    this.#canaryListeners.add(listener);
    return () => this.#canaryListeners.delete(listener);
  }

  async read(target: ReadTarget, ctx: ReadContext): Promise<Collected> {
    const page = await this.opts.client.page(this.opts.origin + target.path, siteRequest(ctx));
    // The site sends unknown slugs and dead links to a search page with a 200.
    if (!PROPERTY_PAGE.test(new URL(page.url).pathname)) {
      throw new LookupError('not_found', { details: { reason: 'redirected_to_search' } });
    }
    const data = await this.opts.pages.read(page.body, {
      want: { zpid: target.zpid, building: target.building },
      scrapedAt: this.opts.clock().toISOString(),
      now: ctx.now.toISOString(),
    });
    if (data.kind === 'blocked')
      throw new LookupError('upstream_blocked', { details: { reason: 'bot_wall', status: page.status } });
    const { property, rawJson, sections, zpid } = data;
    const source =
      data.kind === 'building'
        ? { provider: SELF_HOSTED, note: 'Read from the public apartment-building page.' }
        : { provider: SELF_HOSTED, note: 'Read from the public listing page.', page_generation: data.generation };
    return { property, raw: null, rawJson, sections, zpid, source };
  }

  /** Tells `listener` of each request made to the site; returns how to stop. */
  onAttempt(listener: Parameters<SiteClient['onAttempt']>[0]): () => void {
    return this.opts.client.onAttempt(listener);
  }

  /** Stops the page-reading workers and drops the site's sessions. */
  async close(): Promise<void> {
    await this.#canary?.close();
    this.opts.client.close();
    await this.opts.pages.close();
  }

  status(): CollectorStatus {
    const site = { ...this.opts.client.status(), ...(this.#canary ? { canary: this.#canary.last() } : {}) };
    return { selfHosted: this.opts.pages.status(), fallback: null, site };
  }

  async resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress> {
    const url = new URL(this.opts.suggestUrl);
    // The parameters the site's own search box sends (research §7).
    url.searchParams.set('q', address.input.trim());
    url.searchParams.set('resultTypes', 'allAddress');
    url.searchParams.set('resultCount', '5');
    url.searchParams.set('clientId', 'homepage-render');
    const body = await this.opts.client.json(url.toString(), siteRequest(ctx));
    const suggestions = readSuggestions(body);
    const best = bestCandidate(address.parts, suggestions, partsFromPieces);
    if (!best) throw new LookupError('not_found', { details: { reason: 'no_address_match' } });
    const { candidate, mismatch } = best;
    if (mismatch.length > 0) throw addressAmbiguous({ zpid: candidate.zpid, address: candidate.display }, mismatch);
    return { zpid: candidate.zpid, path: homePathForZpid(candidate.zpid) };
  }
}

const siteRequest = (ctx: ReadContext) => ({
  signal: ctx.signal,
  ...(ctx.deadlineAt === undefined ? {} : { deadlineAt: ctx.deadlineAt }),
  ...(ctx.probe ? { probe: true } : {}),
});

const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

/** The Address rows of a suggestion answer; anything not shaped like one is unreadable. */
function readSuggestions(body: unknown): Suggestion[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) {
    throw new LookupError('upstream_bad_response', { details: { reason: 'suggestions_without_results' } });
  }
  const out: Suggestion[] = [];
  for (const r of results as Array<{ display?: unknown; resultType?: unknown; metaData?: Record<string, unknown> }>) {
    const m = r?.metaData;
    if (String(r?.resultType).toLowerCase() !== 'address' || !m) continue;
    const zpid = str(m.zpid);
    const streetNumber = str(m.streetNumber);
    const streetName = str(m.streetName);
    if (!zpid || !/^\d+$/.test(zpid) || !streetNumber || !streetName) continue;
    out.push({
      zpid,
      display: str(r.display) ?? `${streetNumber} ${streetName}`,
      streetNumber,
      streetName,
      unitNumber: str(m.unitNumber),
      city: str(m.city),
      state: str(m.state),
      zipCode: str(m.zipCode),
    });
  }
  return out;
}

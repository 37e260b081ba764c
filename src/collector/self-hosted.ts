// The own collector: reads the listing site's public pages and its address-suggestion endpoint.
import { LookupError, homePathForZpid } from '../contract/index.js';
import { bestCandidate, partsFromPieces, type AddressPieces } from '../address/index.js';
import { addressAmbiguous } from './address-ambiguous.js';
import type { PagePool } from './page-pool.js';
import type { SiteClient } from './site-client.js';
import type { AddressQuery, Collected, Collector, CollectorStatus, ReadContext, ReadTarget, ResolvedAddress } from './types.js';

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
}

interface Suggestion extends AddressPieces {
  zpid: string;
  display: string;
}

export class SelfHostedCollector implements Collector {
  constructor(private readonly opts: SelfHostedOptions) {}

  async read(target: ReadTarget, ctx: ReadContext): Promise<Collected> {
    const page = await this.opts.client.page(this.opts.origin + target.path, { signal: ctx.signal });
    // The site sends unknown slugs and dead links to a search page with a 200.
    if (!PROPERTY_PAGE.test(new URL(page.url).pathname)) {
      throw new LookupError('not_found', { details: { reason: 'redirected_to_search' } });
    }
    const data = await this.opts.pages.read(page.body, {
      want: { zpid: target.zpid, building: target.building },
      scrapedAt: this.opts.clock().toISOString(),
      now: ctx.now.toISOString(),
    });
    if (data.kind === 'blocked') throw new LookupError('upstream_blocked', { details: { reason: 'bot_wall', status: page.status } });
    const { property, rawJson, sections, zpid } = data;
    const source =
      data.kind === 'building'
        ? { provider: SELF_HOSTED, note: 'Read from the public apartment-building page.' }
        : { provider: SELF_HOSTED, note: 'Read from the public listing page.', page_generation: data.generation };
    return { property, raw: null, rawJson, sections, zpid, source };
  }

  /** Stops the page-reading workers. */
  close(): Promise<void> {
    return this.opts.pages.close();
  }

  status(): CollectorStatus {
    return { selfHosted: this.opts.pages.status(), fallback: null };
  }

  async resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress> {
    const url = new URL(this.opts.suggestUrl);
    // The parameters the site's own search box sends (research §7).
    url.searchParams.set('q', address.input.trim());
    url.searchParams.set('resultTypes', 'allAddress');
    url.searchParams.set('resultCount', '5');
    url.searchParams.set('clientId', 'homepage-render');
    const body = await this.opts.client.json(url.toString(), { signal: ctx.signal, referer: `${this.opts.origin}/` });
    const suggestions = readSuggestions(body);
    const best = bestCandidate(address.parts, suggestions, partsFromPieces);
    if (!best) throw new LookupError('not_found', { details: { reason: 'no_address_match' } });
    const { candidate, mismatch } = best;
    if (mismatch.length > 0) throw addressAmbiguous({ zpid: candidate.zpid, address: candidate.display }, mismatch);
    return { zpid: candidate.zpid, path: homePathForZpid(candidate.zpid) };
  }
}

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

// What the lookup core asks of a collector. The core never sees HTML, providers or origins.
import type { AddressParts } from '../address/index.js';
import type { ErrorCode, LookupSource, PortalProperty, StatusHint } from '../contract/index.js';
import type { Sections } from '../contract/sections.js';
import type { CanaryRound } from './site/canary.js';
import type { SiteStatus } from './site/client.js';

/** A page of the listing site to read: a home by zpid, or any property path (home or building). */
export interface ReadTarget {
  /** Path and query to request from the listing site's origin, e.g. `/homedetails/123_zpid/`. */
  path: string;
  /** The zpid asked for, when known (home links and zpid lookups); null for building links. */
  zpid: string | null;
  /** True for apartment-building links. */
  building: boolean;
}

export interface ReadContext {
  signal: AbortSignal;
  status?: StatusHint;
  /** The lookup date; apartment-building unit availability depends on it. */
  now: Date;
  /** Epoch ms the lookup's time limit ends (set where the core starts it): a paid provider run is given no longer. */
  deadlineAt?: number;
  /** The canary's read: the own collector goes to the site even while its circuit breaker is open. */
  probe?: boolean;
}

/** A record read from the site (or a provider), mapped to the contract. */
export interface Collected {
  /** The mapped record, without `raw`. `scrapedAt` is set. */
  property: Omit<PortalProperty, 'raw'>;
  /** The unmapped source record (the property or building object). */
  raw: unknown;
  /** `raw` as JSON text, when the collector has it so (the page workers write it off the event loop); used instead of stringifying `raw`. */
  rawJson?: string;
  /** The zpid of what was actually read; may differ from the one asked for. */
  zpid: string | null;
  source: LookupSource;
  /** Which sections the page (or provider item) held, decided from it beside the mapping (mapping/sections.ts). */
  sections: Sections;
}

/** Where an address resolved to on the listing site. */
export interface ResolvedAddress {
  zpid: string;
  /** Path of the home's page on the listing site. */
  path: string;
  /**
   * Set when resolving already read the home (the fallback provider takes the address directly and
   * returns the record in the same paid run). Use it instead of calling `read`, which would pay twice.
   */
  collected?: Collected;
}

export interface AddressQuery {
  input: string;
  normalized: string;
  parts: AddressParts;
}

/**
 * Reads the listing site. Failures are LookupErrors with a spec code (not_found, address_ambiguous,
 * upstream_*); anything else is treated as internal by the core.
 */
export interface Collector {
  /** Finds the home an address names (throws not_found or address_ambiguous). */
  resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress>;
  /** Reads one property page and maps it. */
  read(target: ReadTarget, ctx: ReadContext): Promise<Collected>;
  /** Releases what it holds (worker threads); called when the service closes. */
  close?(): Promise<void>;
  /** What it is set up to do and how busy its page workers are (for /readyz and the metrics). */
  status?(): CollectorStatus;
}

/** A collector's set-up, as /readyz reports it. */
export interface CollectorStatus {
  /** The own collector's page workers (null when the own collector is off). */
  selfHosted: PageWorkersStatus | null;
  /** The fallback provider's name (null when none is set up). */
  fallback: string | null;
  /** Set when every read fails with this configuration: the code and why. */
  unavailable?: { code: ErrorCode; reason: string };
  /** The own collector's client of the site: its breaker, sessions and slots, and the canary's last round. */
  site?: SiteStatus & { canary?: CanaryRound | null };
}

export interface PageWorkersStatus {
  /** Worker threads running (none before the first read). */
  threads: number;
  maxThreads: number;
  /** Pages waiting for a worker, and how many may wait. */
  queued: number;
  maxQueue: number;
  /** Stopped (the service is shutting down): reads are refused. */
  closed: boolean;
}

/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** Any JSON value, passed through unchanged (objects keep their REST key names). */
  JSON: { input: unknown; output: unknown; }
};

/** The caller's plan and usage (REST: data of GET /v1/account). */
export type AccountUsage = {
  __typename?: 'AccountUsage';
  /** Lookups the plan includes in the period (free plan: the one-time allotment) */
  included: Scalars['Int']['output'];
  /** The visible prefix of the API key in use */
  keyPrefix: Scalars['String']['output'];
  /** True when lookups past the included ones are billed at the overage rate instead of refused */
  overageEnabled: Scalars['Boolean']['output'];
  /** Overage charges so far in this period, USD */
  overageUsd: Scalars['Float']['output'];
  /** Lookups billed past the included ones in this period */
  overageUsed: Scalars['Int']['output'];
  /** End of the billing period; null for the free plan */
  periodEnd?: Maybe<Scalars['String']['output']>;
  /** free (a one-time allotment) or paid (included lookups per billing period) */
  plan: Scalars['String']['output'];
  /** Included lookups left */
  remaining: Scalars['Int']['output'];
  /** Monthly overage spend limit, USD; null when none is set */
  spendLimitUsd?: Maybe<Scalars['Float']['output']>;
  /** Live lookups billed in the current period (free plan: ever) */
  used: Scalars['Int']['output'];
};

/** A part in which the matched address differs from the input and that was tolerated */
export type AddressDifference = {
  __typename?: 'AddressDifference';
  /** The part of the address that differs */
  field: AddressDifferenceField;
  /** As the input wrote it; null when the input left it out */
  input?: Maybe<Scalars['String']['output']>;
  /** spelling: written otherwise, the same after normalization (Street/St, North/N, #/APT, Saint/St, Illinois/IL); missing_in_input: the input left it out; missing_in_match: the matched address has none; different: different after normalization */
  kind: AddressDifferenceKind;
  /** As the matched address writes it; null when it has none */
  matched?: Maybe<Scalars['String']['output']>;
};

/** The part of an address a match difference is in (AddressDifference.field). */
export type AddressDifferenceField =
  /** REST: city */
  | 'CITY'
  /** REST: directional */
  | 'DIRECTIONAL'
  /** REST: house_number */
  | 'HOUSE_NUMBER'
  /** REST: state */
  | 'STATE'
  /** REST: street_name */
  | 'STREET_NAME'
  /** REST: street_type */
  | 'STREET_TYPE'
  /** REST: unit */
  | 'UNIT'
  /** REST: unit_designator */
  | 'UNIT_DESIGNATOR'
  /** REST: zipcode */
  | 'ZIPCODE';

/** How a part of an address differs in a match (AddressDifference.kind). */
export type AddressDifferenceKind =
  /** REST: different */
  | 'DIFFERENT'
  /** REST: missing_in_input */
  | 'MISSING_IN_INPUT'
  /** REST: missing_in_match */
  | 'MISSING_IN_MATCH'
  /** REST: spelling */
  | 'SPELLING';

/** How the address given matches the answered home's address */
export type AddressMatch = {
  __typename?: 'AddressMatch';
  /** 1 when every part matches as written (case and punctuation aside) and the input left nothing out; each difference takes its weight off (docs/address-match.md) */
  confidence: Scalars['Float']['output'];
  /** What differs, in the order house_number, street_name, street_type, directional, unit, unit_designator, city, state, zipcode; empty for an exact match */
  differences: Array<AddressDifference>;
  /** The address as given */
  input: Scalars['String']['output'];
  /** The answered home's one-line address, as the listing site writes it */
  matchedAddress?: Maybe<Scalars['String']['output']>;
  /** The address as normalized (the `addr:` cache key without its prefix) */
  normalized: Scalars['String']['output'];
};

/** The result of one item, in its own right: one failed item never fails the batch (REST: an element of data). */
export type BatchItemResult = {
  __typename?: 'BatchItemResult';
  /** Dry run: the key the home is known by (`zpid:…`, `addr:…`, `bldg:…`), as meta.cache_key reports it; items naming the same home share it; absent on a failing item */
  cacheKey?: Maybe<Scalars['String']['output']>;
  /** One home. Every field is present; null means the listing site does not display it, never zero. */
  data?: Maybe<PortalProperty>;
  /** Why this item failed; null when ok */
  error?: Maybe<LookupError>;
  /** Position of the item in the request, from 0 */
  index: Scalars['Int']['output'];
  /** How the lookup was served and billed */
  meta?: Maybe<LookupMeta>;
  /** True when the item succeeded (data and meta), false when it failed (error). Dry run: true when the item would be looked up, false when it would fail without a read */
  ok: Scalars['Boolean']['output'];
  /** Dry run: credits the item would cost now. 1 for a live read; 0 for a home the cache would serve (an address looked up before included), a later item naming the same home as an earlier one (billed once), or an item that would fail without a read */
  wouldCost?: Maybe<Scalars['Int']['output']>;
};

/** The results of Query.properties (REST: the 200 body of POST /v1/portal/batch; `data` is called `results` here). */
export type BatchLookup = {
  __typename?: 'BatchLookup';
  /** Totals of the batch */
  meta: BatchMeta;
  /** One result per item, each with its `index`. In item order; with @stream, in the order the homes finish (read `index`), so the first homes arrive while slow ones are still being read. */
  results: Array<BatchItemResult>;
};

/** Totals of the batch (REST: meta). Dry run: creditsEstimate, creditsAvailable and affordable are set, succeeded and failed count the items that would be looked up or fail without a read, cacheHits those that would cost 0, credits is 0 (REST: BatchPreviewMeta). */
export type BatchMeta = {
  __typename?: 'BatchMeta';
  /** Dry run: true when credits_estimate is within credits_available (always when it is 0): the batch would not be refused 402 or live_lookups_capped */
  affordable?: Maybe<Scalars['Boolean']['output']>;
  /** Succeeded items served from the cache (0 credits) */
  cacheHits: Scalars['Int']['output'];
  /** Items in the request */
  count: Scalars['Int']['output'];
  /** Credits charged: successful live lookups only */
  credits: Scalars['Int']['output'];
  /** Dry run: live lookups the account could pay for now (included lookups left, overage up to the spend limit, the daily live-lookup budget's room; lookups in flight hold theirs); null when nothing limits them */
  creditsAvailable?: Maybe<Scalars['Int']['output']>;
  /** Dry run: the sum of would_cost, what the batch would charge now at most (a live read that fails is free) */
  creditsEstimate?: Maybe<Scalars['Int']['output']>;
  /** Items that failed */
  failed: Scalars['Int']['output'];
  /** Items that succeeded */
  succeeded: Scalars['Int']['output'];
  /** Milliseconds taken by the whole batch */
  tookMs: Scalars['Int']['output'];
};

/** One change since the earlier snapshot of the home. daysOnPortal is reported only when its count went down (relisted); a new priceHistory event is one change each. */
export type FieldChange = {
  __typename?: 'FieldChange';
  /** The PortalProperty field that changed */
  field: Scalars['String']['output'];
  /** The earlier snapshot's value (null when it had none; null for a new priceHistory event) */
  from?: Maybe<Scalars['JSON']['output']>;
  /** The value now; for priceHistory, the new event */
  to?: Maybe<Scalars['JSON']['output']>;
};

/** The listing status of a home (PortalProperty.homeStatus). Homes that are not listed usually come back as OTHER. */
export type HomeStatus =
  /** Announced for sale, not yet on the market */
  | 'COMING_SOON'
  /** In foreclosure or bank-owned */
  | 'FORECLOSURE'
  /** Listed for rent */
  | 'FOR_RENT'
  /** Listed for sale (auctions, new construction and for-sale-by-owner included) */
  | 'FOR_SALE'
  /** Off the market, as the listing site reports it */
  | 'OFF_MARKET'
  /** Any other status; homes that are not listed usually come back as OTHER */
  | 'OTHER'
  /** Under contract: pending or contingent */
  | 'PENDING'
  /** Sold; price is the sale price */
  | 'RECENTLY_SOLD';

/** A lookup that failed, as data. `code` is the stable spec code (REST: the error envelope's `error.code`); switch on it, not on the message. */
export type LookupError = {
  __typename?: 'LookupError';
  /** Stable error code (spec section 7; the table of codes: docs/rest.md, Headers and errors) */
  code: Scalars['String']['output'];
  /** Code-specific details, e.g. `candidate` for address_ambiguous or `upgrade_url` for credits_exhausted (REST: `error.details`) */
  details?: Maybe<Scalars['JSON']['output']>;
  /** What happened, for people */
  message: Scalars['String']['output'];
  /** Seconds to wait before retrying, when the failure says so (REST: the retry-after header of a single lookup; `details.retry_after` of a batch item) */
  retryAfter?: Maybe<Scalars['Int']['output']>;
};

/** One home to look up: exactly one of url, address, zpid, and optionally its own maxAge (REST: a batch item object). */
export type LookupItem = {
  /** One-line US address with house number and either city + state or ZIP; 5 to 200 characters. Include the unit for condos and apartments. */
  address?: InputMaybe<Scalars['String']['input']>;
  /** This item's max_age, seconds (0 to 86400), over the batch's. */
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  /** A home-details link ending in `<zpid>_zpid/`, or an apartment-building link (/apartments/…). At most 500 characters. */
  url?: InputMaybe<Scalars['String']['input']>;
  /** The property ID, 1 to 12 digits. */
  zpid?: InputMaybe<Scalars['String']['input']>;
};

/** A lookup job. Kept, with its results, for 7 days after it was made. (REST: GET /v1/portal/jobs/<id>.) */
export type LookupJob = {
  __typename?: 'LookupJob';
  /** Succeeded items served from the cache (0 credits) */
  cacheHits: Scalars['Int']['output'];
  /** Items in the job */
  count: Scalars['Int']['output'];
  /** When the job was made */
  createdAt: Scalars['String']['output'];
  /** Credits charged so far: successful live lookups only, each item at most once */
  credits: Scalars['Int']['output'];
  /** Items with a result so far */
  done: Scalars['Int']['output'];
  /** Items that failed (their result says why) */
  failed: Scalars['Int']['output'];
  /** When it became completed or failed, or, cancelled, once no chunk of it ran any more; null before */
  finishedAt?: Maybe<Scalars['String']['output']>;
  /** The job id */
  id: Scalars['String']['output'];
  /** The results of the items done so far, in item order, 50 (at most 500) per page, and at most 500 across all results fields of one request (REST: GET /v1/portal/jobs/<id>/results). */
  results?: Maybe<LookupJobResultPage>;
  /** When its first item started; null while queued */
  startedAt?: Maybe<Scalars['String']['output']>;
  /** queued (no item started), running, completed (every item has its result), cancelled (DELETE: the items not started have none), failed (the job itself could not run) */
  status: LookupJobStatus;
  /** Items found (ok) */
  succeeded: Scalars['Int']['output'];
  /** Items held for the daily live-lookup limit (live_lookups_capped): read again at waiting_until, not failed */
  waiting: Scalars['Int']['output'];
  /** When held items run again (00:00 UTC); null when none is held */
  waitingUntil?: Maybe<Scalars['String']['output']>;
  /** Where job.completed / job.failed is sent; null: no webhook */
  webhookUrl?: Maybe<Scalars['String']['output']>;
};


/** A lookup job. Kept, with its results, for 7 days after it was made. (REST: GET /v1/portal/jobs/<id>.) */
export type LookupJobResultsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: Scalars['Int']['input'];
};

/** A page of the account's jobs, newest first (REST: GET /v1/portal/jobs). */
export type LookupJobPage = {
  __typename?: 'LookupJobPage';
  /** Pass as `after` for the next (older) page; null: no more */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when there are older jobs (after endCursor) */
  hasNextPage: Scalars['Boolean']['output'];
  /** The jobs of this page, newest first */
  jobs: Array<LookupJob>;
};

/** A page of a job's results, in item order (REST: lines of GET /v1/portal/jobs/<id>/results). */
export type LookupJobResultPage = {
  __typename?: 'LookupJobResultPage';
  /** Pass as `after` for the next page: the index of this page's last result (null when the page is empty and no cursor was given) */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when more results are ready now (a running job adds more later: ask again after endCursor) */
  hasNextPage: Scalars['Boolean']['output'];
  /** The results of this page, each with its item index */
  items: Array<BatchItemResult>;
};

/** queued (no item started), running, completed (every item has its result), cancelled (DELETE: the items not started have none), failed (the job itself could not run) */
export type LookupJobStatus =
  /** REST: cancelled */
  | 'CANCELLED'
  /** REST: completed */
  | 'COMPLETED'
  /** REST: failed */
  | 'FAILED'
  /** REST: queued */
  | 'QUEUED'
  /** REST: running */
  | 'RUNNING';

/** How the lookup was served and billed (REST: meta). */
export type LookupMeta = {
  __typename?: 'LookupMeta';
  /** Seconds since this service read the record (0 for a live read); fetched_at can be earlier (a fallback provider's own collection time) */
  ageSeconds: Scalars['Int']['output'];
  /** `zpid:<zpid>` or `addr:<normalized address>` */
  cacheKey: Scalars['String']['output'];
  /** True when served from the 24-hour cache (or, with stale, the last good record kept past it) */
  cached: Scalars['Boolean']['output'];
  /** What changed since the earlier snapshot of this home that this record replaced; empty when nothing did; absent when it replaced none */
  changes?: Maybe<Array<FieldChange>>;
  /** Credits billed: 1 for a successful live lookup, 0 on a cache hit or a stale answer (and for a record read with a section in extraction_failed and without its core fields: see sections) */
  credits: Scalars['Int']['output'];
  /** When the data was collected; a cache hit keeps the original time */
  fetchedAt: Scalars['String']['output'];
  /** Address lookups only: how the address given matches the home answered, live or from the cache; absent for zpid and link lookups */
  match?: Maybe<AddressMatch>;
  /** With changes: the earlier snapshot's fetched_at */
  previousFetchedAt?: Maybe<Scalars['String']['output']>;
  /** Release label (v1) */
  release?: Maybe<Scalars['String']['output']>;
  /** What the page (or the fallback provider's item) held of each section, decided from the page, not from the record: present, not_published (the page says there is none), not_found (no such section on this page generation or kind of property), extraction_failed (held but unreadable). A record with an extraction_failed section is cached only briefly (INCOMPLETE_TTL_MS) and billed only with its core fields (docs/sections.md) */
  sections: LookupSections;
  /** Who collected the record, plus provider-specific descriptors */
  source: LookupSource;
  /** True when the live read failed (stale_reason) and the last good record was served instead (0 credits); absent otherwise */
  stale?: Maybe<Scalars['Boolean']['output']>;
  /** With stale: the error code the stale record stands in for (upstream_blocked, upstream_timeout, …) */
  staleReason?: Maybe<Scalars['String']['output']>;
  /** Milliseconds taken */
  tookMs: Scalars['Int']['output'];
  /** Present only when something needs checking */
  warning?: Maybe<Scalars['String']['output']>;
};

/** What the page (or the fallback provider's item) held of each section, decided from the page, not from the record: present, not_published (the page says there is none), not_found (no such section on this page generation or kind of property), extraction_failed (held but unreadable). A record with an extraction_failed section is cached only briefly (INCOMPLETE_TTL_MS) and billed only with its core fields (docs/sections.md) */
export type LookupSections = {
  __typename?: 'LookupSections';
  /** Whether the page held agentName, agentPhone, agentLicenseNumber */
  agent: SectionState;
  /** Whether the page held brokerName, brokerPhone */
  broker: SectionState;
  /** Whether the page held description */
  description: SectionState;
  /** Whether the page held estimate */
  estimate: SectionState;
  /** Whether the page held photos */
  photos: SectionState;
  /** Whether the page held priceHistory */
  priceHistory: SectionState;
  /** Whether the page held rentEstimate */
  rentEstimate: SectionState;
  /** Whether the page held schools */
  schools: SectionState;
  /** Whether the page held taxHistory */
  taxHistory: SectionState;
};

/** Who collected the record, plus provider-specific descriptors */
export type LookupSource = {
  __typename?: 'LookupSource';
  /** Provider-specific descriptor fields (e.g. page_generation), under their REST names; null when there are none */
  descriptors?: Maybe<Scalars['JSON']['output']>;
  /** self_hosted when the fallback provider was used */
  fallbackFrom?: Maybe<Scalars['String']['output']>;
  /** How the record was collected */
  note: Scalars['String']['output'];
  /** self_hosted, or the name of the fallback provider */
  provider: Scalars['String']['output'];
};

/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type Mutation = {
  __typename?: 'Mutation';
  /** Cancels what of the job has not started (REST: DELETE /v1/portal/jobs/<id>): those items are never read or billed; chunks already running finish and are billed, and finishedAt and the one job.completed come once they have. The job as it then stands. */
  cancelLookupJob: LookupJob;
  /** Queues a lookup job of 1 to 10,000 items (REST: POST /v1/portal/jobs): the items run in the background, billed as lookups; follow it with Query.job, or the webhook. At most 10,000 items per request across its createLookupJob fields (too_many_items). With an Idempotency-Key header, a retry makes no second job. */
  createLookupJob?: Maybe<LookupJob>;
  /** Sends an attempt's event again now (REST: POST /v1/webhooks/deliveries/<id>/redeliver): the same webhook-id and body to the same URL, one attempt, recorded as a redelivery. The attempt whose event is sent; another account's or an unknown id is the error not_found. */
  redeliverWebhook: WebhookDelivery;
  /** Ends a watch (REST: DELETE /v1/portal/watches/<id>): true once removed; another account's or an unknown id is the error not_found. */
  unwatchProperty: Scalars['Boolean']['output'];
  /** Watches a home (REST: POST /v1/portal/watches): read live every intervalHours (each check billed as a lookup), a signed property.changed webhook to webhookUrl when price, status, estimate, rent estimate or HOA changed. The first check runs at once. */
  watchProperty?: Maybe<Watch>;
};


/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type MutationCancelLookupJobArgs = {
  id: Scalars['ID']['input'];
};


/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type MutationCreateLookupJobArgs = {
  items: Array<LookupItem>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
  status?: InputMaybe<StatusHint>;
  webhookUrl?: InputMaybe<Scalars['String']['input']>;
};


/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type MutationRedeliverWebhookArgs = {
  id: Scalars['ID']['input'];
};


/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type MutationUnwatchPropertyArgs = {
  id: Scalars['ID']['input'];
};


/** Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe. */
export type MutationWatchPropertyArgs = {
  address?: InputMaybe<Scalars['String']['input']>;
  intervalHours?: InputMaybe<Scalars['Float']['input']>;
  url?: InputMaybe<Scalars['String']['input']>;
  webhookUrl?: InputMaybe<Scalars['String']['input']>;
  zpid?: InputMaybe<Scalars['String']['input']>;
};

/** One event of the price history. Every field is null when the page does not show it. */
export type PortalPriceEvent = {
  __typename?: 'PortalPriceEvent';
  /** Date of the event, YYYY-MM-DD */
  date?: Maybe<Scalars['String']['output']>;
  /** What happened, e.g. listed for sale, sold, price change */
  event?: Maybe<Scalars['String']['output']>;
  /** Price at the event, USD */
  price?: Maybe<Scalars['Float']['output']>;
  /** Change versus the previous event, as a fraction */
  priceChangeRate?: Maybe<Scalars['Float']['output']>;
  /** Price per square foot at the event, USD */
  pricePerSquareFoot?: Maybe<Scalars['Float']['output']>;
  /** Where the event was reported, e.g. the MLS */
  source?: Maybe<Scalars['String']['output']>;
};

/** One home. Every field is present; null means the listing site does not display it, never zero. */
export type PortalProperty = {
  __typename?: 'PortalProperty';
  /** One-line address */
  address?: Maybe<Scalars['String']['output']>;
  /** Agent licence number */
  agentLicenseNumber?: Maybe<Scalars['String']['output']>;
  /** Listing agent; null when none is named or the home is not listed */
  agentName?: Maybe<Scalars['String']['output']>;
  /** Agent phone */
  agentPhone?: Maybe<Scalars['String']['output']>;
  /** Bathrooms; null when not listed */
  baths?: Maybe<Scalars['Float']['output']>;
  /** Bedrooms; null when not listed */
  beds?: Maybe<Scalars['Float']['output']>;
  /** Listing broker; null when none is named or the home is not listed */
  brokerName?: Maybe<Scalars['String']['output']>;
  /** Broker phone */
  brokerPhone?: Maybe<Scalars['String']['output']>;
  /** City */
  city?: Maybe<Scalars['String']['output']>;
  /** County */
  county?: Maybe<Scalars['String']['output']>;
  /** Currency code of price */
  currency?: Maybe<Scalars['String']['output']>;
  /** Date listed, YYYY-MM-DD */
  datePosted?: Maybe<Scalars['String']['output']>;
  /** Date of last sale, YYYY-MM-DD */
  dateSold?: Maybe<Scalars['String']['output']>;
  /** Days the current listing has been up; null when not currently listed */
  daysOnPortal?: Maybe<Scalars['Int']['output']>;
  /** Listing description */
  description?: Maybe<Scalars['String']['output']>;
  /** The listing site's page for the property */
  detailUrl?: Maybe<Scalars['String']['output']>;
  /** The listing site's value estimate, when displayed */
  estimate?: Maybe<Scalars['Float']['output']>;
  /** Favorites supplied by the source; zero is meaningful; null when not returned */
  favoriteCount?: Maybe<Scalars['Int']['output']>;
  /** One of FOR_SALE, FOR_RENT, RECENTLY_SOLD, PENDING, COMING_SOON, FORECLOSURE, OFF_MARKET, OTHER */
  homeStatus?: Maybe<HomeStatus>;
  /** e.g. SINGLE_FAMILY, CONDO, TOWNHOUSE, MULTI_FAMILY, APARTMENT, LOT, MANUFACTURED */
  homeType?: Maybe<Scalars['String']['output']>;
  /** Main photo URL */
  imgSrc?: Maybe<Scalars['String']['output']>;
  /** Price of the last sale, USD */
  lastSoldPrice?: Maybe<Scalars['Float']['output']>;
  /** Latitude */
  latitude?: Maybe<Scalars['Float']['output']>;
  /** Living area, square feet; null when not listed */
  livingArea?: Maybe<Scalars['Float']['output']>;
  /** Longitude */
  longitude?: Maybe<Scalars['Float']['output']>;
  /** Lot size, square feet (acres converted); null when not listed */
  lotSize?: Maybe<Scalars['Float']['output']>;
  /** MLS listing number */
  mlsId?: Maybe<Scalars['String']['output']>;
  /** MLS name */
  mlsName?: Maybe<Scalars['String']['output']>;
  /** HOA fee per month, USD */
  monthlyHoaFee?: Maybe<Scalars['Float']['output']>;
  /** Neighborhood */
  neighborhood?: Maybe<Scalars['String']['output']>;
  /** Cumulative page views supplied by the source; zero is meaningful; null when not returned */
  pageViewCount?: Maybe<Scalars['Int']['output']>;
  /** Parcel (APN) number */
  parcelId?: Maybe<Scalars['String']['output']>;
  /** Number of photos the page reports */
  photoCount?: Maybe<Scalars['Int']['output']>;
  /** Photo URLs as published on the listing, never re-hosted; may be empty */
  photos: Array<Scalars['String']['output']>;
  /** List price; monthly rent for rentals; sale price for sold homes. Never 0; null when not shown or undisclosed */
  price?: Maybe<Scalars['Float']['output']>;
  /** Price events, newest first; may be empty */
  priceHistory: Array<PortalPriceEvent>;
  /** Price per square foot, USD */
  pricePerSquareFoot?: Maybe<Scalars['Float']['output']>;
  /** Property tax rate, percent */
  propertyTaxRate?: Maybe<Scalars['Float']['output']>;
  /** Present only when raw=true was requested: the unmapped source record. Its shape is unspecified and may change */
  raw?: Maybe<Scalars['JSON']['output']>;
  /** The listing site's monthly rent estimate, when displayed */
  rentEstimate?: Maybe<Scalars['Float']['output']>;
  /** Nearby schools; may be empty */
  schools: Array<PortalSchool>;
  /** When the data was collected, ISO 8601 */
  scrapedAt?: Maybe<Scalars['String']['output']>;
  /** Two-letter state code */
  state?: Maybe<Scalars['String']['output']>;
  /** Readable status; null when the status is unclear */
  statusText?: Maybe<Scalars['String']['output']>;
  /** Street line */
  streetAddress?: Maybe<Scalars['String']['output']>;
  /** Annual property tax, USD */
  taxAnnualAmount?: Maybe<Scalars['Float']['output']>;
  /** Tax assessed value, USD */
  taxAssessedValue?: Maybe<Scalars['Float']['output']>;
  /** Tax years, newest first; may be empty */
  taxHistory: Array<PortalTaxEvent>;
  /** Unit number. For an apartment-building link: the unit that price describes */
  unit?: Maybe<Scalars['String']['output']>;
  /** Virtual tour link */
  virtualTourUrl?: Maybe<Scalars['String']['output']>;
  /** Year built; usually null for land and new construction */
  yearBuilt?: Maybe<Scalars['Int']['output']>;
  /** ZIP code */
  zipcode?: Maybe<Scalars['String']['output']>;
  /** Property ID on the listing site */
  zpid?: Maybe<Scalars['String']['output']>;
};

/** A nearby school as listed on the page. Every field is null when the page does not show it. */
export type PortalSchool = {
  __typename?: 'PortalSchool';
  /** Distance from the home, miles */
  distance?: Maybe<Scalars['Float']['output']>;
  /** Grade range, e.g. K-5 */
  grades?: Maybe<Scalars['String']['output']>;
  /** Level, e.g. Elementary */
  level?: Maybe<Scalars['String']['output']>;
  /** School page */
  link?: Maybe<Scalars['String']['output']>;
  /** School name */
  name?: Maybe<Scalars['String']['output']>;
  /** Rating shown by the listing site */
  rating?: Maybe<Scalars['Float']['output']>;
  /** Type, e.g. Public */
  type?: Maybe<Scalars['String']['output']>;
};

/** One year of the tax history. Every field is null when the page does not show it. */
export type PortalTaxEvent = {
  __typename?: 'PortalTaxEvent';
  /** Change of the tax versus the previous year, as a fraction */
  taxIncreaseRate?: Maybe<Scalars['Float']['output']>;
  /** Tax paid, USD */
  taxPaid?: Maybe<Scalars['Float']['output']>;
  /** Assessed value, USD */
  value?: Maybe<Scalars['Float']['output']>;
  /** Change of the assessed value versus the previous year, as a fraction */
  valueIncreaseRate?: Maybe<Scalars['Float']['output']>;
  /** Tax year */
  year?: Maybe<Scalars['Int']['output']>;
};

/** A home that was found (REST: the 200 body of GET /v1/portal/property). */
export type PropertyLookup = {
  __typename?: 'PropertyLookup';
  /** One home. Every field is present; null means the listing site does not display it, never zero. */
  data: PortalProperty;
  /** How the lookup was served and billed */
  meta: LookupMeta;
};

/** The home (PropertyLookup), or why not (LookupError). */
export type PropertyResult = LookupError | PropertyLookup;

/** Property lookups (the same core as REST /v1), and the caller's account. */
export type Query = {
  __typename?: 'Query';
  /** The caller's plan and usage (REST: GET /v1/account). Free: no lookup is made. */
  account: AccountUsage;
  /** One of the account's jobs (REST: GET /v1/portal/jobs/<id>); another account's or an expired one is the error not_found. */
  job?: Maybe<LookupJob>;
  /** The account's jobs, newest first (REST: GET /v1/portal/jobs). */
  jobs: LookupJobPage;
  /** Up to 50 homes (REST: POST /v1/portal/batch). Each item is looked up exactly as Query.property would; failed items come back as results with ok: false. All lookups of one operation (property fields and properties items together) count against the limit of 50. */
  properties?: Maybe<BatchLookup>;
  /** One home by link, zpid or address (REST: GET /v1/portal/property). Send exactly one of url, zpid, address. A live lookup costs 1 credit; a cache hit (the cache lifetime, CACHE_TTL_MS: 24 h by default) costs 0. Failures, including invalid input, come back as LookupError. */
  property: PropertyResult;
  /** One of the caller's watches (REST: GET /v1/portal/watches/<id>); another account's or an unknown id is the error not_found. */
  watch: Watch;
  /** The caller's watched homes, newest first (REST: GET /v1/portal/watches). Free: no lookup is made. */
  watches: Array<Watch>;
  /** The account's webhook delivery attempts of the last week, newest first (REST: GET /v1/webhooks/deliveries). Free: no lookup is made. */
  webhookDeliveries: WebhookDeliveryPage;
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryJobArgs = {
  id: Scalars['ID']['input'];
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryJobsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: Scalars['Int']['input'];
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryPropertiesArgs = {
  dryRun?: InputMaybe<Scalars['Boolean']['input']>;
  items: Array<LookupItem>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
  status?: InputMaybe<StatusHint>;
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryPropertyArgs = {
  address?: InputMaybe<Scalars['String']['input']>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
  status?: InputMaybe<StatusHint>;
  url?: InputMaybe<Scalars['String']['input']>;
  zpid?: InputMaybe<Scalars['String']['input']>;
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryWatchArgs = {
  id: Scalars['ID']['input'];
};


/** Property lookups (the same core as REST /v1), and the caller's account. */
export type QueryWebhookDeliveriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: Scalars['Int']['input'];
};

/** What the page held of a section (LookupSections). */
export type SectionState =
  /** The page holds the section but it could not be read (an unexpected shape, a value that did not parse) (REST: extraction_failed) */
  | 'EXTRACTION_FAILED'
  /** The page has no such section at all (this page generation, or this kind of property, doesn't carry it) (REST: not_found) */
  | 'NOT_FOUND'
  /** The page says there is none (an empty list, a null value), or does not show it for this home (REST: not_published) */
  | 'NOT_PUBLISHED'
  /** The page holds the section and it was read (REST: present) */
  | 'PRESENT';

/** Hint for which listing to read (REST: status=for_sale|sold|for_rent). If omitted, detected automatically. */
export type StatusHint =
  /** REST: for_rent */
  | 'FOR_RENT'
  /** REST: for_sale */
  | 'FOR_SALE'
  /** REST: sold */
  | 'SOLD';

/** A watched home: read live every interval_hours; a property.changed event when price, status, estimate, rent estimate or HOA changed. (REST: data of GET /v1/portal/watches/<id>). */
export type Watch = {
  __typename?: 'Watch';
  /** The locator as sent, when it was an address */
  address?: Maybe<Scalars['String']['output']>;
  /** When the watch was made (its first check runs at once) */
  createdAt: Scalars['String']['output'];
  /** The home's zpid once a check found it */
  homeZpid?: Maybe<Scalars['String']['output']>;
  /** The watch id (`DELETE /v1/portal/watches/<id>` ends it) */
  id: Scalars['String']['output'];
  /** Hours between two checks */
  intervalHours: Scalars['Float']['output'];
  /** When the last check ran; null before the first */
  lastCheckedAt?: Maybe<Scalars['String']['output']>;
  /** The last check's error code (it was not billed), or null when it found the home */
  lastError?: Maybe<Scalars['String']['output']>;
  /** When the next check is due; null when the watch stopped (its account was revoked) */
  nextCheckAt?: Maybe<Scalars['String']['output']>;
  /** The locator as sent, when it was a link */
  url?: Maybe<Scalars['String']['output']>;
  /** Where property.changed events are sent */
  webhookUrl: Scalars['String']['output'];
  /** The locator as sent, when it was a zpid */
  zpid?: Maybe<Scalars['String']['output']>;
};

/** One webhook delivery attempt. Kept 7 days (at most 1,000 per account, the oldest go first). (REST: an item of GET /v1/webhooks/deliveries.) */
export type WebhookDelivery = {
  __typename?: 'WebhookDelivery';
  /** When the attempt ended */
  at: Scalars['String']['output'];
  /** The attempt's number for this event, from 1 (a redelivery is its own attempt 1) */
  attempt: Scalars['Int']['output'];
  /** Milliseconds the attempt took */
  durationMs: Scalars['Int']['output'];
  /** Why the attempt failed: the network error (ECONNREFUSED, a time limit, a refused URL) or `answered <status>`; null when delivered */
  error?: Maybe<Scalars['String']['output']>;
  /** The attempt id (`POST /v1/webhooks/deliveries/<id>/redeliver` sends its event again) */
  id: Scalars['String']['output'];
  /** When the next attempt is due after this failed one; null when delivered, or when no attempt is left */
  nextRetryAt?: Maybe<Scalars['String']['output']>;
  /** True when the receiver answered 2xx (delivered) */
  ok: Scalars['Boolean']['output'];
  /** True when the attempt was asked for by a redeliver request */
  redelivery: Scalars['Boolean']['output'];
  /** The receiver's HTTP status; null when no answer came (see error) */
  status?: Maybe<Scalars['Int']['output']>;
  /** The event type: job.completed, job.failed or property.changed */
  type: Scalars['String']['output'];
  /** Where it was sent */
  url: Scalars['String']['output'];
  /** The event's webhook-id header: the same on every attempt and every redelivery of one event */
  webhookId: Scalars['String']['output'];
};

/** A page of the account's webhook delivery attempts, newest first (REST: GET /v1/webhooks/deliveries). */
export type WebhookDeliveryPage = {
  __typename?: 'WebhookDeliveryPage';
  /** The attempts of this page, newest first */
  deliveries: Array<WebhookDelivery>;
  /** Pass as `after` for the next (older) page; null: no more */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when there are older attempts (after endCursor) */
  hasNextPage: Scalars['Boolean']['output'];
};

export type AccountQueryVariables = Exact<{ [key: string]: never; }>;


export type AccountQuery = { __typename?: 'Query', account: { __typename?: 'AccountUsage', plan: string, keyPrefix: string, used: number, included: number, remaining: number, periodEnd?: string | null, overageEnabled: boolean, overageUsed: number, overageUsd: number, spendLimitUsd?: number | null } };

export type BatchQueryVariables = Exact<{
  items: Array<LookupItem> | LookupItem;
  status?: InputMaybe<StatusHint>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type BatchQuery = { __typename?: 'Query', properties?: { __typename?: 'BatchLookup', results: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, data?: { __typename?: 'PortalProperty', zpid?: string | null, detailUrl?: string | null, address?: string | null, streetAddress?: string | null, unit?: string | null, city?: string | null, state?: string | null, zipcode?: string | null, county?: string | null, neighborhood?: string | null, latitude?: number | null, longitude?: number | null, price?: number | null, currency?: string | null, homeStatus?: HomeStatus | null, statusText?: string | null, homeType?: string | null, beds?: number | null, baths?: number | null, livingArea?: number | null, lotSize?: number | null, yearBuilt?: number | null, pricePerSquareFoot?: number | null, estimate?: number | null, rentEstimate?: number | null, daysOnPortal?: number | null, datePosted?: string | null, dateSold?: string | null, lastSoldPrice?: number | null, monthlyHoaFee?: number | null, taxAnnualAmount?: number | null, taxAssessedValue?: number | null, propertyTaxRate?: number | null, pageViewCount?: number | null, favoriteCount?: number | null, parcelId?: string | null, description?: string | null, imgSrc?: string | null, photos: Array<string>, photoCount?: number | null, brokerName?: string | null, brokerPhone?: string | null, agentName?: string | null, agentPhone?: string | null, agentLicenseNumber?: string | null, mlsId?: string | null, mlsName?: string | null, virtualTourUrl?: string | null, scrapedAt?: string | null, priceHistory: Array<{ __typename?: 'PortalPriceEvent', date?: string | null, event?: string | null, price?: number | null, pricePerSquareFoot?: number | null, priceChangeRate?: number | null, source?: string | null }>, taxHistory: Array<{ __typename?: 'PortalTaxEvent', year?: number | null, taxPaid?: number | null, value?: number | null, taxIncreaseRate?: number | null, valueIncreaseRate?: number | null }>, schools: Array<{ __typename?: 'PortalSchool', name?: string | null, rating?: number | null, distance?: number | null, level?: string | null, type?: string | null, grades?: string | null, link?: string | null }> } | null, meta?: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string, fetchedAt: string, release?: string | null, tookMs: number, warning?: string | null, ageSeconds: number, stale?: boolean | null, staleReason?: string | null, previousFetchedAt?: string | null, source: { __typename?: 'LookupSource', provider: string, note: string, fallbackFrom?: string | null, descriptors?: unknown | null }, sections: { __typename?: 'LookupSections', photos: SectionState, priceHistory: SectionState, taxHistory: SectionState, schools: SectionState, agent: SectionState, broker: SectionState, estimate: SectionState, rentEstimate: SectionState, description: SectionState }, changes?: Array<{ __typename?: 'FieldChange', field: string, from?: unknown | null, to?: unknown | null }> | null, match?: { __typename?: 'AddressMatch', input: string, normalized: string, matchedAddress?: string | null, confidence: number, differences: Array<{ __typename?: 'AddressDifference', field: AddressDifferenceField, kind: AddressDifferenceKind, input?: string | null, matched?: string | null }> } | null } | null, error?: { __typename?: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null } | null }>, meta: { __typename?: 'BatchMeta', count: number, succeeded: number, failed: number, cacheHits: number, credits: number, tookMs: number } } | null };

export type BatchRawQueryVariables = Exact<{
  items: Array<LookupItem> | LookupItem;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type BatchRawQuery = { __typename?: 'Query', properties?: { __typename?: 'BatchLookup', results: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, data?: { __typename?: 'PortalProperty', zpid?: string | null, raw?: unknown | null } | null }> } | null };

export type BatchStreamedQueryVariables = Exact<{
  items: Array<LookupItem> | LookupItem;
}>;


export type BatchStreamedQuery = { __typename?: 'Query', properties?: { __typename?: 'BatchLookup', results: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, data?: { __typename?: 'PortalProperty', zpid?: string | null } | null, meta?: { __typename?: 'LookupMeta', credits: number, cached: boolean } | null, error?: { __typename?: 'LookupError', code: string } | null }> } & ({ __typename?: 'BatchLookup', meta: { __typename?: 'BatchMeta', count: number, credits: number } } | { __typename?: 'BatchLookup', meta?: never }) | null };

export type BatchPreviewQueryVariables = Exact<{
  items: Array<LookupItem> | LookupItem;
  status?: InputMaybe<StatusHint>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
}>;


export type BatchPreviewQuery = { __typename?: 'Query', properties?: { __typename?: 'BatchLookup', results: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, wouldCost?: number | null, cacheKey?: string | null, error?: { __typename?: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null } | null }>, meta: { __typename?: 'BatchMeta', count: number, succeeded: number, failed: number, cacheHits: number, credits: number, creditsEstimate?: number | null, creditsAvailable?: number | null, affordable?: boolean | null, tookMs: number } } | null };

export type PropertyFieldsFragment = { __typename?: 'PortalProperty', zpid?: string | null, detailUrl?: string | null, address?: string | null, streetAddress?: string | null, unit?: string | null, city?: string | null, state?: string | null, zipcode?: string | null, county?: string | null, neighborhood?: string | null, latitude?: number | null, longitude?: number | null, price?: number | null, currency?: string | null, homeStatus?: HomeStatus | null, statusText?: string | null, homeType?: string | null, beds?: number | null, baths?: number | null, livingArea?: number | null, lotSize?: number | null, yearBuilt?: number | null, pricePerSquareFoot?: number | null, estimate?: number | null, rentEstimate?: number | null, daysOnPortal?: number | null, datePosted?: string | null, dateSold?: string | null, lastSoldPrice?: number | null, monthlyHoaFee?: number | null, taxAnnualAmount?: number | null, taxAssessedValue?: number | null, propertyTaxRate?: number | null, pageViewCount?: number | null, favoriteCount?: number | null, parcelId?: string | null, description?: string | null, imgSrc?: string | null, photos: Array<string>, photoCount?: number | null, brokerName?: string | null, brokerPhone?: string | null, agentName?: string | null, agentPhone?: string | null, agentLicenseNumber?: string | null, mlsId?: string | null, mlsName?: string | null, virtualTourUrl?: string | null, scrapedAt?: string | null, priceHistory: Array<{ __typename?: 'PortalPriceEvent', date?: string | null, event?: string | null, price?: number | null, pricePerSquareFoot?: number | null, priceChangeRate?: number | null, source?: string | null }>, taxHistory: Array<{ __typename?: 'PortalTaxEvent', year?: number | null, taxPaid?: number | null, value?: number | null, taxIncreaseRate?: number | null, valueIncreaseRate?: number | null }>, schools: Array<{ __typename?: 'PortalSchool', name?: string | null, rating?: number | null, distance?: number | null, level?: string | null, type?: string | null, grades?: string | null, link?: string | null }> };

export type MetaFieldsFragment = { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string, fetchedAt: string, release?: string | null, tookMs: number, warning?: string | null, ageSeconds: number, stale?: boolean | null, staleReason?: string | null, previousFetchedAt?: string | null, source: { __typename?: 'LookupSource', provider: string, note: string, fallbackFrom?: string | null, descriptors?: unknown | null }, sections: { __typename?: 'LookupSections', photos: SectionState, priceHistory: SectionState, taxHistory: SectionState, schools: SectionState, agent: SectionState, broker: SectionState, estimate: SectionState, rentEstimate: SectionState, description: SectionState }, changes?: Array<{ __typename?: 'FieldChange', field: string, from?: unknown | null, to?: unknown | null }> | null, match?: { __typename?: 'AddressMatch', input: string, normalized: string, matchedAddress?: string | null, confidence: number, differences: Array<{ __typename?: 'AddressDifference', field: AddressDifferenceField, kind: AddressDifferenceKind, input?: string | null, matched?: string | null }> } | null };

export type ErrorFieldsFragment = { __typename?: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null };

export type LookupJobFieldsFragment = { __typename?: 'LookupJob', id: string, status: LookupJobStatus, count: number, done: number, succeeded: number, failed: number, cacheHits: number, credits: number, createdAt: string, startedAt?: string | null, finishedAt?: string | null, webhookUrl?: string | null, waiting: number, waitingUntil?: string | null };

export type CreateLookupJobMutationVariables = Exact<{
  items: Array<LookupItem> | LookupItem;
  webhookUrl?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<StatusHint>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type CreateLookupJobMutation = { __typename?: 'Mutation', createLookupJob?: { __typename?: 'LookupJob', id: string, status: LookupJobStatus, count: number, done: number, succeeded: number, failed: number, cacheHits: number, credits: number, createdAt: string, startedAt?: string | null, finishedAt?: string | null, webhookUrl?: string | null, waiting: number, waitingUntil?: string | null } | null };

export type CancelLookupJobMutationVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type CancelLookupJobMutation = { __typename?: 'Mutation', cancelLookupJob: { __typename?: 'LookupJob', id: string, status: LookupJobStatus, count: number, done: number, succeeded: number, failed: number, cacheHits: number, credits: number, createdAt: string, startedAt?: string | null, finishedAt?: string | null, webhookUrl?: string | null, waiting: number, waitingUntil?: string | null } };

export type LookupJobQueryVariables = Exact<{
  id: Scalars['ID']['input'];
  first?: Scalars['Int']['input'];
  after?: InputMaybe<Scalars['String']['input']>;
}>;


export type LookupJobQuery = { __typename?: 'Query', job?: { __typename?: 'LookupJob', id: string, status: LookupJobStatus, count: number, done: number, succeeded: number, failed: number, cacheHits: number, credits: number, createdAt: string, startedAt?: string | null, finishedAt?: string | null, webhookUrl?: string | null, waiting: number, waitingUntil?: string | null, results?: { __typename?: 'LookupJobResultPage', endCursor?: string | null, hasNextPage: boolean, items: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, data?: { __typename?: 'PortalProperty', zpid?: string | null, detailUrl?: string | null, address?: string | null, streetAddress?: string | null, unit?: string | null, city?: string | null, state?: string | null, zipcode?: string | null, county?: string | null, neighborhood?: string | null, latitude?: number | null, longitude?: number | null, price?: number | null, currency?: string | null, homeStatus?: HomeStatus | null, statusText?: string | null, homeType?: string | null, beds?: number | null, baths?: number | null, livingArea?: number | null, lotSize?: number | null, yearBuilt?: number | null, pricePerSquareFoot?: number | null, estimate?: number | null, rentEstimate?: number | null, daysOnPortal?: number | null, datePosted?: string | null, dateSold?: string | null, lastSoldPrice?: number | null, monthlyHoaFee?: number | null, taxAnnualAmount?: number | null, taxAssessedValue?: number | null, propertyTaxRate?: number | null, pageViewCount?: number | null, favoriteCount?: number | null, parcelId?: string | null, description?: string | null, imgSrc?: string | null, photos: Array<string>, photoCount?: number | null, brokerName?: string | null, brokerPhone?: string | null, agentName?: string | null, agentPhone?: string | null, agentLicenseNumber?: string | null, mlsId?: string | null, mlsName?: string | null, virtualTourUrl?: string | null, scrapedAt?: string | null, priceHistory: Array<{ __typename?: 'PortalPriceEvent', date?: string | null, event?: string | null, price?: number | null, pricePerSquareFoot?: number | null, priceChangeRate?: number | null, source?: string | null }>, taxHistory: Array<{ __typename?: 'PortalTaxEvent', year?: number | null, taxPaid?: number | null, value?: number | null, taxIncreaseRate?: number | null, valueIncreaseRate?: number | null }>, schools: Array<{ __typename?: 'PortalSchool', name?: string | null, rating?: number | null, distance?: number | null, level?: string | null, type?: string | null, grades?: string | null, link?: string | null }> } | null, meta?: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string, fetchedAt: string, release?: string | null, tookMs: number, warning?: string | null, ageSeconds: number, stale?: boolean | null, staleReason?: string | null, previousFetchedAt?: string | null, source: { __typename?: 'LookupSource', provider: string, note: string, fallbackFrom?: string | null, descriptors?: unknown | null }, sections: { __typename?: 'LookupSections', photos: SectionState, priceHistory: SectionState, taxHistory: SectionState, schools: SectionState, agent: SectionState, broker: SectionState, estimate: SectionState, rentEstimate: SectionState, description: SectionState }, changes?: Array<{ __typename?: 'FieldChange', field: string, from?: unknown | null, to?: unknown | null }> | null, match?: { __typename?: 'AddressMatch', input: string, normalized: string, matchedAddress?: string | null, confidence: number, differences: Array<{ __typename?: 'AddressDifference', field: AddressDifferenceField, kind: AddressDifferenceKind, input?: string | null, matched?: string | null }> } | null } | null, error?: { __typename?: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null } | null }> } | null } | null };

export type LookupJobsQueryVariables = Exact<{
  first?: Scalars['Int']['input'];
  after?: InputMaybe<Scalars['String']['input']>;
}>;


export type LookupJobsQuery = { __typename?: 'Query', jobs: { __typename?: 'LookupJobPage', endCursor?: string | null, hasNextPage: boolean, jobs: Array<{ __typename?: 'LookupJob', id: string, status: LookupJobStatus, count: number, done: number, succeeded: number, failed: number, cacheHits: number, credits: number, createdAt: string, startedAt?: string | null, finishedAt?: string | null, webhookUrl?: string | null, waiting: number, waitingUntil?: string | null }> } };

export type MixedQueryVariables = Exact<{
  zpid: Scalars['String']['input'];
  url: Scalars['String']['input'];
  items: Array<LookupItem> | LookupItem;
}>;


export type MixedQuery = { __typename?: 'Query', a:
    | { __typename?: 'LookupError', code: string }
    | { __typename?: 'PropertyLookup', data: { __typename?: 'PortalProperty', zpid?: string | null }, meta: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string } }
  , b:
    | { __typename?: 'LookupError', code: string }
    | { __typename?: 'PropertyLookup', data: { __typename?: 'PortalProperty', zpid?: string | null }, meta: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string } }
  , c:
    | { __typename?: 'LookupError', code: string }
    | { __typename?: 'PropertyLookup', data: { __typename?: 'PortalProperty', zpid?: string | null }, meta: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string } }
  , properties?: { __typename?: 'BatchLookup', results: Array<{ __typename?: 'BatchItemResult', index: number, ok: boolean, data?: { __typename?: 'PortalProperty', zpid?: string | null } | null, meta?: { __typename?: 'LookupMeta', credits: number, cached: boolean } | null, error?: { __typename?: 'LookupError', code: string } | null }>, meta: { __typename?: 'BatchMeta', count: number, credits: number, cacheHits: number } } | null, account: { __typename?: 'AccountUsage', used: number } };

export type PropertyQueryVariables = Exact<{
  url?: InputMaybe<Scalars['String']['input']>;
  zpid?: InputMaybe<Scalars['String']['input']>;
  address?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<StatusHint>;
  raw?: InputMaybe<Scalars['Boolean']['input']>;
  maxAge?: InputMaybe<Scalars['Int']['input']>;
  stale?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type PropertyQuery = { __typename?: 'Query', property:
    | { __typename: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null }
    | { __typename: 'PropertyLookup', data: { __typename?: 'PortalProperty', zpid?: string | null, detailUrl?: string | null, address?: string | null, streetAddress?: string | null, unit?: string | null, city?: string | null, state?: string | null, zipcode?: string | null, county?: string | null, neighborhood?: string | null, latitude?: number | null, longitude?: number | null, price?: number | null, currency?: string | null, homeStatus?: HomeStatus | null, statusText?: string | null, homeType?: string | null, beds?: number | null, baths?: number | null, livingArea?: number | null, lotSize?: number | null, yearBuilt?: number | null, pricePerSquareFoot?: number | null, estimate?: number | null, rentEstimate?: number | null, daysOnPortal?: number | null, datePosted?: string | null, dateSold?: string | null, lastSoldPrice?: number | null, monthlyHoaFee?: number | null, taxAnnualAmount?: number | null, taxAssessedValue?: number | null, propertyTaxRate?: number | null, pageViewCount?: number | null, favoriteCount?: number | null, parcelId?: string | null, description?: string | null, imgSrc?: string | null, photos: Array<string>, photoCount?: number | null, brokerName?: string | null, brokerPhone?: string | null, agentName?: string | null, agentPhone?: string | null, agentLicenseNumber?: string | null, mlsId?: string | null, mlsName?: string | null, virtualTourUrl?: string | null, scrapedAt?: string | null, priceHistory: Array<{ __typename?: 'PortalPriceEvent', date?: string | null, event?: string | null, price?: number | null, pricePerSquareFoot?: number | null, priceChangeRate?: number | null, source?: string | null }>, taxHistory: Array<{ __typename?: 'PortalTaxEvent', year?: number | null, taxPaid?: number | null, value?: number | null, taxIncreaseRate?: number | null, valueIncreaseRate?: number | null }>, schools: Array<{ __typename?: 'PortalSchool', name?: string | null, rating?: number | null, distance?: number | null, level?: string | null, type?: string | null, grades?: string | null, link?: string | null }> }, meta: { __typename?: 'LookupMeta', credits: number, cached: boolean, cacheKey: string, fetchedAt: string, release?: string | null, tookMs: number, warning?: string | null, ageSeconds: number, stale?: boolean | null, staleReason?: string | null, previousFetchedAt?: string | null, source: { __typename?: 'LookupSource', provider: string, note: string, fallbackFrom?: string | null, descriptors?: unknown | null }, sections: { __typename?: 'LookupSections', photos: SectionState, priceHistory: SectionState, taxHistory: SectionState, schools: SectionState, agent: SectionState, broker: SectionState, estimate: SectionState, rentEstimate: SectionState, description: SectionState }, changes?: Array<{ __typename?: 'FieldChange', field: string, from?: unknown | null, to?: unknown | null }> | null, match?: { __typename?: 'AddressMatch', input: string, normalized: string, matchedAddress?: string | null, confidence: number, differences: Array<{ __typename?: 'AddressDifference', field: AddressDifferenceField, kind: AddressDifferenceKind, input?: string | null, matched?: string | null }> } | null } }
   };

export type PropertyRawQueryVariables = Exact<{
  zpid: Scalars['String']['input'];
  raw?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type PropertyRawQuery = { __typename?: 'Query', property:
    | { __typename: 'LookupError', code: string, message: string, details?: unknown | null, retryAfter?: number | null }
    | { __typename: 'PropertyLookup', data: { __typename?: 'PortalProperty', zpid?: string | null, raw?: unknown | null }, meta: { __typename?: 'LookupMeta', credits: number, cached: boolean } }
   };

export const PropertyFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PropertyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PortalProperty"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"detailUrl"}},{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"streetAddress"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"zipcode"}},{"kind":"Field","name":{"kind":"Name","value":"county"}},{"kind":"Field","name":{"kind":"Name","value":"neighborhood"}},{"kind":"Field","name":{"kind":"Name","value":"latitude"}},{"kind":"Field","name":{"kind":"Name","value":"longitude"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"homeStatus"}},{"kind":"Field","name":{"kind":"Name","value":"statusText"}},{"kind":"Field","name":{"kind":"Name","value":"homeType"}},{"kind":"Field","name":{"kind":"Name","value":"beds"}},{"kind":"Field","name":{"kind":"Name","value":"baths"}},{"kind":"Field","name":{"kind":"Name","value":"livingArea"}},{"kind":"Field","name":{"kind":"Name","value":"lotSize"}},{"kind":"Field","name":{"kind":"Name","value":"yearBuilt"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"daysOnPortal"}},{"kind":"Field","name":{"kind":"Name","value":"datePosted"}},{"kind":"Field","name":{"kind":"Name","value":"dateSold"}},{"kind":"Field","name":{"kind":"Name","value":"lastSoldPrice"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyHoaFee"}},{"kind":"Field","name":{"kind":"Name","value":"taxAnnualAmount"}},{"kind":"Field","name":{"kind":"Name","value":"taxAssessedValue"}},{"kind":"Field","name":{"kind":"Name","value":"propertyTaxRate"}},{"kind":"Field","name":{"kind":"Name","value":"pageViewCount"}},{"kind":"Field","name":{"kind":"Name","value":"favoriteCount"}},{"kind":"Field","name":{"kind":"Name","value":"parcelId"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"imgSrc"}},{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"photoCount"}},{"kind":"Field","name":{"kind":"Name","value":"brokerName"}},{"kind":"Field","name":{"kind":"Name","value":"brokerPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentName"}},{"kind":"Field","name":{"kind":"Name","value":"agentPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentLicenseNumber"}},{"kind":"Field","name":{"kind":"Name","value":"mlsId"}},{"kind":"Field","name":{"kind":"Name","value":"mlsName"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"event"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"priceChangeRate"}},{"kind":"Field","name":{"kind":"Name","value":"source"}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"taxPaid"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"taxIncreaseRate"}},{"kind":"Field","name":{"kind":"Name","value":"valueIncreaseRate"}}]}},{"kind":"Field","name":{"kind":"Name","value":"schools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"rating"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"grades"}},{"kind":"Field","name":{"kind":"Name","value":"link"}}]}},{"kind":"Field","name":{"kind":"Name","value":"virtualTourUrl"}},{"kind":"Field","name":{"kind":"Name","value":"scrapedAt"}}]}}]} as unknown as DocumentNode<PropertyFieldsFragment, unknown>;
export const MetaFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MetaFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupMeta"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"note"}},{"kind":"Field","name":{"kind":"Name","value":"fallbackFrom"}},{"kind":"Field","name":{"kind":"Name","value":"descriptors"}}]}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}},{"kind":"Field","name":{"kind":"Name","value":"warning"}},{"kind":"Field","name":{"kind":"Name","value":"sections"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"}},{"kind":"Field","name":{"kind":"Name","value":"schools"}},{"kind":"Field","name":{"kind":"Name","value":"agent"}},{"kind":"Field","name":{"kind":"Name","value":"broker"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"ageSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}},{"kind":"Field","name":{"kind":"Name","value":"staleReason"}},{"kind":"Field","name":{"kind":"Name","value":"changes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}},{"kind":"Field","name":{"kind":"Name","value":"previousFetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"match"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"normalized"}},{"kind":"Field","name":{"kind":"Name","value":"matchedAddress"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"differences"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"matched"}}]}}]}}]}}]} as unknown as DocumentNode<MetaFieldsFragment, unknown>;
export const ErrorFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<ErrorFieldsFragment, unknown>;
export const LookupJobFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LookupJobFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupJob"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"done"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"webhookUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"waitingUntil"}}]}}]} as unknown as DocumentNode<LookupJobFieldsFragment, unknown>;
export const AccountDocument = {"__meta__":{"hash":"89bba1a97af46c5c7ac022843d3954a7ae09815629592defc00cfa2a379e97b5"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Account"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"account"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plan"}},{"kind":"Field","name":{"kind":"Name","value":"keyPrefix"}},{"kind":"Field","name":{"kind":"Name","value":"used"}},{"kind":"Field","name":{"kind":"Name","value":"included"}},{"kind":"Field","name":{"kind":"Name","value":"remaining"}},{"kind":"Field","name":{"kind":"Name","value":"periodEnd"}},{"kind":"Field","name":{"kind":"Name","value":"overageEnabled"}},{"kind":"Field","name":{"kind":"Name","value":"overageUsed"}},{"kind":"Field","name":{"kind":"Name","value":"overageUsd"}},{"kind":"Field","name":{"kind":"Name","value":"spendLimitUsd"}}]}}]}}]} as unknown as DocumentNode<AccountQuery, AccountQueryVariables>;
export const BatchDocument = {"__meta__":{"hash":"58c64760f232f4fa73d8205c3642a0ac9262dd0fbf81db54bf8ad88903ebb7f0"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Batch"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"status"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"StatusHint"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"stale"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"properties"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}},{"kind":"Argument","name":{"kind":"Name","value":"status"},"value":{"kind":"Variable","name":{"kind":"Name","value":"status"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxAge"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}}},{"kind":"Argument","name":{"kind":"Name","value":"stale"},"value":{"kind":"Variable","name":{"kind":"Name","value":"stale"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"results"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PropertyFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"MetaFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ErrorFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PropertyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PortalProperty"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"detailUrl"}},{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"streetAddress"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"zipcode"}},{"kind":"Field","name":{"kind":"Name","value":"county"}},{"kind":"Field","name":{"kind":"Name","value":"neighborhood"}},{"kind":"Field","name":{"kind":"Name","value":"latitude"}},{"kind":"Field","name":{"kind":"Name","value":"longitude"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"homeStatus"}},{"kind":"Field","name":{"kind":"Name","value":"statusText"}},{"kind":"Field","name":{"kind":"Name","value":"homeType"}},{"kind":"Field","name":{"kind":"Name","value":"beds"}},{"kind":"Field","name":{"kind":"Name","value":"baths"}},{"kind":"Field","name":{"kind":"Name","value":"livingArea"}},{"kind":"Field","name":{"kind":"Name","value":"lotSize"}},{"kind":"Field","name":{"kind":"Name","value":"yearBuilt"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"daysOnPortal"}},{"kind":"Field","name":{"kind":"Name","value":"datePosted"}},{"kind":"Field","name":{"kind":"Name","value":"dateSold"}},{"kind":"Field","name":{"kind":"Name","value":"lastSoldPrice"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyHoaFee"}},{"kind":"Field","name":{"kind":"Name","value":"taxAnnualAmount"}},{"kind":"Field","name":{"kind":"Name","value":"taxAssessedValue"}},{"kind":"Field","name":{"kind":"Name","value":"propertyTaxRate"}},{"kind":"Field","name":{"kind":"Name","value":"pageViewCount"}},{"kind":"Field","name":{"kind":"Name","value":"favoriteCount"}},{"kind":"Field","name":{"kind":"Name","value":"parcelId"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"imgSrc"}},{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"photoCount"}},{"kind":"Field","name":{"kind":"Name","value":"brokerName"}},{"kind":"Field","name":{"kind":"Name","value":"brokerPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentName"}},{"kind":"Field","name":{"kind":"Name","value":"agentPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentLicenseNumber"}},{"kind":"Field","name":{"kind":"Name","value":"mlsId"}},{"kind":"Field","name":{"kind":"Name","value":"mlsName"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"event"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"priceChangeRate"}},{"kind":"Field","name":{"kind":"Name","value":"source"}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"taxPaid"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"taxIncreaseRate"}},{"kind":"Field","name":{"kind":"Name","value":"valueIncreaseRate"}}]}},{"kind":"Field","name":{"kind":"Name","value":"schools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"rating"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"grades"}},{"kind":"Field","name":{"kind":"Name","value":"link"}}]}},{"kind":"Field","name":{"kind":"Name","value":"virtualTourUrl"}},{"kind":"Field","name":{"kind":"Name","value":"scrapedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MetaFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupMeta"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"note"}},{"kind":"Field","name":{"kind":"Name","value":"fallbackFrom"}},{"kind":"Field","name":{"kind":"Name","value":"descriptors"}}]}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}},{"kind":"Field","name":{"kind":"Name","value":"warning"}},{"kind":"Field","name":{"kind":"Name","value":"sections"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"}},{"kind":"Field","name":{"kind":"Name","value":"schools"}},{"kind":"Field","name":{"kind":"Name","value":"agent"}},{"kind":"Field","name":{"kind":"Name","value":"broker"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"ageSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}},{"kind":"Field","name":{"kind":"Name","value":"staleReason"}},{"kind":"Field","name":{"kind":"Name","value":"changes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}},{"kind":"Field","name":{"kind":"Name","value":"previousFetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"match"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"normalized"}},{"kind":"Field","name":{"kind":"Name","value":"matchedAddress"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"differences"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"matched"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<BatchQuery, BatchQueryVariables>;
export const BatchRawDocument = {"__meta__":{"hash":"a639603f7b6f3e3766a147ead20715a8c456552d36025c4b915e200c37a2dcc2"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BatchRaw"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"properties"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"results"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"raw"}}]}}]}}]}}]}}]} as unknown as DocumentNode<BatchRawQuery, BatchRawQueryVariables>;
export const BatchStreamedDocument = {"__meta__":{"hash":"b66fc0980de152e24b1707d137eaae6e099fb937c3e1db70618d9bee36f079f1"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BatchStreamed"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"properties"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"results"},"directives":[{"kind":"Directive","name":{"kind":"Name","value":"stream"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"initialCount"},"value":{"kind":"IntValue","value":"0"}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}}]}}]}}]}}]}}]} as unknown as DocumentNode<BatchStreamedQuery, BatchStreamedQueryVariables>;
export const BatchPreviewDocument = {"__meta__":{"hash":"f3da88bcb600c501fa01285cd949d4da371c4e8602027306cc7b234bc86af9c1"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BatchPreview"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"status"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"StatusHint"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"properties"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}},{"kind":"Argument","name":{"kind":"Name","value":"status"},"value":{"kind":"Variable","name":{"kind":"Name","value":"status"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxAge"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}}},{"kind":"Argument","name":{"kind":"Name","value":"dryRun"},"value":{"kind":"BooleanValue","value":true}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"results"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"wouldCost"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ErrorFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"creditsEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"creditsAvailable"}},{"kind":"Field","name":{"kind":"Name","value":"affordable"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<BatchPreviewQuery, BatchPreviewQueryVariables>;
export const CreateLookupJobDocument = {"__meta__":{"hash":"33ca9608516dd4c75b1c992c6fd0d2c38255381464791fbfb5b66ee4f9cc450a"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateLookupJob"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"webhookUrl"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"status"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"StatusHint"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"stale"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createLookupJob"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}},{"kind":"Argument","name":{"kind":"Name","value":"webhookUrl"},"value":{"kind":"Variable","name":{"kind":"Name","value":"webhookUrl"}}},{"kind":"Argument","name":{"kind":"Name","value":"status"},"value":{"kind":"Variable","name":{"kind":"Name","value":"status"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxAge"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}}},{"kind":"Argument","name":{"kind":"Name","value":"stale"},"value":{"kind":"Variable","name":{"kind":"Name","value":"stale"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LookupJobFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LookupJobFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupJob"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"done"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"webhookUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"waitingUntil"}}]}}]} as unknown as DocumentNode<CreateLookupJobMutation, CreateLookupJobMutationVariables>;
export const CancelLookupJobDocument = {"__meta__":{"hash":"241c66898606a459ba642513cfe85b09779d4738faca1f35a1bd180cf9e4204c"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelLookupJob"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelLookupJob"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LookupJobFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LookupJobFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupJob"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"done"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"webhookUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"waitingUntil"}}]}}]} as unknown as DocumentNode<CancelLookupJobMutation, CancelLookupJobMutationVariables>;
export const LookupJobDocument = {"__meta__":{"hash":"bf68a760b8d8b6720e6973ea82e1e1e4ec7c91efb9b886d5fca02be6b68e3fdd"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"LookupJob"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},"defaultValue":{"kind":"IntValue","value":"50"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"job"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LookupJobFields"}},{"kind":"Field","name":{"kind":"Name","value":"results"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PropertyFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"MetaFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ErrorFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LookupJobFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupJob"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"done"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"webhookUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"waitingUntil"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PropertyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PortalProperty"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"detailUrl"}},{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"streetAddress"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"zipcode"}},{"kind":"Field","name":{"kind":"Name","value":"county"}},{"kind":"Field","name":{"kind":"Name","value":"neighborhood"}},{"kind":"Field","name":{"kind":"Name","value":"latitude"}},{"kind":"Field","name":{"kind":"Name","value":"longitude"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"homeStatus"}},{"kind":"Field","name":{"kind":"Name","value":"statusText"}},{"kind":"Field","name":{"kind":"Name","value":"homeType"}},{"kind":"Field","name":{"kind":"Name","value":"beds"}},{"kind":"Field","name":{"kind":"Name","value":"baths"}},{"kind":"Field","name":{"kind":"Name","value":"livingArea"}},{"kind":"Field","name":{"kind":"Name","value":"lotSize"}},{"kind":"Field","name":{"kind":"Name","value":"yearBuilt"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"daysOnPortal"}},{"kind":"Field","name":{"kind":"Name","value":"datePosted"}},{"kind":"Field","name":{"kind":"Name","value":"dateSold"}},{"kind":"Field","name":{"kind":"Name","value":"lastSoldPrice"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyHoaFee"}},{"kind":"Field","name":{"kind":"Name","value":"taxAnnualAmount"}},{"kind":"Field","name":{"kind":"Name","value":"taxAssessedValue"}},{"kind":"Field","name":{"kind":"Name","value":"propertyTaxRate"}},{"kind":"Field","name":{"kind":"Name","value":"pageViewCount"}},{"kind":"Field","name":{"kind":"Name","value":"favoriteCount"}},{"kind":"Field","name":{"kind":"Name","value":"parcelId"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"imgSrc"}},{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"photoCount"}},{"kind":"Field","name":{"kind":"Name","value":"brokerName"}},{"kind":"Field","name":{"kind":"Name","value":"brokerPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentName"}},{"kind":"Field","name":{"kind":"Name","value":"agentPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentLicenseNumber"}},{"kind":"Field","name":{"kind":"Name","value":"mlsId"}},{"kind":"Field","name":{"kind":"Name","value":"mlsName"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"event"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"priceChangeRate"}},{"kind":"Field","name":{"kind":"Name","value":"source"}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"taxPaid"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"taxIncreaseRate"}},{"kind":"Field","name":{"kind":"Name","value":"valueIncreaseRate"}}]}},{"kind":"Field","name":{"kind":"Name","value":"schools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"rating"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"grades"}},{"kind":"Field","name":{"kind":"Name","value":"link"}}]}},{"kind":"Field","name":{"kind":"Name","value":"virtualTourUrl"}},{"kind":"Field","name":{"kind":"Name","value":"scrapedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MetaFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupMeta"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"note"}},{"kind":"Field","name":{"kind":"Name","value":"fallbackFrom"}},{"kind":"Field","name":{"kind":"Name","value":"descriptors"}}]}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}},{"kind":"Field","name":{"kind":"Name","value":"warning"}},{"kind":"Field","name":{"kind":"Name","value":"sections"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"}},{"kind":"Field","name":{"kind":"Name","value":"schools"}},{"kind":"Field","name":{"kind":"Name","value":"agent"}},{"kind":"Field","name":{"kind":"Name","value":"broker"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"ageSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}},{"kind":"Field","name":{"kind":"Name","value":"staleReason"}},{"kind":"Field","name":{"kind":"Name","value":"changes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}},{"kind":"Field","name":{"kind":"Name","value":"previousFetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"match"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"normalized"}},{"kind":"Field","name":{"kind":"Name","value":"matchedAddress"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"differences"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"matched"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<LookupJobQuery, LookupJobQueryVariables>;
export const LookupJobsDocument = {"__meta__":{"hash":"6aa32d013cff51bcd36ac9079c632711c1f4678780b0bdfc57bbc8f00e855acf"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"LookupJobs"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},"defaultValue":{"kind":"IntValue","value":"20"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"jobs"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"jobs"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LookupJobFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LookupJobFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupJob"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"done"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"webhookUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"waitingUntil"}}]}}]} as unknown as DocumentNode<LookupJobsQuery, LookupJobsQueryVariables>;
export const MixedDocument = {"__meta__":{"hash":"8c67d7aff3d59f040475ea5bfe0a1b20773956ecbc227a8d3008249a4b0061a0"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Mixed"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"url"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LookupItem"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"a"},"name":{"kind":"Name","value":"property"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zpid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PropertyLookup"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"b"},"name":{"kind":"Name","value":"property"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"url"},"value":{"kind":"Variable","name":{"kind":"Name","value":"url"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PropertyLookup"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"c"},"name":{"kind":"Name","value":"property"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zpid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PropertyLookup"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"properties"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"results"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"ok"}},{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cacheHits"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"account"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"used"}}]}}]}}]} as unknown as DocumentNode<MixedQuery, MixedQueryVariables>;
export const PropertyDocument = {"__meta__":{"hash":"2f9d973c8afa9e23368c93ea1f1bacc35165bc8e5d89693a1e1e9b00ca599887"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Property"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"url"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"address"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"status"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"StatusHint"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"stale"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"property"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"url"},"value":{"kind":"Variable","name":{"kind":"Name","value":"url"}}},{"kind":"Argument","name":{"kind":"Name","value":"zpid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}}},{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"address"}}},{"kind":"Argument","name":{"kind":"Name","value":"status"},"value":{"kind":"Variable","name":{"kind":"Name","value":"status"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxAge"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxAge"}}},{"kind":"Argument","name":{"kind":"Name","value":"stale"},"value":{"kind":"Variable","name":{"kind":"Name","value":"stale"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PropertyLookup"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PropertyFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"MetaFields"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ErrorFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PropertyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PortalProperty"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"detailUrl"}},{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"streetAddress"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"zipcode"}},{"kind":"Field","name":{"kind":"Name","value":"county"}},{"kind":"Field","name":{"kind":"Name","value":"neighborhood"}},{"kind":"Field","name":{"kind":"Name","value":"latitude"}},{"kind":"Field","name":{"kind":"Name","value":"longitude"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"homeStatus"}},{"kind":"Field","name":{"kind":"Name","value":"statusText"}},{"kind":"Field","name":{"kind":"Name","value":"homeType"}},{"kind":"Field","name":{"kind":"Name","value":"beds"}},{"kind":"Field","name":{"kind":"Name","value":"baths"}},{"kind":"Field","name":{"kind":"Name","value":"livingArea"}},{"kind":"Field","name":{"kind":"Name","value":"lotSize"}},{"kind":"Field","name":{"kind":"Name","value":"yearBuilt"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"daysOnPortal"}},{"kind":"Field","name":{"kind":"Name","value":"datePosted"}},{"kind":"Field","name":{"kind":"Name","value":"dateSold"}},{"kind":"Field","name":{"kind":"Name","value":"lastSoldPrice"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyHoaFee"}},{"kind":"Field","name":{"kind":"Name","value":"taxAnnualAmount"}},{"kind":"Field","name":{"kind":"Name","value":"taxAssessedValue"}},{"kind":"Field","name":{"kind":"Name","value":"propertyTaxRate"}},{"kind":"Field","name":{"kind":"Name","value":"pageViewCount"}},{"kind":"Field","name":{"kind":"Name","value":"favoriteCount"}},{"kind":"Field","name":{"kind":"Name","value":"parcelId"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"imgSrc"}},{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"photoCount"}},{"kind":"Field","name":{"kind":"Name","value":"brokerName"}},{"kind":"Field","name":{"kind":"Name","value":"brokerPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentName"}},{"kind":"Field","name":{"kind":"Name","value":"agentPhone"}},{"kind":"Field","name":{"kind":"Name","value":"agentLicenseNumber"}},{"kind":"Field","name":{"kind":"Name","value":"mlsId"}},{"kind":"Field","name":{"kind":"Name","value":"mlsName"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"event"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerSquareFoot"}},{"kind":"Field","name":{"kind":"Name","value":"priceChangeRate"}},{"kind":"Field","name":{"kind":"Name","value":"source"}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"taxPaid"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"taxIncreaseRate"}},{"kind":"Field","name":{"kind":"Name","value":"valueIncreaseRate"}}]}},{"kind":"Field","name":{"kind":"Name","value":"schools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"rating"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"grades"}},{"kind":"Field","name":{"kind":"Name","value":"link"}}]}},{"kind":"Field","name":{"kind":"Name","value":"virtualTourUrl"}},{"kind":"Field","name":{"kind":"Name","value":"scrapedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MetaFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupMeta"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"cacheKey"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"note"}},{"kind":"Field","name":{"kind":"Name","value":"fallbackFrom"}},{"kind":"Field","name":{"kind":"Name","value":"descriptors"}}]}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"tookMs"}},{"kind":"Field","name":{"kind":"Name","value":"warning"}},{"kind":"Field","name":{"kind":"Name","value":"sections"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"photos"}},{"kind":"Field","name":{"kind":"Name","value":"priceHistory"}},{"kind":"Field","name":{"kind":"Name","value":"taxHistory"}},{"kind":"Field","name":{"kind":"Name","value":"schools"}},{"kind":"Field","name":{"kind":"Name","value":"agent"}},{"kind":"Field","name":{"kind":"Name","value":"broker"}},{"kind":"Field","name":{"kind":"Name","value":"estimate"}},{"kind":"Field","name":{"kind":"Name","value":"rentEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"ageSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}},{"kind":"Field","name":{"kind":"Name","value":"staleReason"}},{"kind":"Field","name":{"kind":"Name","value":"changes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}},{"kind":"Field","name":{"kind":"Name","value":"previousFetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"match"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"normalized"}},{"kind":"Field","name":{"kind":"Name","value":"matchedAddress"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"differences"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"input"}},{"kind":"Field","name":{"kind":"Name","value":"matched"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<PropertyQuery, PropertyQueryVariables>;
export const PropertyRawDocument = {"__meta__":{"hash":"a5fd1e81a13449fa7e9c0eea4c429fa3abb60cf42029836f3c5fe8b11e3040cd"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PropertyRaw"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"raw"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"property"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"zpid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"zpid"}}},{"kind":"Argument","name":{"kind":"Name","value":"raw"},"value":{"kind":"Variable","name":{"kind":"Name","value":"raw"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PropertyLookup"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"data"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"zpid"}},{"kind":"Field","name":{"kind":"Name","value":"raw"}}]}},{"kind":"Field","name":{"kind":"Name","value":"meta"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"credits"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ErrorFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ErrorFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LookupError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfter"}}]}}]} as unknown as DocumentNode<PropertyRawQuery, PropertyRawQueryVariables>;
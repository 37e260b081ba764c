// The v1 contract's resources (spec section 2) as JSON Schema with static types.
// This file is the one source: the TypeScript types, the OpenAPI document and the
// GraphQL object types are all derived from these schemas. Longer than 500 lines on purpose: the record's
// sections in the order the spec lists them, one schema each, kept together as the one source.
import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { DIFFERENCE_FIELDS, DIFFERENCE_KINDS } from '../address/index.js';
import { REST_ERROR_CODES } from './errors.js';
import { INPUT_SCHEMAS } from './inputs.js';
import {
  SECTION_DESCRIPTIONS,
  SECTION_NAMES,
  SECTION_STATE_DESCRIPTIONS,
  SECTION_STATES,
  type SectionName,
} from './sections.js';

const nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });

const str = (d: string) => nullable(Type.String(), d);
const num = (d: string) => nullable(Type.Number(), d);
const int = (d: string) => nullable(Type.Integer(), d);

export const HOME_STATUSES = [
  'FOR_SALE',
  'FOR_RENT',
  'RECENTLY_SOLD',
  'PENDING',
  'COMING_SOON',
  'FORECLOSURE',
  'OFF_MARKET',
  'OTHER',
] as const;
export type HomeStatus = (typeof HOME_STATUSES)[number];

/** What each homeStatus value means (spec 2.1; docs/mapping.md section 2). */
export const HOME_STATUS_DESCRIPTIONS: Record<HomeStatus, string> = {
  FOR_SALE: 'Listed for sale (auctions, new construction and for-sale-by-owner included)',
  FOR_RENT: 'Listed for rent',
  RECENTLY_SOLD: 'Sold; price is the sale price',
  PENDING: 'Under contract: pending or contingent',
  COMING_SOON: 'Announced for sale, not yet on the market',
  FORECLOSURE: 'In foreclosure or bank-owned',
  OFF_MARKET: 'Off the market, as the listing site reports it',
  OTHER: 'Any other status; homes that are not listed usually come back as OTHER',
};

export const STATUS_TEXTS = [
  'For sale',
  'Pending',
  'Coming soon',
  'New construction',
  'For sale by owner',
  'Foreclosure',
  'Auction',
  'For rent',
  'Sold',
  'Off market',
] as const;
export type StatusText = (typeof STATUS_TEXTS)[number];

export const PortalPriceEvent = Type.Object(
  {
    date: str('Date of the event, YYYY-MM-DD'),
    event: str('What happened, e.g. listed for sale, sold, price change'),
    price: num('Price at the event, USD'),
    pricePerSquareFoot: num('Price per square foot at the event, USD'),
    priceChangeRate: num('Change versus the previous event, as a fraction'),
    source: str('Where the event was reported, e.g. the MLS'),
  },
  {
    $id: 'PortalPriceEvent',
    description: 'One event of the price history. Every field is null when the page does not show it.',
  },
);

export const PortalTaxEvent = Type.Object(
  {
    year: int('Tax year'),
    taxPaid: num('Tax paid, USD'),
    value: num('Assessed value, USD'),
    taxIncreaseRate: num('Change of the tax versus the previous year, as a fraction'),
    valueIncreaseRate: num('Change of the assessed value versus the previous year, as a fraction'),
  },
  {
    $id: 'PortalTaxEvent',
    description: 'One year of the tax history. Every field is null when the page does not show it.',
  },
);

export const PortalSchool = Type.Object(
  {
    name: str('School name'),
    rating: num('Rating shown by the listing site'),
    distance: num('Distance from the home, miles'),
    level: str('Level, e.g. Elementary'),
    type: str('Type, e.g. Public'),
    grades: str('Grade range, e.g. K-5'),
    link: str('School page'),
  },
  {
    $id: 'PortalSchool',
    description: 'A nearby school as listed on the page. Every field is null when the page does not show it.',
  },
);

export const PortalProperty = Type.Object(
  {
    zpid: str('Property ID on the listing site'),
    detailUrl: str("The listing site's page for the property"),
    address: str('One-line address'),
    streetAddress: str('Street line'),
    unit: str('Unit number. For an apartment-building link: the unit that price describes'),
    city: str('City'),
    state: str('Two-letter state code'),
    zipcode: str('ZIP code'),
    county: str('County'),
    neighborhood: str('Neighborhood'),
    latitude: num('Latitude'),
    longitude: num('Longitude'),
    price: num(
      'List price; monthly rent for rentals; sale price for sold homes. Never 0; null when not shown or undisclosed',
    ),
    currency: str('Currency code of price'),
    homeStatus: nullable(
      Type.Union(HOME_STATUSES.map((s) => Type.Literal(s))),
      'One of FOR_SALE, FOR_RENT, RECENTLY_SOLD, PENDING, COMING_SOON, FORECLOSURE, OFF_MARKET, OTHER',
    ),
    statusText: nullable(
      Type.Union(STATUS_TEXTS.map((s) => Type.Literal(s))),
      'Readable status; null when the status is unclear',
    ),
    homeType: str('e.g. SINGLE_FAMILY, CONDO, TOWNHOUSE, MULTI_FAMILY, APARTMENT, LOT, MANUFACTURED'),
    beds: num('Bedrooms; null when not listed'),
    baths: num('Bathrooms; null when not listed'),
    livingArea: num('Living area, square feet; null when not listed'),
    lotSize: num('Lot size, square feet (acres converted); null when not listed'),
    yearBuilt: int('Year built; usually null for land and new construction'),
    pricePerSquareFoot: num('Price per square foot, USD'),
    estimate: num("The listing site's value estimate, when displayed"),
    rentEstimate: num("The listing site's monthly rent estimate, when displayed"),
    daysOnPortal: int('Days the current listing has been up; null when not currently listed'),
    datePosted: str('Date listed, YYYY-MM-DD'),
    dateSold: str('Date of last sale, YYYY-MM-DD'),
    lastSoldPrice: num('Price of the last sale, USD'),
    monthlyHoaFee: num('HOA fee per month, USD'),
    taxAnnualAmount: num('Annual property tax, USD'),
    taxAssessedValue: num('Tax assessed value, USD'),
    propertyTaxRate: num('Property tax rate, percent'),
    pageViewCount: int('Cumulative page views supplied by the source; zero is meaningful; null when not returned'),
    favoriteCount: int('Favorites supplied by the source; zero is meaningful; null when not returned'),
    parcelId: str('Parcel (APN) number'),
    description: str('Listing description'),
    imgSrc: str('Main photo URL'),
    photos: Type.Array(Type.String({ format: 'uri' }), {
      description: 'Photo URLs as published on the listing, never re-hosted; may be empty',
    }),
    photoCount: int('Number of photos the page reports'),
    brokerName: str('Listing broker; null when none is named or the home is not listed'),
    brokerPhone: str('Broker phone'),
    agentName: str('Listing agent; null when none is named or the home is not listed'),
    agentPhone: str('Agent phone'),
    agentLicenseNumber: str('Agent licence number'),
    mlsId: str('MLS listing number'),
    mlsName: str('MLS name'),
    priceHistory: Type.Array(Type.Ref(PortalPriceEvent), { description: 'Price events, newest first; may be empty' }),
    taxHistory: Type.Array(Type.Ref(PortalTaxEvent), { description: 'Tax years, newest first; may be empty' }),
    schools: Type.Array(Type.Ref(PortalSchool), { description: 'Nearby schools; may be empty' }),
    virtualTourUrl: str('Virtual tour link'),
    scrapedAt: str('When the data was collected, ISO 8601'),
    raw: Type.Optional(
      Type.Unknown({
        description:
          'Present only when raw=true was requested: the unmapped source record. Its shape is unspecified and may change',
      }),
    ),
  },
  {
    $id: 'PortalProperty',
    description: 'One home. Every field is present; null means the listing site does not display it, never zero.',
  },
);

export const LookupSource = Type.Object(
  {
    provider: Type.String({ description: 'self_hosted, or the name of the fallback provider' }),
    note: Type.String({ description: 'How the record was collected' }),
    fallback_from: Type.Optional(Type.String({ description: 'self_hosted when the fallback provider was used' })),
  },
  {
    $id: 'LookupSource',
    additionalProperties: true,
    description: 'Who collected the record, plus provider-specific descriptors',
  },
);

/** The fields meta.changes reports, in the order it lists them. */
export const CHANGE_FIELDS = [
  'price',
  'homeStatus',
  'estimate',
  'rentEstimate',
  'monthlyHoaFee',
  'photoCount',
  'daysOnPortal',
  'priceHistory',
] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];

export const FieldChange = Type.Object(
  {
    field: Type.Union(
      CHANGE_FIELDS.map((f) => Type.Literal(f)),
      { description: 'The PortalProperty field that changed' },
    ),
    from: Type.Unknown({
      description: "The earlier snapshot's value (null when it had none; null for a new priceHistory event)",
    }),
    to: Type.Unknown({ description: 'The value now; for priceHistory, the new event' }),
  },
  {
    $id: 'FieldChange',
    description:
      'One change since the earlier snapshot of the home. daysOnPortal is reported only when its count went down (relisted); a new priceHistory event is one change each.',
  },
);

export const AddressDifference = Type.Object(
  {
    field: Type.Union(
      DIFFERENCE_FIELDS.map((f) => Type.Literal(f)),
      { description: 'The part of the address that differs' },
    ),
    kind: Type.Union(
      DIFFERENCE_KINDS.map((k) => Type.Literal(k)),
      {
        description:
          'spelling: written otherwise, the same after normalization (Street/St, North/N, #/APT, Saint/St, Illinois/IL); missing_in_input: the input left it out; missing_in_match: the matched address has none; different: different after normalization',
      },
    ),
    input: str('As the input wrote it; null when the input left it out'),
    matched: str('As the matched address writes it; null when it has none'),
  },
  {
    $id: 'AddressDifference',
    description: 'A part in which the matched address differs from the input and that was tolerated',
  },
);

export const AddressMatch = Type.Object(
  {
    input: Type.String({ description: 'The address as given' }),
    normalized: Type.String({ description: 'The address as normalized (the `addr:` cache key without its prefix)' }),
    matched_address: str("The answered home's one-line address, as the listing site writes it"),
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        '1 when every part matches as written (case and punctuation aside) and the input left nothing out; each difference takes its weight off (docs/address-match.md)',
    }),
    differences: Type.Array(Type.Ref(AddressDifference), {
      description:
        'What differs, in the order house_number, street_name, street_type, directional, unit, unit_designator, city, state, zipcode; empty for an exact match',
    }),
  },
  { $id: 'AddressMatch', description: "How the address given matches the answered home's address" },
);

export const SectionStateSchema = Type.Union(
  SECTION_STATES.map((st) => Type.Literal(st)),
  { description: SECTION_STATES.map((st) => `${st}: ${SECTION_STATE_DESCRIPTIONS[st]}`).join('; ') },
);

export const LookupSections = Type.Object(
  Object.fromEntries(
    SECTION_NAMES.map((n) => [
      n,
      Type.Union(SectionStateSchema.anyOf, { description: `Whether the page held ${SECTION_DESCRIPTIONS[n]}` }),
    ]),
  ) as Record<SectionName, typeof SectionStateSchema>,
  {
    $id: 'LookupSections',
    description:
      "What the page (or the fallback provider's item) held of each section, decided from the page, not from the record: present, not_published (the page says there is none), not_found (no such section on this page generation or kind of property), extraction_failed (held but unreadable). A record with an extraction_failed section is cached only briefly (INCOMPLETE_TTL_MS) and billed only with its core fields (docs/sections.md)",
  },
);

export const LookupMeta = Type.Object(
  {
    credits: Type.Integer({
      description:
        'Credits billed: 1 for a successful live lookup, 0 on a cache hit or a stale answer (and for a record read with a section in extraction_failed and without its core fields: see sections)',
    }),
    cached: Type.Boolean({
      description: 'True when served from the 24-hour cache (or, with stale, the last good record kept past it)',
    }),
    cache_key: Type.String({ description: '`zpid:<zpid>` or `addr:<normalized address>`' }),
    fetched_at: Type.String({
      format: 'date-time',
      description: 'When the data was collected; a cache hit keeps the original time',
    }),
    source: Type.Ref(LookupSource),
    release: Type.Optional(Type.String({ description: 'Release label (v1)' })),
    took_ms: Type.Integer({ description: 'Milliseconds taken' }),
    warning: Type.Optional(Type.String({ description: 'Present only when something needs checking' })),
    sections: Type.Ref(LookupSections),
    match: Type.Optional(
      Type.Ref(AddressMatch, {
        description:
          'Address lookups only: how the address given matches the home answered, live or from the cache; absent for zpid and link lookups',
      }),
    ),
    age_seconds: Type.Integer({
      description:
        "Seconds since this service read the record (0 for a live read); fetched_at can be earlier (a fallback provider's own collection time)",
    }),
    stale: Type.Optional(
      Type.Boolean({
        description:
          'True when the live read failed (stale_reason) and the last good record was served instead (0 credits); absent otherwise',
      }),
    ),
    stale_reason: Type.Optional(
      Type.String({
        description:
          'With stale: the error code the stale record stands in for (upstream_blocked, upstream_timeout, …)',
      }),
    ),
    changes: Type.Optional(
      Type.Array(Type.Ref(FieldChange), {
        description:
          'What changed since the earlier snapshot of this home that this record replaced; empty when nothing did; absent when it replaced none',
      }),
    ),
    previous_fetched_at: Type.Optional(
      Type.String({ format: 'date-time', description: "With changes: the earlier snapshot's fetched_at" }),
    ),
  },
  { $id: 'LookupMeta' },
);

export const ErrorBody = Type.Object(
  {
    code: Type.Union(
      REST_ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'Stable error code (spec section 7; the table of codes: docs/rest.md, Headers and errors)' },
    ),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ErrorBody' },
);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Ref(ErrorBody),
    meta: Type.Object({
      took_ms: Type.Integer(),
      // An addition to spec 2.6: the same id as the x-request-id header, to find the request in the logs.
      request_id: Type.Optional(Type.String({ description: 'The request id (also the x-request-id header)' })),
    }),
  },
  { $id: 'ErrorEnvelope' },
);

export const PropertyResponse = Type.Object(
  { data: Type.Ref(PortalProperty), meta: Type.Ref(LookupMeta) },
  { $id: 'PropertyResponse' },
);

/** What a dry run (cost preview) answers per item: REST's BatchPreviewItem; in GraphQL, BatchItemResult's fields (null unless dryRun). */
const PREVIEW_ITEM_FIELDS = {
  would_cost: Type.Integer({
    minimum: 0,
    maximum: 1,
    description:
      'Dry run: credits the item would cost now. 1 for a live read; 0 for a home the cache would serve (an address looked up before included), a later item naming the same home as an earlier one (billed once), or an item that would fail without a read',
  }),
  cache_key: Type.Optional(
    Type.String({
      description:
        'Dry run: the key the home is known by (`zpid:…`, `addr:…`, `bldg:…`), as meta.cache_key reports it; items naming the same home share it; absent on a failing item',
    }),
  ),
};

/** What a dry run adds to the batch's meta: REST's BatchPreviewMeta; in GraphQL, BatchMeta's fields (null unless dryRun). */
const PREVIEW_META_FIELDS = {
  credits_estimate: Type.Integer({
    description:
      'Dry run: the sum of would_cost, what the batch would charge now at most (a live read that fails is free)',
  }),
  credits_available: nullable(
    Type.Integer(),
    "Dry run: live lookups the account could pay for now (included lookups left, overage up to the spend limit, the daily live-lookup budget's room; lookups in flight hold theirs); null when nothing limits them",
  ),
  affordable: Type.Boolean({
    description:
      'Dry run: true when credits_estimate is within credits_available (always when it is 0): the batch would not be refused 402 or live_lookups_capped',
  }),
};

/** Every field of `fields` made Optional (absent, GraphQL null, where it does not apply). */
function optional<T extends Record<string, TSchema>>(fields: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };
}

/**
 * A batch item's result in one object, its fields present or not by `ok`: GraphQL's BatchItemResult
 * (REST's two shapes below are made of its fields).
 */
export const BatchResult = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the item in the request, from 0' }),
    ok: Type.Boolean({
      description:
        'True when the item succeeded (data and meta), false when it failed (error). Dry run: true when the item would be looked up, false when it would fail without a read',
    }),
    data: Type.Optional(Type.Ref(PortalProperty)),
    meta: Type.Optional(Type.Ref(LookupMeta)),
    error: Type.Optional(Type.Ref(ErrorBody)),
    ...optional(PREVIEW_ITEM_FIELDS),
  },
  { $id: 'BatchResult' },
);

/** The same property schema without Optional: present in every item of that shape. */
const present = <T extends TSchema>(s: T): T => Type.Required(Type.Object({ s })).properties.s as T;

export const BatchItemSuccess = Type.Object(
  {
    index: BatchResult.properties.index,
    ok: Type.Literal(true, { description: 'The item succeeded' }),
    data: present(BatchResult.properties.data),
    meta: present(BatchResult.properties.meta),
  },
  { $id: 'BatchItemSuccess', description: 'An item that was found' },
);

export const BatchItemFailure = Type.Object(
  {
    index: BatchResult.properties.index,
    ok: Type.Literal(false, { description: 'The item failed' }),
    error: present(BatchResult.properties.error),
  },
  { $id: 'BatchItemFailure', description: 'An item that failed, on its own: the other items are unaffected' },
);

export const BatchMeta = Type.Object(
  {
    count: Type.Integer({ description: 'Items in the request' }),
    succeeded: Type.Integer({ description: 'Items that succeeded' }),
    failed: Type.Integer({ description: 'Items that failed' }),
    cache_hits: Type.Integer({ description: 'Succeeded items served from the cache (0 credits)' }),
    credits: Type.Integer({ description: 'Credits charged: successful live lookups only' }),
    took_ms: Type.Integer({ description: 'Milliseconds taken by the whole batch' }),
  },
  { $id: 'BatchMeta' },
);

export const BatchResponse = Type.Object(
  {
    data: Type.Array(Type.Union([Type.Ref(BatchItemSuccess), Type.Ref(BatchItemFailure)]), {
      description: 'One result per item, in item order',
    }),
    meta: Type.Ref(BatchMeta),
  },
  { $id: 'BatchResponse' },
);

/** One item of a dry run (POST /v1/portal/batch?dry_run=true): what it would cost, nothing looked up. */
export const BatchPreviewItem = Type.Object(
  {
    index: BatchResult.properties.index,
    ok: Type.Boolean({
      description:
        'True when the item would be looked up (from the cache or live), false when it would fail without a read (error)',
    }),
    ...PREVIEW_ITEM_FIELDS,
    error: Type.Optional(
      Type.Ref(ErrorBody, {
        description:
          'Why the item would fail: invalid input, an address known to be ambiguous (409), live lookups disabled',
      }),
    ),
  },
  { $id: 'BatchPreviewItem' },
);

export const BatchPreviewMeta = Type.Object(
  {
    count: BatchMeta.properties.count,
    succeeded: Type.Integer({ description: 'Items that would be looked up (ok)' }),
    failed: Type.Integer({ description: 'Items that would fail without a read (not ok)' }),
    cache_hits: Type.Integer({
      description:
        'Items that would be served at no cost: from the cache, or a later item naming a home read live for an earlier one',
    }),
    credits: Type.Integer({ description: 'Credits charged: always 0, a dry run charges nothing' }),
    ...PREVIEW_META_FIELDS,
    took_ms: BatchMeta.properties.took_ms,
  },
  { $id: 'BatchPreviewMeta' },
);

export const BatchPreviewResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(BatchPreviewItem), { description: 'One preview per item, in item order' }),
    meta: Type.Ref(BatchPreviewMeta),
  },
  {
    $id: 'BatchPreviewResponse',
    description: 'The answer of a dry run: what the batch would cost now; nothing looked up, charged or held',
  },
);

/** A batch's meta in one object, the dry run's fields present or not: GraphQL's BatchMeta. */
export const BatchTotals = Type.Object({ ...BatchMeta.properties, ...optional(PREVIEW_META_FIELDS) });

export const AccountUsage = Type.Object(
  {
    plan: Type.Union([Type.Literal('free'), Type.Literal('paid')], {
      description: 'free (a one-time allotment) or paid (included lookups per billing period)',
    }),
    key_prefix: Type.String({ description: 'The visible prefix of the API key in use' }),
    used: Type.Integer({ description: 'Live lookups billed in the current period (free plan: ever)' }),
    included: Type.Integer({
      description: 'Lookups the plan includes in the period (free plan: the one-time allotment)',
    }),
    remaining: Type.Integer({ description: 'Included lookups left' }),
    period_end: nullable(Type.String({ format: 'date-time' }), 'End of the billing period; null for the free plan'),
    overage_enabled: Type.Boolean({
      description: 'True when lookups past the included ones are billed at the overage rate instead of refused',
    }),
    overage_used: Type.Integer({ description: 'Lookups billed past the included ones in this period' }),
    overage_usd: Type.Number({ description: 'Overage charges so far in this period, USD' }),
    spend_limit_usd: nullable(Type.Number(), 'Monthly overage spend limit, USD; null when none is set'),
  },
  { $id: 'AccountUsage' },
);

export type PortalProperty = Static<typeof PortalProperty>;
export type PortalPriceEvent = Static<typeof PortalPriceEvent>;
export type PortalTaxEvent = Static<typeof PortalTaxEvent>;
export type PortalSchool = Static<typeof PortalSchool>;
export type LookupSource = Static<typeof LookupSource> & Record<string, unknown>;
export type FieldChange = Static<typeof FieldChange>;
export type AddressMatch = Static<typeof AddressMatch>;
export type AddressDifference = Static<typeof AddressDifference>;
export type LookupMeta = Omit<Static<typeof LookupMeta>, 'source'> & { source: LookupSource };
/** An error body as stored and sent: the schema's enum documents the codes; values read back are strings. */
export type ErrorBody = Omit<Static<typeof ErrorBody>, 'code'> & { code: string };
export type BatchMeta = Static<typeof BatchMeta>;
export type AccountUsage = Static<typeof AccountUsage>;
export type BatchPreviewItem = Omit<Static<typeof BatchPreviewItem>, 'error'> & { error?: ErrorBody };
export type BatchPreviewMeta = Static<typeof BatchPreviewMeta>;
export type BatchPreviewResponse = { data: BatchPreviewItem[]; meta: BatchPreviewMeta };
export type BatchResult =
  | { index: number; ok: true; data: PortalProperty; meta: LookupMeta }
  | { index: number; ok: false; error: ErrorBody };

/** Every schema with an $id, for OpenAPI components (the inputs' are declared in inputs.ts). */
export const CONTRACT_SCHEMAS = [
  PortalPriceEvent,
  PortalTaxEvent,
  PortalSchool,
  PortalProperty,
  LookupSource,
  FieldChange,
  AddressDifference,
  AddressMatch,
  LookupSections,
  LookupMeta,
  ErrorBody,
  ErrorEnvelope,
  PropertyResponse,
  ...INPUT_SCHEMAS,
  BatchItemSuccess,
  BatchItemFailure,
  BatchMeta,
  BatchResponse,
  BatchPreviewItem,
  BatchPreviewMeta,
  BatchPreviewResponse,
  AccountUsage,
] as const;

/** The field names of PortalProperty that every response carries (raw is optional). */
export const PROPERTY_FIELDS = Object.keys(PortalProperty.properties).filter((k) => k !== 'raw') as Array<
  Exclude<keyof PortalProperty, 'raw'>
>;

// The inputs of the v1 contract (spec 4.1, 4.2), declared once: every field with its type, limits,
// pattern and description. Generated from here: the OpenAPI parameters and request body
// (rest/openapi.ts), the GraphQL arguments and the LookupItem input (graphql/typebox.ts); the
// validator (validate.ts) takes its key lists and limits from here and adds the rules a schema
// cannot say (a link on the listing site, an address with a city). test/contract/inputs.test.ts feeds
// the same samples to these schemas and to the validator.
import { Type, type TSchema } from '@sinclair/typebox';
import { ADDRESS_MAX, ADDRESS_MIN } from '../address/index.js';
import { URL_MAX } from './listing-url.js';

export const STATUS_HINTS = ['for_sale', 'sold', 'for_rent'] as const;
export type StatusHint = (typeof STATUS_HINTS)[number];

export const MAX_BATCH_ITEMS = 50;
/** The largest max_age, seconds: the default cache lifetime (max_age only ever asks for fresher). */
export const MAX_AGE_MAX = 86_400;
export const ZPID_PATTERN = '^\\d{1,12}$';

/** The three ways to name a home; a lookup sends exactly one. */
export const LOCATOR_FIELDS = {
  url: Type.String({
    maxLength: URL_MAX,
    description: `A home-details link ending in \`<zpid>_zpid/\`, or an apartment-building link (/apartments/…). At most ${URL_MAX} characters.`,
    examples: ['https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/'],
  }),
  zpid: Type.String({
    pattern: ZPID_PATTERN,
    description: 'The property ID, 1 to 12 digits.',
    examples: ['2146993218'],
  }),
  address: Type.String({
    minLength: ADDRESS_MIN,
    maxLength: ADDRESS_MAX,
    description: `One-line US address with house number and either city + state or ZIP; ${ADDRESS_MIN} to ${ADDRESS_MAX} characters. Include the unit for condos and apartments.`,
    examples: ['661 Lakeview Ave, San Francisco, CA 94112'],
  }),
};
export type LocatorKey = keyof typeof LOCATOR_FIELDS;
export const LOCATOR_KEYS = Object.keys(LOCATOR_FIELDS) as LocatorKey[];

/** How to read the home, for a single lookup and for every item of a batch alike. */
export const OPTION_FIELDS = {
  status: Type.Optional(
    Type.Union(
      STATUS_HINTS.map((s) => Type.Literal(s)),
      {
        description: 'Hint for which listing to read (a batch: for every item). Detected automatically when omitted.',
      },
    ),
  ),
  // No `default` keyword: generated client types would make the field required (openapi-typescript).
  raw: Type.Optional(
    Type.Boolean({
      description:
        'Add data.raw, the unmapped source record (a batch: for every item; GraphQL: built only when data.raw is selected). False when omitted.',
    }),
  ),
  max_age: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_AGE_MAX,
      description: `Oldest cached record accepted, seconds (0 to ${MAX_AGE_MAX}): an older one is read live again and billed as a live lookup; 0 always reads live. The cache lifetime when omitted (a batch: for every item without its own).`,
    }),
  ),
  stale: Type.Optional(
    Type.Boolean({
      description:
        'When a live read fails (blocked, upstream outage, timeout), answer with the last good record, marked meta.stale, for 0 credits. True when omitted; false returns the error.',
    }),
  ),
};
export type OptionKey = keyof typeof OPTION_FIELDS;

/** What a batch item object may carry beside its locator: its own max_age, over the batch's. */
export const ITEM_OPTION_FIELDS = {
  max_age: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_AGE_MAX,
      description: `This item's max_age, seconds (0 to ${MAX_AGE_MAX}), over the batch's.`,
    }),
  ),
};
export const ITEM_OPTION_KEYS: readonly string[] = Object.keys(ITEM_OPTION_FIELDS);

/** Exactly one of the locators, each alone or with the given fields, and nothing else. */
const oneLocator = (more: Record<string, TSchema>) =>
  LOCATOR_KEYS.map((k) => Type.Object({ [k]: LOCATOR_FIELDS[k], ...more }, { additionalProperties: false }));

/**
 * GET /v1/portal/property's query string: one locator, plus the options. A query string carries
 * `raw` as the text true or false (a boolean query parameter in OpenAPI's form style).
 */
export const LookupQuery = Type.Union(oneLocator(OPTION_FIELDS), {
  $id: 'LookupQuery',
  description: `Exactly one of ${LOCATOR_KEYS.join(', ')}; ${Object.keys(OPTION_FIELDS).join(', ')} are optional.`,
});
export const LOOKUP_QUERY_KEYS: readonly string[] = [...LOCATOR_KEYS, ...Object.keys(OPTION_FIELDS)];

/** A batch item: a link or address as a string, or an object with exactly one locator (and its own max_age). */
export const BatchItem = Type.Union(
  [
    Type.String({
      minLength: ADDRESS_MIN,
      maxLength: URL_MAX,
      description: 'A listing-site property link (http or https) or a one-line address',
    }),
    ...oneLocator(ITEM_OPTION_FIELDS),
  ],
  {
    $id: 'BatchItem',
    description: `One home: a link or address as a string, or an object with exactly one of ${LOCATOR_KEYS.join(', ')} (and optionally ${ITEM_OPTION_KEYS.join(', ')}).`,
  },
);

export const BatchRequest = Type.Object(
  {
    items: Type.Array(Type.Ref(BatchItem), {
      minItems: 1,
      maxItems: MAX_BATCH_ITEMS,
      description: `1 to ${MAX_BATCH_ITEMS} homes. Each is looked up on its own: an invalid item fails in place.`,
    }),
    ...OPTION_FIELDS,
  },
  { $id: 'BatchRequest', additionalProperties: false },
);
export const BATCH_BODY_KEYS: readonly string[] = Object.keys(BatchRequest.properties);

/**
 * POST /v1/portal/batch's query string (GraphQL: arguments of Query.properties beside the body's).
 * A query string carries `dry_run` as the text true or false.
 */
export const BATCH_QUERY_FIELDS = {
  dry_run: Type.Optional(
    Type.Boolean({
      description:
        'Cost preview: validate every item and answer what the batch would cost now (per item would_cost, meta.credits_estimate, meta.affordable) without looking anything up, charging or holding credits. Takes one unit of the per-key rate window. False when omitted.',
    }),
  ),
};

/** The body schemas with an $id (OpenAPI components; the refs a schema check resolves). */
export const INPUT_SCHEMAS = [BatchItem, BatchRequest] as const;

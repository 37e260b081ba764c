// The inputs are declared once (src/contract/inputs.ts): the same samples go to the schema check (Ajv,
// a standard JSON Schema validator, reading a query string as an OpenAPI server does) and to the
// validator, which must agree on every one, except where the validator checks more than a schema
// can say (a link on the listing site, an address with a city). The faces' generated inputs carry
// exactly the contract's keys.
import { KindGuard } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { isInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  BATCH_BODY_KEYS,
  BatchRequest,
  INPUT_SCHEMAS,
  isLookupError,
  ITEM_OPTION_KEYS,
  LOCATOR_KEYS,
  LOOKUP_QUERY_KEYS,
  LookupQuery,
  MAX_BATCH_ITEMS,
  OPTION_FIELDS,
  parseBatchBody,
  parseLookupQuery,
  STATUS_HINTS,
} from '../../src/contract/index.js';
import { schema as graphqlSchema } from '../../src/graphql/index.js';
import { toGraphqlName } from '../../src/graphql/typebox.js';
import { buildOpenApi } from '../../src/rest/openapi.js';

// A query string's values are text: coerceTypes reads raw=true as the boolean the schema declares.
const queryAjv = new Ajv({ coerceTypes: true, strict: false });
const bodyAjv = new Ajv({ strict: false });
bodyAjv.addSchema([...INPUT_SCHEMAS]);
const checkQuery = queryAjv.compile(LookupQuery);
const checkBody = bodyAjv.getSchema(BatchRequest.$id!)!;

type Verdict = 'ok' | string;

/** What the validator says of a query: ok, or the error code. */
function validateQuery(query: Record<string, unknown>): Verdict {
  try {
    parseLookupQuery(query);
    return 'ok';
  } catch (e) {
    if (isLookupError(e)) return e.code;
    throw e;
  }
}

/** What the validator says of a batch body: ok when the body and every item pass, else the first code. */
function validateBody(body: unknown): Verdict {
  try {
    const { items } = parseBatchBody(body);
    const failed = items.find((i) => !i.ok);
    return failed && !failed.ok ? failed.error.code : 'ok';
  } catch (e) {
    if (isLookupError(e)) return e.code;
    throw e;
  }
}

const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const ADDRESS = '661 Lakeview Ave, San Francisco, CA 94112';
/** A link of exactly n characters (n ≥ 60) that the validator accepts when n ≤ 500. */
const linkOf = (n: number) => {
  const base = 'https://www.zillow.com/homedetails/';
  const tail = '/2146993218_zpid/';
  return base + 'a'.repeat(n - base.length - tail.length) + tail;
};
/** The valid address padded with spaces to n characters: the validator reads it trimmed, but counts it as sent. */
const addressOf = (n: number) => ADDRESS + ' '.repeat(n - ADDRESS.length);

// [name, sample, the validator's verdict]; the schema must accept exactly the `ok` ones.
const QUERIES: Array<[string, Record<string, unknown>, Verdict]> = [
  ['a zpid', { zpid: '2146993218' }, 'ok'],
  ['a zpid with leading zeros', { zpid: '007' }, 'ok'],
  ['a link with status', { url: HOME, status: 'sold' }, 'ok'],
  ['a link of 500 characters', { url: linkOf(500) }, 'ok'],
  ['an address with raw=true', { address: ADDRESS, raw: 'true' }, 'ok'],
  ['an address of 200 characters as sent', { address: addressOf(200) }, 'ok'],
  ['every option', { zpid: '1', status: 'for_rent', raw: 'false', max_age: '0', stale: 'false' }, 'ok'],
  ['max_age of a day', { zpid: '1', max_age: '86400' }, 'ok'],
  ['max_age past a day', { zpid: '1', max_age: '86401' }, 'bad_param'],
  ['a negative max_age', { zpid: '1', max_age: '-1' }, 'bad_param'],
  ['a fractional max_age', { zpid: '1', max_age: '1.5' }, 'bad_param'],
  ['max_age in words', { zpid: '1', max_age: 'soon' }, 'bad_param'],
  ['an empty max_age', { zpid: '1', max_age: '' }, 'bad_param'],
  ['stale=no', { zpid: '1', stale: 'no' }, 'bad_param'],
  ['nothing', {}, 'missing_param'],
  ['options only', { status: 'sold', raw: 'true' }, 'missing_param'],
  ['two locators', { url: HOME, zpid: '2146993218' }, 'bad_param'],
  ['three locators', { url: HOME, zpid: '1', address: ADDRESS }, 'bad_param'],
  ['a zpid with letters', { zpid: '12ab' }, 'bad_param'],
  ['a zpid of 13 digits', { zpid: '1234567890123' }, 'bad_param'],
  ['a zpid with a space', { zpid: ' 2146993218' }, 'bad_param'],
  ['an empty zpid', { zpid: '' }, 'bad_param'],
  ['a link of 501 characters', { url: linkOf(501) }, 'bad_param'],
  ['an address under 5 characters', { address: '1 Ma' }, 'bad_param'],
  ['an address of 201 characters as sent', { address: addressOf(201) }, 'bad_param'],
  ['a bad status', { zpid: '1', status: 'rented' }, 'bad_param'],
  ['status in upper case', { zpid: '1', status: 'FOR_SALE' }, 'bad_param'],
  ['raw=yes', { zpid: '1', raw: 'yes' }, 'bad_param'],
  ['raw=1', { zpid: '1', raw: '1' }, 'bad_param'],
  ['an unknown parameter', { zpid: '1', adress: 'x' }, 'bad_param'],
  ['a repeated parameter', { zpid: ['1', '2'] }, 'bad_param'],
];

/** Every literal an option may take (status hints, and those of any option added later). */
const OPTION_LITERALS: string[] = Object.values(OPTION_FIELDS).flatMap((f) =>
  KindGuard.IsUnion(f) ? f.anyOf.flatMap((m) => (KindGuard.IsLiteralString(m) ? [m.const] : [])) : [],
);

// The validator's own rules: the schema accepts these, the validator answers bad_param.
const QUERIES_BEYOND_SCHEMA: Array<[string, Record<string, unknown>]> = [
  ['a link on another site', { url: 'https://example.com/homedetails/1_zpid/' }],
  ['a search link', { url: 'https://www.zillow.com/homes/for_sale/' }],
  ['an address without a house number', { address: 'Main St, Austin, TX 78701' }],
  ['an address without city+state or ZIP', { address: '123 Main St' }],
];

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ zpid: String(i + 1) }));

const BODIES: Array<[string, unknown, Verdict]> = [
  ['one zpid', { items: [{ zpid: '2146993218' }] }, 'ok'],
  [
    'every item form and option',
    { items: [HOME, ADDRESS, { url: HOME }, { address: ADDRESS }, { zpid: '7' }], status: 'sold', raw: true },
    'ok',
  ],
  [`${MAX_BATCH_ITEMS} items`, { items: items(MAX_BATCH_ITEMS) }, 'ok'],
  ['not an object', [], 'bad_body'],
  ['no items', {}, 'bad_body'],
  ['empty items', { items: [] }, 'bad_body'],
  ['items not an array', { items: 'x' }, 'bad_body'],
  [`${MAX_BATCH_ITEMS + 1} items`, { items: items(MAX_BATCH_ITEMS + 1) }, 'too_many_items'],
  ['an unknown field', { items: [{ zpid: '1' }], foo: 1 }, 'bad_param'],
  ['raw as text', { items: [{ zpid: '1' }], raw: 'true' }, 'bad_param'],
  ['a bad status', { items: [{ zpid: '1' }], status: 'nope' }, 'bad_param'],
  ['a number item', { items: [42] }, 'bad_param'],
  ['a null item', { items: [null] }, 'bad_param'],
  ['an empty object item', { items: [{}] }, 'missing_param'],
  ['an item with an unknown key', { items: [{ foo: 'bar' }] }, 'bad_param'],
  ['an item with two locators', { items: [{ url: HOME, zpid: '1' }] }, 'bad_param'],
  ['an item with a bad zpid', { items: [{ zpid: 'abc' }] }, 'bad_param'],
  [
    "items with their own max_age, over the batch's",
    {
      items: [
        { zpid: '1', max_age: 0 },
        { url: HOME, max_age: 86_400 },
      ],
      max_age: 60,
      stale: false,
    },
    'ok',
  ],
  ['an item max_age past a day', { items: [{ zpid: '1', max_age: 86_401 }] }, 'bad_param'],
  ['an item max_age as text', { items: [{ zpid: '1', max_age: '60' }] }, 'bad_param'],
  ['a fractional max_age', { items: [{ zpid: '1' }], max_age: 1.5 }, 'bad_param'],
  ['stale as text', { items: [{ zpid: '1' }], stale: 'false' }, 'bad_param'],
  [
    "an item with raw beside its locator (raw is the batch's)",
    { items: [{ address: ADDRESS, max_age: 5, raw: true }] },
    'bad_param',
  ],
  ['a short string item', { items: ['x'] }, 'bad_param'],
  ['a link item over the limit', { items: [linkOf(501)] }, 'bad_param'],
  ['an address item over the limit', { items: [{ address: addressOf(201) }] }, 'bad_param'],
];

const BODIES_BEYOND_SCHEMA: Array<[string, unknown]> = [
  ['a string that is neither a link nor an address', { items: ['Main St only'] }],
  ['a link item on another site', { items: ['https://example.com/x'] }],
  ['a url item that is not a property link', { items: [{ url: 'https://www.zillow.com/homes/for_sale/' }] }],
];

const schemaAcceptsQuery = (q: Record<string, unknown>) => checkQuery(structuredClone(q));
/** Test titles with the verdict after the name. */
const titled = <T>(cases: Array<[string, T, Verdict]>) =>
  cases.map(([name, sample, verdict]) => [`${name} → ${verdict}`, sample, verdict] as const);

describe('the query string of GET /v1/portal/property: schema and validator agree', () => {
  it.each(titled(QUERIES))('%s', (_name, query, verdict) => {
    expect(validateQuery(query)).toBe(verdict);
    expect(schemaAcceptsQuery(query), JSON.stringify(checkQuery.errors)).toBe(verdict === 'ok');
  });

  it.each(QUERIES_BEYOND_SCHEMA)('%s: in the schema, refused by the validator', (_name, query) => {
    expect(schemaAcceptsQuery(query)).toBe(true);
    expect(validateQuery(query)).toBe('bad_param');
  });

  it('agree on any query of zpid, every option and unknown keys (everything the schema says in full)', () => {
    const value = fc.oneof(
      fc.stringMatching(/^\d{0,14}$/),
      fc.constantFrom(...OPTION_LITERALS, 'rented', 'SOLD', '', 'true', 'false', 'yes', '1', ' 1'),
      fc.string({ maxLength: 6 }),
      fc.array(fc.constant('1'), { minLength: 2, maxLength: 2 }),
    );
    const keys = fc.constantFrom('zpid', ...Object.keys(OPTION_FIELDS), 'zpids', 'Raw');
    fc.assert(
      fc.property(fc.dictionary(keys, value), (query) => {
        expect(schemaAcceptsQuery(query)).toBe(validateQuery(query) === 'ok');
      }),
      { numRuns: 500 },
    );
  });

  it('a link or an address the validator accepts is in the schema, at any length around the limits', () => {
    for (let n = 480; n <= 520; n++) {
      const query = { url: linkOf(n) };
      if (validateQuery(query) === 'ok') expect(schemaAcceptsQuery(query), `url of ${n}`).toBe(true);
      else expect(schemaAcceptsQuery(query), `url of ${n}`).toBe(false);
    }
    for (let n = 190; n <= 210; n++) {
      const query = { address: addressOf(n) };
      expect(schemaAcceptsQuery(query), `address of ${n}`).toBe(validateQuery(query) === 'ok');
    }
  });
});

describe('the body of POST /v1/portal/batch: schema and validator agree', () => {
  it.each(titled(BODIES))('%s', (_name, body, verdict) => {
    expect(validateBody(body)).toBe(verdict);
    expect(checkBody(structuredClone(body)), JSON.stringify(checkBody.errors)).toBe(verdict === 'ok');
  });

  it.each(BODIES_BEYOND_SCHEMA)('%s: in the schema, refused by the validator', (_name, body) => {
    expect(checkBody(structuredClone(body))).toBe(true);
    expect(validateBody(body)).toBe('bad_param');
  });

  it('agree on any options and unknown fields beside valid items (a new option without a rule fails here)', () => {
    const value = fc.oneof(
      fc.boolean(),
      fc.constantFrom(...OPTION_LITERALS, 'true', 'rented', ''),
      fc.integer(),
      fc.constant(null),
    );
    const keys = fc.constantFrom(...Object.keys(OPTION_FIELDS), 'Raw', 'item');
    // One leniency, on purpose: the validator reads an option sent as null as not sent (GraphQL hands
    // it null for an argument given as null); the schema describes what to send, so without the null.
    const withoutNullOptions = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).filter(([k, v]) => !(v === null && k in OPTION_FIELDS)));
    fc.assert(
      fc.property(fc.dictionary(keys, value), (options) => {
        const body = { items: [{ zpid: '1' }], ...options };
        expect(checkBody(withoutNullOptions(structuredClone(body)))).toBe(validateBody(body) === 'ok');
      }),
      { numRuns: 300 },
    );
  });
});

describe('the faces take their inputs from the contract', () => {
  const openapi = buildOpenApi({ cacheTtlMs: 24 * 3_600_000 }) as any;

  it('OpenAPI: the query parameters are the contract query keys, each schema the contract field without its prose', () => {
    const params = openapi.paths['/v1/portal/property'].get.parameters;
    expect(params.map((p: any) => p.name)).toEqual([...LOOKUP_QUERY_KEYS]);
    const zpid = params.find((p: any) => p.name === 'zpid');
    expect(zpid).toMatchObject({ in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{1,12}$' } });
    expect(params.find((p: any) => p.name === 'status').schema).toEqual({ type: 'string', enum: [...STATUS_HINTS] });
  });

  it('OpenAPI: the batch body is BatchRequest, with the item limit and no other keys', () => {
    const body = openapi.components.schemas.BatchRequest;
    expect(Object.keys(body.properties)).toEqual([...BATCH_BODY_KEYS]);
    expect(body).toMatchObject({
      additionalProperties: false,
      properties: { items: { minItems: 1, maxItems: MAX_BATCH_ITEMS } },
    });
  });

  it('GraphQL: property takes the query keys, properties the body keys, LookupItem the locators and maxAge (camelCase)', () => {
    const query = graphqlSchema.getQueryType()!.getFields();
    expect(query.property!.args.map((a) => a.name).sort()).toEqual(LOOKUP_QUERY_KEYS.map(toGraphqlName).sort());
    expect(query.property!.args.every((a) => !String(a.type).endsWith('!'))).toBe(true);
    const bodyArgs = query.properties!.args.filter((a) => BATCH_BODY_KEYS.map(toGraphqlName).includes(a.name));
    expect(bodyArgs.map((a) => [a.name, String(a.type)]).sort()).toEqual(
      [
        ['items', '[LookupItem!]!'],
        ['maxAge', 'Int'],
        ['raw', 'Boolean'],
        ['stale', 'Boolean'],
        ['status', 'StatusHint'],
      ].sort(),
    );
    expect([...BATCH_BODY_KEYS].sort()).toEqual(['items', 'max_age', 'raw', 'stale', 'status']);
    const item = graphqlSchema.getType('LookupItem');
    if (!isInputObjectType(item)) throw new Error('LookupItem is not an input type');
    // Not @oneOf (it has maxAge beside the locator): one locator per item is the validator's rule.
    expect(item.isOneOf).toBe(false);
    expect(Object.keys(item.getFields()).sort()).toEqual(
      [...LOCATOR_KEYS, ...ITEM_OPTION_KEYS].map(toGraphqlName).sort(),
    );
    expect(item.getFields().zpid!.description).toBe(openapi.paths['/v1/portal/property'].get.parameters[1].description);
  });
});

// Generators of what clients may send: mostly near-valid (real homes, listing links, addresses,
// status hints) so the fuzz reaches the lookups, mixed with garbage of every shape.
import fc from 'fast-check';

/** Homes of the replay catalog: valid lookups that reach the collector (then the cache). */
export const KNOWN_ZPIDS = ['114303858', '2146993218', '15192198'];

const garbage = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%00',
    '\u0000',
    '../../etc/passwd',
    '<script>',
    '{"a":1}',
    'null',
    'undefined',
    'NaN',
    '-1',
    '1e309',
  ),
);

export const zpid = fc.oneof(
  fc.constantFrom(...KNOWN_ZPIDS),
  fc.stringMatching(/^\d{1,14}$/),
  fc.stringMatching(/^ ?0*\d{1,4} ?$/),
  garbage,
);

export const listingUrl = fc.oneof(
  fc.constantFrom(...KNOWN_ZPIDS).map((z) => `https://www.zillow.com/homedetails/${z}_zpid/`),
  fc
    .tuple(fc.stringMatching(/^[A-Za-z0-9-]{0,30}$/), fc.stringMatching(/^\d{1,12}$/))
    .map(([slug, z]) => `https://www.zillow.com/homedetails/${slug}/${z}_zpid/`),
  fc.stringMatching(/^[a-z0-9-]{0,20}$/).map((s) => `https://www.zillow.com/apartments/${s}/`),
  fc.webUrl(),
  fc.constantFrom(
    'http://127.0.0.1:6379/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    `https://www.zillow.com/homedetails/${'x'.repeat(600)}_zpid/`,
  ),
  garbage,
);

export const address = fc.oneof(
  fc.constantFrom(
    '661 Lakeview Ave, San Francisco, CA 94112',
    '710 E Dean Keeton St #111, Austin, TX 78705',
    '1 Main St, Springfield, IL',
  ),
  fc
    .tuple(fc.nat({ max: 99999 }), fc.stringMatching(/^[A-Za-z ]{1,20}$/), fc.stringMatching(/^\d{5}$/))
    .map(([n, street, zip]) => `${n} ${street} St, ${zip}`),
  garbage,
);

export const status = fc.oneof(fc.constantFrom('for_sale', 'sold', 'for_rent', 'FOR_SALE', ''), garbage);
export const rawFlag = fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '1', ''), garbage);

/** A query string for GET /v1/portal/property: known and unknown names, repeats, odd encodings. */
export const propertyQuery = fc
  .array(
    fc.oneof(
      zpid.map((v) => ['zpid', v] as const),
      listingUrl.map((v) => ['url', v] as const),
      address.map((v) => ['address', v] as const),
      status.map((v) => ['status', v] as const),
      rawFlag.map((v) => ['raw', v] as const),
      fc.tuple(fc.oneof(fc.stringMatching(/^[a-z_]{1,10}$/), garbage), garbage),
    ),
    { maxLength: 5 },
  )
  .chain((pairs) =>
    fc
      .constantFrom('encoded', 'raw')
      .map((how) =>
        pairs
          .map(([k, v]) =>
            how === 'encoded'
              ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}`
              : `${k}=${v}`.replace(/[#\s]/g, '+'),
          )
          .join('&'),
      ),
  );

const item = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_ZPIDS).map((z) => ({ zpid: z })) },
  { weight: 1, arbitrary: zpid.map((z) => ({ zpid: z })) },
  { weight: 1, arbitrary: listingUrl.map((u) => ({ url: u })) },
  { weight: 1, arbitrary: listingUrl },
  { weight: 1, arbitrary: address },
  { weight: 1, arbitrary: address.map((a) => ({ address: a })) },
  { weight: 1, arbitrary: fc.record({ url: listingUrl, address }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** A batch body as text: structured near-valid bodies, any JSON, and text that is not JSON. */
export const batchBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          items: fc.array(item, { maxLength: 55 }),
          status: fc.oneof(status, fc.jsonValue({ maxDepth: 1 })),
          raw: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
          extra: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: ['items'] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: garbage },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"items":[]}',
      '{"items":null}',
      '{"items":{}}',
      '[]',
      '{"items":[1',
      `{"items":[${'"1",'.repeat(60)}"1"]}`,
    ),
  },
);

export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'aaaa',
    '',
    'application/json, text/plain',
    'multipart/form-data',
    'application/x-www-form-urlencoded',
    ';;;',
    'application/graphql',
  ),
  fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
);

export const apiKey = (valid: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e]{0,60}$/) },
  );

/** Extra request headers with printable values (what a well-behaved client library lets through). */
export const extraHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'accept',
      'accept-encoding',
      'expect',
      'origin',
      'x-request-id',
      'x-forwarded-for',
      'cookie',
      'range',
      'if-none-match',
      'connection',
    ),
    fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
  ),
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/).map((v) => v.trim()),
  { maxKeys: 5 },
);

/** GraphQL: documents built from the schema's fields (with aliases, fragments, variables), then damaged or not. */
const lookupArgs = fc.oneof(
  zpid.map((z) => `zpid: ${JSON.stringify(z)}`),
  listingUrl.map((u) => `url: ${JSON.stringify(u)}`),
  address.map((a) => `address: ${JSON.stringify(a)}`),
  fc.constantFrom(
    'zpid: $zpid',
    'zpid: 5',
    'zpid: null',
    '',
    'zpid: "1", address: "1 Main St, Springfield, IL"',
    'status: for_sale, zpid: "114303858"',
    'raw: true, zpid: "114303858"',
  ),
);

/** A root field as its head (name and arguments) and its selection set, so directives go between. */
const field = fc.oneof(
  fc.constant(['__typename', '']),
  fc.constant(['account', '{ used remaining plan }']),
  lookupArgs.map((a) => [
    `property(${a})`,
    '{ __typename ... on LookupError { code message details retryAfter } ... on PropertyLookup { data { zpid price homeStatus } meta { credits cached cacheKey } } }',
  ]),
  fc
    .array(
      fc.oneof(
        zpid.map((z) => `{ zpid: ${JSON.stringify(z)} }`),
        address.map((a) => `{ address: ${JSON.stringify(a)} }`),
        fc.constant('"x"'),
      ),
      { maxLength: 6 },
    )
    .map((items) => [
      `properties(items: [${items.join(', ')}])`,
      '{ meta { count succeeded credits } results { __typename ... on LookupError { code } } }',
    ]),
  fc.constant(['properties(items: $items)', '{ meta { count } }']),
  fc.constant(['__schema', '{ queryType { name } types { name } }']),
  fc.constant(['__type(name: "PortalProperty")', '{ fields { name } }']),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/).map((name) => [name, '']),
) as fc.Arbitrary<[string, string]>;

const selection = fc
  .array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(
            fc.option(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), { nil: undefined }),
            field,
            fc.constantFrom('', '', ' @include(if: $flag)', ' @skip(if: true)', ' @skip(if: $flag)'),
          )
          .map(([alias, [head, body], dir]) => `${alias ? `${alias}: ` : ''}${head}${dir} ${body}`),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom('...F', '... @defer { account { used } }', '... on Query { __typename }'),
      },
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((fs) => fs.join(' '));

const VARIABLES: Record<string, string> = { zpid: 'String', items: '[LookupItem!]', flag: 'Boolean = true' };

/** An operation over a selection: its variables declared when used (now and then one too many or too few). */
const operation = fc
  .tuple(
    selection,
    fc.constantFrom('query', 'query', 'query Q', 'mutation', 'subscription'),
    fc.constantFrom('exact', 'exact', 'extra', 'missing'),
    fc.constantFrom(
      'fragment F on Query { __typename account { used } }',
      'fragment F on Query { ...F }',
      'fragment F on PortalProperty { zpid }',
    ),
  )
  .map(([sel, kind, declared, fragment]) => {
    const used = Object.keys(VARIABLES).filter((v) => sel.includes(`$${v}`));
    const names = declared === 'extra' ? Object.keys(VARIABLES) : declared === 'missing' ? used.slice(1) : used;
    const vars = names.length ? `(${names.map((v) => `$${v}: ${VARIABLES[v]}`).join(', ')})` : '';
    const head = kind === 'query' && !vars ? '' : `${kind}${vars} `;
    return `${head}{ ${sel} }${sel.includes('...F') ? ` ${fragment}` : ''}`;
  });

export const document = fc.oneof(
  { weight: 4, arbitrary: operation },
  {
    weight: 1,
    arbitrary: fc.tuple(operation, fc.nat(), fc.string({ maxLength: 3 })).map(([doc, at, junk]) => {
      const i = at % (doc.length + 1);
      return doc.slice(0, i) + junk + doc.slice(i);
    }),
  },
  { weight: 1, arbitrary: garbage },
);

export const variables = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      zpid: zpid,
      items: fc.array(fc.oneof(fc.record({ zpid }), fc.record({ address }), fc.jsonValue({ maxDepth: 1 })), {
        maxLength: 5,
      }),
      flag: fc.jsonValue({ maxDepth: 0 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

export const accept = fc.constantFrom(
  undefined,
  'application/json',
  'application/graphql-response+json',
  '*/*',
  'text/foo',
  'application/graphql-response+json, application/json;q=0.9',
  'application/xml',
);

// The lookup count of one operation, read before it executes: with the variables as the executor
// coerces them (defaults applied, so @skip/@include and list defaults count as they will run), from
// the document the request runs (its query, or its persisted operation), parsed under armor's token
// limit.
import { getOperationAST, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/index.js';
import { documentOf } from '../../src/graphql/documents.js';
import { SHAPE_LIMITS } from '../../src/graphql/limits.js';
import { countRequestLookups, needsApiKey } from '../../src/graphql/lookup-count.js';
import {
  AccountDocument,
  BatchDocument,
  BatchPreviewDocument,
} from '../../src/graphql/operations/generated/graphql.js';

const count = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
  countRequestLookups(schema, {
    query,
    ...(variables ? { variables } : {}),
    ...(operationName ? { operationName } : {}),
  });

describe('countRequestLookups', () => {
  it('property fields are one each, properties counts its items', () => {
    expect(count('{ a: property(zpid: "1") { __typename } b: property(zpid: "2") { __typename } }')).toBe(2);
    expect(count('{ properties(items: [{ zpid: "1" }, { zpid: "2" }, { zpid: "3" }]) { meta { count } } }')).toBe(3);
    expect(count('{ properties(items: { zpid: "1" }) { meta { count } } }')).toBe(1); // one object is a list of one
    expect(count(print(BatchDocument), { items: [{ zpid: '1' }, { zpid: '2' }] })).toBe(2);
    expect(count('{ account { used } }')).toBe(0);
  });

  it('a dry-run properties is one, whatever its items (a literal or a variable, defaults applied)', () => {
    const items = [{ zpid: '1' }, { zpid: '2' }, { zpid: '3' }];
    expect(count(print(BatchPreviewDocument), { items })).toBe(1);
    const query =
      'query($items: [LookupItem!]!, $dry: Boolean = true) { a: property(zpid: "1") { __typename } properties(items: $items, dryRun: $dry) { meta { count } } }';
    expect(count(query, { items })).toBe(2);
    expect(count(query, { items, dry: false })).toBe(4);
    expect(count(query, { items, dry: null })).toBe(4);
    expect(count('{ properties(items: [{ zpid: "1" }, { zpid: "2" }], dryRun: false) { meta { count } } }')).toBe(2);
  });

  it('applies variable defaults, in @skip/@include as in item lists', () => {
    const query = `query($skip: Boolean = true, $keep: Boolean = false, $items: [LookupItem!] = [{ zpid: "1" }, { zpid: "2" }]) {
      a: property(zpid: "1") @skip(if: $skip) { __typename }
      b: property(zpid: "1") @include(if: $keep) { __typename }
      c: property(zpid: "1") { __typename }
      properties(items: $items) { meta { count } }
    }`;
    expect(count(query)).toBe(3);
    expect(count(query, { skip: false, keep: true, items: [{ zpid: '9' }] })).toBe(4);
    expect(count(query, { items: null })).toBe(1);
  });

  it('counts fields merged by response key once, through fragments', () => {
    const query = `query { ...A ... on Query { x: property(zpid: "1") { __typename } } x: property(zpid: "1") { __typename } }
      fragment A on Query { y: property(zpid: "2") { __typename } }`;
    expect(count(query)).toBe(2);
  });

  it('counts only the selected operation, and nothing for an operation that cannot run', () => {
    const doc =
      'query One { property(zpid: "1") { __typename } } query Two { properties(items: [{ zpid: "1" }, { zpid: "2" }]) { meta { count } } }';
    expect(count(doc, undefined, 'Two')).toBe(2);
    expect(count(doc, undefined, 'Three')).toBe(0);
    expect(count(print(BatchDocument), { items: 'not a list of items' })).toBe(0); // invalid variables: refused before running
    expect(count('{ property(zpid: "1") { __typename ')).toBe(0); // does not parse
  });
});

describe('documentOf', () => {
  it('parses the query, or the persisted operation a version-1 hash names', () => {
    expect(documentOf({ query: '{ __typename }' })).not.toBeNull();
    const hash = (AccountDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
    const persisted = documentOf({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(persisted && getOperationAST(persisted)?.name?.value).toBe('Account');
    expect(documentOf({ extensions: { persistedQuery: { version: 2, sha256Hash: hash } } })).toBeNull();
    expect(documentOf({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } })).toBeNull();
  });

  it("stops at armor's token limit, so a huge document in a batched array is not parsed in full before armor runs", () => {
    const fields = (n: number) => Array.from({ length: n }, () => '__typename').join(' ');
    // `{`, `}` and the fields: maxTokens tokens in all parse, one more does not.
    expect(documentOf({ query: `{ ${fields(SHAPE_LIMITS.maxTokens - 2)} }` })).not.toBeNull();
    expect(documentOf({ query: `{ ${fields(SHAPE_LIMITS.maxTokens)} }` })).toBeNull();
  });
});

describe('needsApiKey', () => {
  it('is false only for operations asking introspection and the public figures', () => {
    expect(needsApiKey({ query: '{ __typename __schema { queryType { name } } }' })).toBe(false);
    expect(needsApiKey({ query: '{ serviceStatus { generatedAt } }' })).toBe(false);
    expect(
      needsApiKey({ query: 'query S { __typename ...F } fragment F on Query { serviceStatus { generatedAt } }' }),
    ).toBe(false);
    expect(needsApiKey({ query: '{ serviceStatus { generatedAt } property(zpid: "1") { data { zpid } } }' })).toBe(
      true,
    );
    expect(needsApiKey({ query: 'mutation { serviceStatus }' })).toBe(true);
    expect(needsApiKey({ query: '{ __typename account { used } }' })).toBe(true);
    expect(needsApiKey({ query: '{ __typename' })).toBe(true); // unreadable: the key is checked first, as on REST
    expect(needsApiKey({})).toBe(true);
  });
});

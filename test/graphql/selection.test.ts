// The one walk of what an operation selects (selection.ts), used both to count an operation's
// lookups before it runs and, in resolvers, to see whether data.raw is selected: both leave out
// what @skip/@include leave out. And the document a request runs is parsed once, shared by the
// checks that read it before Yoga and by Yoga itself (documents.ts).
import {
  getVariableValues,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type VariableValues,
} from 'graphql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccounts } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import type { Collected, Collector, ReadTarget } from '../../src/collector/types.js';
import { loadConfig } from '../../src/config.js';
import { documentCache, documentOf } from '../../src/graphql/documents.js';
import { schema } from '../../src/graphql/index.js';
import { countRequestLookups } from '../../src/graphql/lookup-count.js';
import { collectFields, selectsPath } from '../../src/graphql/selection.js';
import { MemoryStore } from '../../src/store/index.js';
import { everySection } from '../helpers/sections.js';

/** The operation's variables as the executor coerces them (what resolvers get as info.variableValues). */
function variablesOf(op: OperationDefinitionNode, raw: Record<string, unknown>): VariableValues {
  const result = getVariableValues(schema, op.variableDefinitions ?? [], raw);
  if (result.errors) throw result.errors[0];
  return result.variableValues;
}

/** The operation's root field `name` and what selectsPath reads from a resolver's info. */
function fieldInfo(query: string, name: string, raw: Record<string, unknown> = {}) {
  const document = parse(query);
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const variables = variablesOf(op, raw);
  const fragments = Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const fieldNodes = collectFields([op.selectionSet], { fragments, variables }).get(name) ?? [];
  return { fieldNodes, fragments, variableValues: variables };
}

describe('collectFields', () => {
  const query = `query($keep: Boolean!) {
    a: property(zpid: "1") @skip(if: true) { __typename }
    b: property(zpid: "2") @include(if: $keep) { __typename }
    ...F
    ... @skip(if: $keep) { c: property(zpid: "3") { __typename } }
    d: property(zpid: "4") { __typename }
  }
  fragment F on Query { d: property(zpid: "4") { __typename } e: account { used } }`;
  const keys = (raw: Record<string, unknown>) => {
    const document = parse(query);
    const op = document.definitions[0] as OperationDefinitionNode;
    const fragments = { F: document.definitions[1] as FragmentDefinitionNode };
    return [...collectFields([op.selectionSet], { fragments, variables: variablesOf(op, raw) })].map(
      ([key, nodes]) => `${key}×${nodes.length}`,
    );
  };

  it('leaves out what @skip/@include leave out, on fields and fragments, with the variables given', () => {
    expect(keys({ keep: true })).toEqual(['b×1', 'd×2', 'e×1']);
    expect(keys({ keep: false })).toEqual(['d×2', 'e×1', 'c×1']);
  });
});

describe('selectsPath (whether data.raw is built)', () => {
  it('follows fragments and inline fragments', () => {
    const q = `{ property(zpid: "1") { ... on PropertyLookup { ...D } } } fragment D on PropertyLookup { data { raw } }`;
    expect(selectsPath(fieldInfo(q, 'property'), ['data', 'raw'])).toBe(true);
    expect(
      selectsPath(fieldInfo('{ property(zpid: "1") { ... on PropertyLookup { data { zpid } } } }', 'property'), [
        'data',
        'raw',
      ]),
    ).toBe(false);
  });

  it('a raw left out by @skip or @include is not selected, so the raw record is not read', () => {
    const skipped =
      '{ property(zpid: "1", raw: true) { ... on PropertyLookup { data { zpid raw @skip(if: true) } } } }';
    expect(selectsPath(fieldInfo(skipped, 'property'), ['data', 'raw'])).toBe(false);
    const dataSkipped =
      '{ property(zpid: "1", raw: true) { ... on PropertyLookup { data @include(if: false) { raw } } } }';
    expect(selectsPath(fieldInfo(dataSkipped, 'property'), ['data', 'raw'])).toBe(false);
    const byVariable =
      'query($raw: Boolean!) { property(zpid: "1", raw: true) { ... on PropertyLookup { data { raw @include(if: $raw) } } } }';
    expect(selectsPath(fieldInfo(byVariable, 'property', { raw: true }), ['data', 'raw'])).toBe(true);
    expect(selectsPath(fieldInfo(byVariable, 'property', { raw: false }), ['data', 'raw'])).toBe(false);
  });
});

describe('a lookup left out by @skip, through Yoga', () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const reads: string[] = [];
  const collector: Collector = {
    resolveAddress: () => Promise.reject(new Error('no address in this test')),
    read: async (target: ReadTarget): Promise<Collected> => {
      reads.push(target.zpid!);
      const zpid = target.zpid!;
      return {
        property: { zpid, scrapedAt: '2026-01-01T00:00:00.000Z' } as Collected['property'],
        raw: { zpid },
        zpid,
        source: { provider: 'self_hosted', note: 'test' },
        sections: everySection('present'),
      };
    },
  };
  const store = new MemoryStore();
  const key = 'skip_key_0001';
  const app = buildApp({ config, store, collector, logger: pino({ level: 'silent' }) });
  const post = async (body: unknown) => {
    const r = await (await app).inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      payload: JSON.stringify(body),
    });
    return { status: r.statusCode, body: r.json() };
  };
  const used = async (): Promise<number> => (await post({ query: '{ account { used } }' })).body.data.account.used;
  beforeAll(() => seedAccounts(store, [{ key, plan: 'free', allotment: 100 }], config.apiKeySecret));
  afterAll(async () => (await app).close());

  it('is neither counted against the limit of 50 nor read nor charged; included, it is all three', async () => {
    const fields = Array.from(
      { length: 50 },
      (_, i) => `h${i}: property(zpid: "${100 + i}") { ... on PropertyLookup { meta { credits } } }`,
    ).join(' ');
    const query = `query($skip: Boolean!) { ${fields} extra: property(zpid: "999") @skip(if: $skip) { ... on PropertyLookup { meta { credits } } } }`;
    expect(countRequestLookups(schema, { query, variables: { skip: true } })).toBe(50);
    expect(countRequestLookups(schema, { query, variables: { skip: false } })).toBe(51);

    const ran = await post({ query, variables: { skip: true } });
    expect(ran.body.errors).toBeUndefined();
    expect(Object.keys(ran.body.data)).toHaveLength(50);
    expect(ran.body.data.extra).toBeUndefined();
    expect(Object.values(ran.body.data).every((h: any) => h.meta.credits === 1)).toBe(true);
    expect(reads).toHaveLength(50);
    expect(reads).not.toContain('999');
    expect(await used()).toBe(50);

    const refused = await post({ query, variables: { skip: false } });
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'too_many_items',
      details: { max: 50, received: 51 },
    });
    expect(reads).toHaveLength(50);
    expect(await used()).toBe(50);
  });

  it("parses a request's document once: the checks before Yoga and Yoga itself read one cache of parsed documents", async () => {
    // A text no other test sends: the cache is the process's, shared by the files a worker runs.
    const query = '{ parsedOnceByChecksAndYoga: account { used } }';
    const parsedByChecks = documentOf({ query });
    expect(documentCache.get(query)).toBe(parsedByChecks);
    // A document planted under the text shows which parse Yoga runs: the cached one, not its own.
    const planted = parse('{ planted: account { plan } }');
    documentCache.set(query, planted);
    try {
      expect(documentOf({ query })).toBe(planted);
      const r = await post([{ query }, { query }]);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([{ data: { planted: { plan: 'free' } } }, { data: { planted: { plan: 'free' } } }]);
    } finally {
      documentCache.delete(query);
    }
  });
});

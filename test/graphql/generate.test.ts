// npm run generate (scripts/generate.ts): schema.graphql printed from the code, then codegen from that
// printed schema; --check names every output that is stale or missing. Here the check is shown to
// answer both ways, on a copy of the outputs, and is run on the tree's own outputs: npm test's one
// schema-drift check (the outputs made once here, not again by a tsx process of their own).
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printSchemaSdl } from '../../src/graphql/index.js';
import { generatedOutputs, staleOutputs, writeOutputs, type Output } from '../../scripts/generate.js';

const copy = mkdtempSync(join(tmpdir(), 'generate-'));
let outputs: Output[];
beforeAll(async () => {
  outputs = await generatedOutputs();
}, 60_000);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const persisted = 'src/graphql/operations/generated/persisted-documents.json';

describe('npm run generate', () => {
  it('prints the schema first, then codegen from it: typed documents and the persisted documents the server serves', () => {
    expect(outputs.map((o) => o.path).sort()).toEqual([
      'schema.graphql',
      'src/graphql/operations/generated/gql.ts',
      'src/graphql/operations/generated/graphql.ts',
      'src/graphql/operations/generated/index.ts',
      persisted,
    ]);
    expect(outputs[0]).toEqual({ path: 'schema.graphql', content: printSchemaSdl() });
    const documents = JSON.parse(outputs.find((o) => o.path === persisted)!.content) as Record<string, string>;
    expect(Object.values(documents).some((text) => text.startsWith('query Account '))).toBe(true);
  });

  it('the outputs in the tree are current (else: run npm run generate)', async () => {
    expect(await staleOutputs(outputs)).toEqual([]);
  });

  it('--check finds nothing stale in a fresh copy, and names a changed or missing output', async () => {
    await writeOutputs(outputs, copy);
    expect(await staleOutputs(outputs, copy)).toEqual([]);
    const schemaFile = join(copy, 'schema.graphql');
    writeFileSync(schemaFile, readFileSync(schemaFile, 'utf8').replace('cacheKey: String!', 'cacheKey: String'));
    unlinkSync(join(copy, persisted));
    expect(await staleOutputs(outputs, copy)).toEqual(['schema.graphql', persisted]);
  });
});

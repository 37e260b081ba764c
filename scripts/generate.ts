// Everything generated from the code, in order: schema.graphql (the sorted SDL of the Pothos schema),
// then GraphQL Code Generator's output from it and the operations (codegen.ts). With --check,
// writes nothing and exits 1 naming each file that is stale or missing (npm test runs it).
// Usage: node --import tsx/esm scripts/generate.ts [--check]   (npm run generate)
// tsx's ESM loader only: its CommonJS loader would give codegen's CommonJS plugins a second copy of
// graphql 17 (they require index.mjs through tsx, not through Node's require of ES modules), and the
// schema built by one copy is then unknown to the other ("Unknown type ...").
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import codegenConfig from '../codegen.js';
import { printSchemaSdl } from '../src/graphql/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Output {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

/**
 * What the generators make from the code as it is, without writing anything: the schema first, and
 * codegen from that printed schema (not from the schema.graphql on disk, which may be stale).
 */
export async function generatedOutputs(root = ROOT): Promise<Output[]> {
  const sdl = printSchemaSdl();
  const files: Array<{ filename: string; content: string }> = await generate(
    { ...codegenConfig, schema: sdl, cwd: root },
    false,
  );
  return [
    { path: 'schema.graphql', content: sdl },
    ...files.map((f) => ({ path: relative(root, resolve(root, f.filename)), content: f.content })),
  ];
}

/** The outputs whose file under `root` is missing or differs. */
export async function staleOutputs(outputs: readonly Output[], root = ROOT): Promise<string[]> {
  const stale: string[] = [];
  for (const o of outputs) {
    const current = await readFile(join(root, o.path), 'utf8').catch(() => null);
    if (current !== o.content) stale.push(o.path);
  }
  return stale;
}

export async function writeOutputs(outputs: readonly Output[], root = ROOT): Promise<void> {
  for (const o of outputs) {
    await mkdir(dirname(join(root, o.path)), { recursive: true });
    await writeFile(join(root, o.path), o.content);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outputs = await generatedOutputs();
  if (process.argv.includes('--check')) {
    const stale = await staleOutputs(outputs);
    for (const path of stale) console.error(`${path} is stale: run npm run generate`);
    if (stale.length > 0) process.exit(1);
    console.log(`generated files are current (${outputs.length})`);
  } else {
    await writeOutputs(outputs);
    console.log(`wrote ${outputs.map((o) => o.path).join(', ')}`);
  }
}

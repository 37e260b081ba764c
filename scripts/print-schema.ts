// Writes schema.graphql: the SDL of the Pothos schema, sorted. With --check, writes nothing and
// exits 1 when schema.graphql differs from what the code prints (CI: the committed SDL is current).
// Usage: tsx scripts/print-schema.ts [--check] [--file <path>]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchemaSdl } from '../src/graphql/index.js';

// --file <path> checks or writes another file (tests use it); default: schema.graphql at the root.
const fileArg = process.argv.indexOf('--file');
const target = fileArg > 0 && process.argv[fileArg + 1] ? process.argv[fileArg + 1]! : fileURLToPath(new URL('../schema.graphql', import.meta.url));
const sdl = printSchemaSdl();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== sdl) {
    console.error('schema.graphql is stale: run npm run schema:print');
    process.exit(1);
  }
  console.log('schema.graphql is current');
} else {
  writeFileSync(target, sdl);
  console.log(`wrote ${target}`);
}

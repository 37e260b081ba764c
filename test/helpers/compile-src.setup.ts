// vitest globalSetup: compiles src/ once per run, so tests that start the service's own processes
// (`npm start`, the accounts CLI, the MCP server) run plain JavaScript instead of loading each module
// through tsx's loader in every process (about a second of start-up each, measured). The transform is
// the one tsx applies (esbuild, types stripped, no type check), made once, from the tree as it is when
// the run starts, into a directory of this run's own (others may be running vitest in this tree).
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** Root of this run's compiled copy: `<dir>/src/index.js` is `src/index.ts`. */
    compiledSrcDir: string;
  }
}

// Two levels below the root, as src/ is one: `new URL('../../fixtures/', import.meta.url)` in a
// module at src/<dir>/ must land on a fixtures/ here, which links to the real one.
const DIR = join(ROOT, '.tmp', `compiled-src-${process.pid}`);

// Every project of vitest.config.ts (and the root) runs this setup; one build serves the run.
const shared = globalThis as { compiledSrc?: { ready: Promise<void>; users: number } };

async function compile(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const files = readdirSync(join(ROOT, 'src'), { recursive: true }).map(String);
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !/\.(test|d)\.ts$/.test(f)).map((f) => join(ROOT, 'src', f)),
    outdir: join(dir, 'src'),
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Keeps `with { type: 'json' }` (Node 20 needs it for a JSON import).
    supported: { 'import-attributes': true },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // The tests' own worker modules (a page worker that holds reads at a gate), beside their test files:
  // `<dir>/test/<path>.js`, importing the compiled src/ above.
  const workers = readdirSync(join(ROOT, 'test'), { recursive: true }).map(String).filter((f) => /(^|\/)workers\/[^/]+\.ts$/.test(f));
  await build({
    entryPoints: workers.map((f) => join(ROOT, 'test', f)),
    outdir: join(dir, 'test'),
    outbase: join(ROOT, 'test'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts') && /\.\w+$/.test(f))) {
    mkdirSync(dirname(join(dir, 'src', f)), { recursive: true });
    cpSync(join(ROOT, 'src', f), join(dir, 'src', f));
  }
  symlinkSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!shared.compiledSrc) {
    const compiled = (shared.compiledSrc = { ready: compile(DIR), users: 0 });
    // A run stopped before its teardown leaves nothing behind either.
    process.once('exit', () => rmSync(DIR, { recursive: true, force: true }));
    // Watch mode: each rerun compiles the tree again, so no process runs code older than its rerun.
    project.onTestsRerun(async () => {
      compiled.ready = compile(DIR);
      await compiled.ready;
    });
  }
  shared.compiledSrc.users += 1;
  await shared.compiledSrc.ready;
  project.provide('compiledSrcDir', DIR);
  return async () => {
    if (--shared.compiledSrc!.users === 0) rmSync(DIR, { recursive: true, force: true });
  };
}

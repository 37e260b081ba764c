// vitest globalSetup: compiles src/ once per run, so tests that start the service's own processes
// (`npm start`, the accounts CLI, the MCP server) run plain JavaScript instead of loading each module
// through tsx's loader in every process (about a second of start-up each, measured). The transform is
// the one tsx applies (esbuild, types stripped, no type check), made once, from the tree as it is when
// the run starts, into a directory of this run's own (others may be running vitest in this tree).
// The entry points a test starts as a process are also bundled, each into one file with its packages
// (`<dir>/bundle/index.js`): Node then reads a few files instead of resolving and loading some 1,200
// modules, and a service process starts on about 1.5 s of CPU instead of 3.5 s (measured to "listening").
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** Root of this run's compiled copy: `<dir>/src/index.js` is `src/index.ts`. */
    compiledSrcDir: string;
  }
}

// Two levels below the root, as src/ is one: `new URL('../../fixtures/', import.meta.url)` in a
// module at src/<dir>/ must land on a fixtures/ here, which links to the real one (and
// `new URL('../package.json', …)` in src/version.ts on a package.json, a link too).
const DIR = join(ROOT, '.tmp', `compiled-src-${process.pid}`);

// Every project of vitest.config.ts (and the root) runs this setup; one build serves the run.
const shared = globalThis as { compiledSrc?: { ready: Promise<void>; users: number } };

/** The entry points tests start as processes (test/helpers/compiled-src.ts `entryArgs`), bundled. */
const BUNDLED_ENTRIES = ['index.ts', 'demo.ts', 'worker.ts', 'mcp/stdio.ts', 'accounts-cli.ts'];

/**
 * In the bundle every module of src/ keeps its unbundled `import.meta.url`, its compiled copy's (the
 * page worker beside it, fixtures/, packages resolved from there).
 */
const ownImportMetaUrl = (dir: string): Plugin => ({
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const url = pathToFileURL(join(dir, relative(ROOT, args.path).replace(/\.ts$/, '.js'))).href;
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(url)), loader: 'ts' };
    });
  },
});

/**
 * A CommonJS package keeps its own `__dirname` and `__filename` in the bundle (piscina's, pino's and
 * thread-stream's worker files, ioredis's package.json, msgpackr's native addon): each module that uses
 * them gets them declared at the top of the function esbuild wraps it in, `"<path>"(exports, module) {`.
 * Done on the output (one pass) rather than in an onLoad hook, which read every package file through
 * JavaScript (some 2 s of the run's start).
 */
function ownDirname(text: string, wrapped: Set<string>, found: Set<string>): string {
  return text.replace(
    /^( *)("[^"\n]*node_modules\/[^"\n]*")\((?:exports(?:, module)?)?\) \{$/gm,
    (line: string, _indent: string, key: string) => {
      const path = JSON.parse(key) as string;
      if (!wrapped.has(path)) return line;
      found.add(path);
      const file = join(ROOT, path);
      return `${line} var __filename = ${JSON.stringify(file)}, __dirname = ${JSON.stringify(dirname(file))};`;
    },
  );
}

async function bundle(dir: string, files: string[]): Promise<void> {
  const result = await build({
    entryPoints: BUNDLED_ENTRIES.filter((e) => files.includes(e)).map((e) => ({
      in: join(ROOT, 'src', e),
      out: e.replace(/\.ts$/, ''),
    })),
    outdir: join(dir, 'bundle'),
    // Paths in the output (and the metafile) relative to the root.
    absWorkingDir: ROOT,
    bundle: true,
    // The entries share their modules' code in common chunks (one copy on disk, not five).
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    supported: { 'import-attributes': true },
    // `require` for the CommonJS packages inside the bundle and the modules they load at run time.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    // Stacks name bundle lines; `node --enable-source-maps` maps them back to src/.
    sourcemap: 'linked',
    logLevel: 'warning',
    metafile: true,
    // A native addon (the site client's impit) is loaded from node_modules at run time, not bundled.
    external: ['impit'],
    plugins: [ownImportMetaUrl(dir)],
  });
  const wrapped = new Set(
    Object.entries(result.metafile.inputs)
      .filter(([path, input]) => input.format === 'cjs' && path.includes('node_modules/'))
      .map(([path]) => path)
      .filter((path) => /\b__(dirname|filename)\b/.test(readFileSync(join(ROOT, path), 'utf8'))),
  );
  const found = new Set<string>();
  for (const [out, { inputs }] of Object.entries(result.metafile.outputs)) {
    if (!Object.keys(inputs).some((path) => wrapped.has(path))) continue;
    const file = join(ROOT, out);
    writeFileSync(file, ownDirname(readFileSync(file, 'utf8'), wrapped, found));
  }
  const missed = [...wrapped].filter((p) => !found.has(p));
  if (missed.length > 0)
    throw new Error(`bundle: no CommonJS wrapper found for ${missed.join(', ')} (esbuild's output changed?)`);
}

async function compile(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const files = readdirSync(join(ROOT, 'src'), { recursive: true }).map(String);
  const bundled = bundle(dir, files);
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !/\.(test|d)\.ts$/.test(f)).map((f) => join(ROOT, 'src', f)),
    outdir: join(dir, 'src'),
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node24',
    // Keeps `with { type: 'json' }` (Node needs it for a JSON import).
    supported: { 'import-attributes': true },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // The tests' own worker modules (a page worker that holds reads at a gate), beside their test files:
  // `<dir>/test/<path>.js`, importing the compiled src/ above.
  const workers = readdirSync(join(ROOT, 'test'), { recursive: true })
    .map(String)
    .filter((f) => /(^|\/)workers\/[^/]+\.ts$/.test(f));
  await build({
    entryPoints: workers.map((f) => join(ROOT, 'test', f)),
    outdir: join(dir, 'test'),
    outbase: join(ROOT, 'test'),
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts') && /\.\w+$/.test(f))) {
    mkdirSync(dirname(join(dir, 'src', f)), { recursive: true });
    cpSync(join(ROOT, 'src', f), join(dir, 'src', f));
  }
  symlinkSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'));
  // src/version.ts reads the release from the package.json above it (as dist/ does in the image).
  symlinkSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  await bundled;
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

// The service's entry points and modules as this run compiled them, for processes and worker threads:
// this run's compiled copy of src/ (test/helpers/compile-src.setup.ts, vitest's globalSetup),
// `<dir>/src/index.js` for `src/index.ts`. Without it (the soak script run with tsx, a vitest config
// without that setup): the source itself, through tsx.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** This run's compiled copy, if this is a vitest run that made one. */
const compiledDir = (): string | undefined => (process.env.VITEST ? inject('compiledSrcDir') : undefined);

/** Node arguments running `src/<entry>`, e.g. `entryArgs('index.ts')`. */
export function entryArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) throw new Error(`an entry under src/ ending in .ts, not ${entry}`);
  const dir = compiledDir();
  return dir ? [join(dir, 'src', entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(ROOT, 'src', entry)];
}

/** The module of `src/<entry>` for a worker thread: compiled, or the .ts file (PagePool then loads it through tsx). */
export function compiledModule(entry: string): URL {
  const dir = compiledDir();
  return pathToFileURL(dir ? join(dir, 'src', entry.replace(/\.ts$/, '.js')) : join(ROOT, 'src', entry));
}

/**
 * A worker module of the tests' own, `test/<path>` (e.g. `compiledTestModule('collector/workers/gated-page-worker.ts')`):
 * compiled beside src/ (its imports of src/ are the compiled modules), or the .ts file (loaded through tsx).
 */
export function compiledTestModule(path: string): URL {
  const dir = compiledDir();
  return pathToFileURL(dir ? join(dir, 'test', path.replace(/\.ts$/, '.js')) : join(ROOT, 'test', path));
}

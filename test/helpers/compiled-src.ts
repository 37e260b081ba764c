// The service's entry points and modules as this run compiled them, for processes and worker threads:
// this run's compiled copy of src/ (test/helpers/compile-src.setup.ts, vitest's globalSetup),
// `<dir>/src/index.js` for `src/index.ts`, a process's entry bundled (`<dir>/bundle/index.js`). Without
// it (the soak script run with tsx, a vitest config without that setup): the source itself, through tsx.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** This run's compiled copy, if this is a vitest run that made one. */
const compiledDir = (): string | undefined => (process.env.VITEST ? inject('compiledSrcDir') : undefined);

/**
 * Node arguments running `src/<entry>`, e.g. `entryArgs('index.ts')`: its bundle when it is one of the
 * setup's BUNDLED_ENTRIES (`<dir>/bundle/index.js`), else its compiled module.
 */
export function entryArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) throw new Error(`an entry under src/ ending in .ts, not ${entry}`);
  const dir = compiledDir();
  if (!dir) return ['--import', 'tsx', join(ROOT, 'src', entry)];
  const js = entry.replace(/\.ts$/, '.js');
  const bundled = join(dir, 'bundle', js);
  return [existsSync(bundled) ? bundled : join(dir, 'src', js)];
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

// The service's entry points and modules as this run compiled them, for processes and worker threads.
// Under vitest: this run's compiled copy of src/ (test/helpers/compile-src.setup.ts), `<dir>/src/index.js` for
// `src/index.ts`. Outside it (the soak script run with tsx): the source through tsx.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inject } from 'vitest';

/** Node arguments running `src/<entry>`, e.g. `entryArgs('index.ts')`. */
export function entryArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) throw new Error(`an entry under src/ ending in .ts, not ${entry}`);
  if (!process.env.VITEST) return ['--import', 'tsx', join('src', entry)];
  return [join(inject('compiledSrcDir'), 'src', entry.replace(/\.ts$/, '.js'))];
}

/** This run's compiled module of `src/<entry>` (under vitest only), e.g. a worker thread's file. */
export function compiledModule(entry: string): URL {
  if (!process.env.VITEST) throw new Error('the compiled copy of src/ exists under vitest only');
  return pathToFileURL(entryArgs(entry)[0]!);
}

// The arguments to `node` that run one of the service's entry points as a process. Under vitest: this
// run's compiled copy of src/ (test/helpers/compile-src.setup.ts), `<dir>/src/index.js` for
// `src/index.ts`. Outside it (the soak script run with tsx): the source through tsx.
import { join } from 'node:path';
import { inject } from 'vitest';

/** Node arguments running `src/<entry>`, e.g. `entryArgs('index.ts')`. */
export function entryArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) throw new Error(`an entry under src/ ending in .ts, not ${entry}`);
  if (!process.env.VITEST) return ['--import', 'tsx', join('src', entry)];
  return [join(inject('compiledSrcDir'), 'src', entry.replace(/\.ts$/, '.js'))];
}

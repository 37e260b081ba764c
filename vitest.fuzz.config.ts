// `npm run test:fuzz`: only the fuzz properties of test/fuzz, with FUZZ_RUNS cases each (the script
// sets 10,000), in a process that can run the garbage collector, so the memory check compares heaps.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['test/fuzz/**/*.test.ts'],
    // The test services' page readers run src/ as compiled once per run (test/helpers/compile-src.setup.ts).
    globalSetup: base.test?.globalSetup,
    execArgv: ['--expose-gc'],
    testTimeout: 30 * 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

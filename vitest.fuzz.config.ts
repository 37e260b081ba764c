// `npm run test:fuzz`: the fuzz properties of test/fuzz with FUZZ_RUNS cases each (the script sets
// 10,000), in a process that can run the garbage collector, so the memory check compares heaps.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['test/fuzz/**/*.test.ts'],
      execArgv: ['--expose-gc'],
      testTimeout: 30 * 60_000,
    },
  }),
);

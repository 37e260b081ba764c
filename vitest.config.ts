import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql for app, Pothos and Yoga (vitest would otherwise load both the ESM and CJS builds).
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Files that run in a process of their own: those that stop, kill, freeze or restart a Redis server
 * under this process's own Redis clients (a client left reconnecting would outlive its file): the Redis
 * store's, the outage, restarted-empty and start-before-Redis tests; the event-loop lag test (it measures
 * this process's loop); browsers.
 */
const OWN_PROCESS = [
  'test/e2e/event-loop-lag.test.ts', 'test/store/redis*.test.ts',
  'test/e2e/redis-outage.test.ts', 'test/e2e/store-reset.test.ts', 'test/e2e/startup.test.ts',
  'test/browser/**/*.test.ts', '**/*.browser.test.ts',
];

export default defineConfig({
  // One copy of graphql for app, Pothos and Yoga (vitest would otherwise load both the ESM and CJS builds).
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // src/ compiled once per run for the tests that start its entry points as processes.
    globalSetup: ['test/helpers/compile-src.setup.ts'],
    pool: 'forks',
    // Two files at a time: vitest's default for a run is one worker per CPU but one (a single worker
    // on a 2-core machine). Measured on test/rest + test/graphql: 1 worker 52 s, 2 → 33 s, 3 → 33 s.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...OWN_PROCESS],
          // A worker process loads the app's modules once for all its files instead of once per file
          // (about 3 s of import each otherwise). Safe for these files: none mocks a module or leaves a
          // global changed (fake timers are restored, services and servers closed per file).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: OWN_PROCESS,
          // A Redis client or child process a file leaves behind cannot outlive its file here.
          isolate: true,
        },
      },
    ],
  },
});

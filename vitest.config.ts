import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run in a process of their own: those that stop, kill, freeze or restart a Redis server
 * under this process's own Redis clients (a client left reconnecting would outlive its file): the Redis
 * store's, the outage, restarted-empty and start-before-Redis tests; the event-loop lag test (it measures
 * this process's loop). The others (the browser's too: Chromium is a child closed by its file) share a
 * worker's loaded modules, about 3 s of import saved per file.
 */
const OWN_PROCESS = [
  'test/e2e/event-loop-lag.test.ts',
  'test/store/redis.test.ts',
  'test/store/redis-outage.test.ts',
  'test/e2e/redis-outage.test.ts',
  'test/e2e/store-reset.test.ts',
  'test/e2e/startup.test.ts',
  'test/e2e/store-outage-routes.test.ts',
];

/**
 * The own-process files, then the shared ones, each longest first, by the last run's durations where
 * vitest has them (its own cache), else by the file's size (a fresh checkout, CI: long tests are long
 * files, near enough, and nothing to keep by hand): the workers then end together on short shared files instead
 * of one finishing a long file alone. The two kinds are not mixed: a worker that ends a shared file while
 * the next file in the queue is an isolated one is stopped, not kept (vitest's pool), so mixing them made
 * 13 workers per run, each importing the app again (about 5 s of CPU each). Own-process files first, not
 * last: last, they made a tail of about 10 s in which each of them paid its own start-up.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification): number => {
      const last = this.ctx.cache.getTestSpecificationResult(f);
      // About a second per 4 KB of test, for files vitest has not timed yet.
      return last ? last.duration / 1000 : statSync(f.moduleId).size / 4096;
    };
    const known = new Map(files.map((f) => [f, seconds(f)]));
    const isolated = (f: TestSpecification): number => (f.project.config.isolate ? 1 : 0);
    return [...files].sort((a, b) => isolated(b) - isolated(a) || known.get(b)! - known.get(a)!);
  }
}

export default defineConfig({
  // One copy of graphql for app, Pothos and Yoga: the file Node itself loads for `graphql` (graphql 17's
  // index.mjs, for import and require alike). Vite would otherwise resolve the app's and the tests' imports
  // with its own conditions (graphql 17's development build), a second copy whose types the schema
  // refuses ("from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: fileURLToPath(import.meta.resolve('graphql')) }] },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    // src/ compiled once per run for the tests that start its entry points as processes.
    globalSetup: ['test/helpers/compile-src.setup.ts', 'test/helpers/test-ca.setup.ts'],
    pool: 'forks',
    // Four files at a time on this 2-core machine: many files spend their time waiting on processes,
    // Redis servers, clusters and timers, so two workers left the CPU idle about half the run.
    // Measured on the whole suite (quiet machine): 2 workers 86 s, 3 → 66 s, 4 → 59 s.
    maxWorkers: 4,
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

// Work that outlives a request: lookup jobs, webhook deliveries and watch checks. Made once per core
// (createCore); its workers run inside the service (WORK_IN_SERVICE) and in `npm run worker` processes.
// On Redis every part runs on BullMQ (src/queue/bull.ts), so any number of processes share the work;
// without Redis it runs in this process only (lost on restart, as docs/jobs.md and docs/watches-and-webhooks.md say).
import type { Background } from './background-types.js';
import { createJobs } from './jobs/index.js';
import type { CoreDeps } from './lookup/types.js';
import { createWatches } from './watches/index.js';
import { createWebhooks } from './webhooks/index.js';

export type { Background } from './background-types.js';

/** `core` is the whole core (jobs make request contexts from it); nothing here reads core.background. */
export function createBackground(core: CoreDeps): Background {
  const webhooks = createWebhooks(core);
  const jobs = createJobs(core, webhooks);
  const watches = createWatches(core, webhooks);
  return {
    jobs,
    watches,
    webhooks,
    async startWorkers() {
      await Promise.all([webhooks.startWorker(), jobs.startWorker(), watches.startWorker()]);
    },
    async close() {
      await Promise.all([jobs.close(), watches.close()]);
      await webhooks.close();
    },
  };
}

// Work that outlives a request: lookup jobs, webhook deliveries and watch checks. Made once per core
// (createCore); its workers run inside the service (WORK_IN_SERVICE) and in `npm run worker` processes.
// On Redis every part runs on BullMQ (src/queue/bull.ts), so any number of processes share the work;
// without Redis it runs in this process only (lost on restart, as the README says).
import { createJobs } from './jobs/index.js';
import type { Jobs } from './jobs/types.js';
import type { CoreDeps } from './lookup/types.js';
import { createWatches } from './watches/index.js';
import type { Watches } from './watches/types.js';
import { createWebhooks } from './webhooks/index.js';
import type { Webhooks } from './webhooks/types.js';

export interface Background {
  jobs: Jobs;
  watches: Watches;
  webhooks: Webhooks;
  /** Starts every worker in this process. */
  startWorkers(): Promise<void>;
  /** Stops the workers (work under way is left to be taken over) and closes the queues' connections. */
  close(): Promise<void>;
}

export function createBackground(core: Omit<CoreDeps, 'background'>): Background {
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

// Work that outlives a request: lookup jobs, webhook deliveries and watch checks. Made beside the core
// (by the app, the worker) and handed to the faces next to it; its parts are made on first use, so a
// process whose requests never touch them opens no queue connection. Its workers run inside the service
// (WORK_IN_SERVICE) and in `npm run worker` processes. On Redis every part runs on BullMQ
// (src/queue/bull.ts), so any number of processes share the work; without Redis it runs in this process
// only (lost on restart, docs/jobs.md).
import { backendFor } from './backend.js';
import { createJobs } from './jobs/index.js';
import type { Jobs } from './jobs/types.js';
import type { CoreDeps } from './lookup/types.js';
import { createWatches } from './watches/index.js';
import type { Watches } from './watches/types.js';
import { createWebhooks } from './webhooks/index.js';
import { watchUsageAlerts } from './webhooks/usage-alerts.js';
import type { WebhookDeliveries, Webhooks } from './webhooks/types.js';

export interface Background {
  readonly jobs: Jobs;
  readonly watches: Watches;
  /** Deliveries, and what the account sees of them (its attempt log, redelivery). */
  readonly webhooks: Webhooks & WebhookDeliveries;
  /** Starts every worker in this process. */
  startWorkers(): Promise<void>;
  /** Stops the workers (work under way is left to be taken over) and closes the queues' connections, if made. */
  close(): Promise<void>;
}

/** `core` is the whole core (jobs and watch checks make request contexts from it). */
export function createBackground(core: CoreDeps): Background {
  let parts: { jobs: Jobs; watches: Watches; webhooks: Webhooks & WebhookDeliveries } | null = null;
  const made = () => {
    if (!parts) {
      const backend = backendFor(core.config);
      const webhooks = createWebhooks(core, backend.webhookRunner(core, core.logger.child({ component: 'webhooks' })));
      parts = {
        webhooks,
        jobs: createJobs(
          core,
          webhooks,
          backend.jobs(core.logger.child({ component: 'jobs' }), () => core.clock().getTime()),
        ),
        watches: createWatches(core, webhooks, backend.watches(core.logger, core.newId)),
      };
    }
    return parts;
  };
  // Usage alerts are sent by whichever process charged: made at once, the webhooks only when one is sent.
  const stopAlerts = core.charges ? watchUsageAlerts(core.charges, core, () => made().webhooks) : () => undefined;
  return {
    get jobs() {
      return made().jobs;
    },
    get watches() {
      return made().watches;
    },
    get webhooks() {
      return made().webhooks;
    },
    async startWorkers() {
      const { webhooks, jobs, watches } = made();
      await Promise.all([webhooks.startWorker(), jobs.startWorker(), watches.startWorker()]);
    },
    async close() {
      stopAlerts();
      if (!parts) return;
      await Promise.all([parts.jobs.close(), parts.watches.close()]);
      await parts.webhooks.close();
    },
  };
}

// What the core holds of background work (CoreDeps.background), apart from its making (background.ts),
// so the core's types can name it without an import circle.
import type { Jobs } from './jobs/types.js';
import type { Watches } from './watches/types.js';
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

import type { CoreDeps } from '../lookup/types.js';
import type { Webhooks } from '../webhooks/types.js';
import type { Jobs } from './types.js';

export * from './types.js';

export function createJobs(_core: CoreDeps, _webhooks: Webhooks): Jobs {
  throw new Error('TEMPORARY: jobs are being built (issue 11)');
}

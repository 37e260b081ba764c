import type { CoreDeps } from '../lookup/types.js';
import type { Webhooks } from '../webhooks/types.js';
import type { Watches } from './types.js';

export * from './types.js';

export function createWatches(_core: Omit<CoreDeps, 'background'>, _webhooks: Webhooks): Watches {
  throw new Error('TEMPORARY: watches are being built (issue 11)');
}

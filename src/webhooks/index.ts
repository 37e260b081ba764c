import type { CoreDeps } from '../lookup/types.js';
import type { Webhooks } from './types.js';

export type { Webhooks, WebhookEvent, WebhookEventType } from './types.js';

export function createWebhooks(_core: Omit<CoreDeps, 'background'>): Webhooks {
  throw new Error('TEMPORARY: webhooks are being built (issue 11)');
}

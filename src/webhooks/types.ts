// What the rest of the service sees of webhooks: events to deliver to an account's URL, signed per the
// Standard Webhooks specification with the account's signing secret, delivered at least once.
import type { WebhookDeliveryShape } from '../contract/webhook-deliveries.js';
import type { Account } from '../store/index.js';

export type WebhookEventType = 'job.completed' | 'job.failed' | 'property.changed' | 'account.usage_threshold';

/** Delivery attempts in all: the first and 10 retries, WEBHOOK_RETRY_BASE_MS doubling (about a day by default). */
export const WEBHOOK_ATTEMPTS = 11;

export interface WebhookEvent {
  type: WebhookEventType;
  /**
   * The event's own stable id (e.g. the job's id): the webhook-id is derived from it, so sending the
   * same event again is not a second delivery. Without it every send is a new delivery.
   */
  id?: string;
  /** The event's payload (`data` of the delivered body). */
  data: unknown;
}

export interface Webhooks {
  /**
   * A webhook URL as given by a client, checked: http(s), and (unless WEBHOOK_ALLOW_PRIVATE) a host that
   * resolves only to public addresses. Returns the URL normalised; throws LookupError bad_param
   * (`details.param` is `param`, `details.reason` says why).
   */
  checkUrl(raw: unknown, param: string): Promise<string>;
  /**
   * Queues `event` for delivery to `url`, signed with the account's secret; resolves once it is queued
   * durably (on Redis: in BullMQ), with the `webhook-id` every attempt carries.
   */
  send(account: Pick<Account, 'id'>, url: string, event: WebhookEvent): Promise<string>;
  /**
   * On Redis, starts delivering in this process (the service with WORK_IN_SERVICE, and `npm run worker`).
   * Without Redis deliveries run in this process from the start; this does nothing.
   */
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

/** What the account sees of its deliveries (the faces): the attempt log and redelivery. */
export interface WebhookDeliveries {
  /**
   * The account's delivery attempts of the last week, newest first: `limit` after `cursor` (an attempt id
   * from an earlier page, checked by the face; null: from the newest). next_cursor null: no more.
   */
  deliveries(
    account: Pick<Account, 'id'>,
    page: { limit: number; cursor: string | null },
  ): Promise<{ deliveries: WebhookDeliveryShape[]; next_cursor: string | null }>;
  /**
   * Sends the event of one of the account's attempts again, now: the same webhook-id and body to the same
   * URL, one attempt (recorded as a redelivery). Resolves with that attempt once the redelivery is queued;
   * LookupError not_found ("No such delivery.") when it is not the account's, unknown or no longer kept.
   */
  redeliver(account: Pick<Account, 'id'>, id: string): Promise<WebhookDeliveryShape>;
}

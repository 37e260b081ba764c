// Webhook deliveries in the contract (docs/watches-and-webhooks.md): one delivery attempt as the account
// sees it (REST data of GET /v1/webhooks/deliveries, GraphQL WebhookDelivery in camelCase), the page of
// them, their limits and the cursor's check, declared once as TypeBox schemas for OpenAPI, GraphQL and the
// clients. The attempts are recorded by the delivery runner (src/webhooks).
import { Type, type Static } from '@sinclair/typebox';
import { LookupError } from './errors.js';

/** How long an attempt is kept: a week. */
export const WEBHOOK_DELIVERIES_KEEP_MS = 7 * 24 * 3600_000;
export const WEBHOOK_DELIVERIES_KEEP_DAYS = WEBHOOK_DELIVERIES_KEEP_MS / (24 * 3600_000);
/** Attempts kept per account at most (the oldest go first). */
export const WEBHOOK_DELIVERIES_KEPT = 1_000;
/** Attempts per page of GET /v1/webhooks/deliveries (and GraphQL's webhookDeliveries): at most, and when not given. */
export const MAX_DELIVERIES_PAGE = 100;
export const DEFAULT_DELIVERIES_PAGE = 20;

/** A delivery attempt's id: `dlv_<ms>-<seq>`, ordered by when it was recorded. */
const DELIVERY_ID = /^dlv_\d{1,16}-\d{1,19}$/;
export const isDeliveryId = (id: string): boolean => DELIVERY_ID.test(id);

const nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

/** One delivery attempt (REST data of GET /v1/webhooks/deliveries; GraphQL WebhookDelivery in camelCase). */
export const WebhookDeliveryView = Type.Object(
  {
    id: Type.String({
      description: 'The attempt id (`POST /v1/webhooks/deliveries/<id>/redeliver` sends its event again)',
      examples: ['dlv_1791633600000-0'],
    }),
    webhook_id: Type.String({
      description: "The event's webhook-id header: the same on every attempt and every redelivery of one event",
    }),
    type: Type.String({ description: 'The event type: job.completed, job.failed or property.changed' }),
    url: Type.String({ description: 'Where it was sent' }),
    attempt: Type.Integer({
      minimum: 1,
      description: "The attempt's number for this event, from 1 (a redelivery is its own attempt 1)",
    }),
    redelivery: Type.Boolean({ description: 'True when the attempt was asked for by a redeliver request' }),
    ok: Type.Boolean({ description: 'True when the receiver answered 2xx (delivered)' }),
    status: nullable(Type.Integer(), "The receiver's HTTP status; null when no answer came (see error)"),
    error: nullable(
      Type.String(),
      'Why the attempt failed: the network error (ECONNREFUSED, a time limit, a refused URL) or `answered <status>`; null when delivered',
    ),
    duration_ms: Type.Integer({ minimum: 0, description: 'Milliseconds the attempt took' }),
    next_retry_at: nullable(
      Type.String({ format: 'date-time' }),
      'When the next attempt is due after this failed one; null when delivered, or when no attempt is left',
    ),
    at: Type.String({ format: 'date-time', description: 'When the attempt ended' }),
  },
  {
    $id: 'WebhookDelivery',
    description: `One webhook delivery attempt. Kept ${WEBHOOK_DELIVERIES_KEEP_DAYS} days (at most ${WEBHOOK_DELIVERIES_KEPT.toLocaleString('en-US')} per account, the oldest go first).`,
  },
);
export type WebhookDeliveryShape = Static<typeof WebhookDeliveryView>;

const tookMs = Type.Integer({ description: 'Milliseconds taken' });

export const WebhookDeliveryListResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(WebhookDeliveryView), { description: "The account's delivery attempts, newest first" }),
    meta: Type.Object({
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as cursor for the next (older) page; null: no more',
      }),
      took_ms: tookMs,
    }),
  },
  { $id: 'WebhookDeliveryListResponse' },
);

export const WebhookDeliveryResponse = Type.Object(
  { data: Type.Ref(WebhookDeliveryView), meta: Type.Object({ took_ms: tookMs }) },
  { $id: 'WebhookDeliveryResponse' },
);

export const WEBHOOK_DELIVERY_SCHEMAS = [
  WebhookDeliveryView,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
] as const;

const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** A page's cursor as sent (REST cursor, GraphQL after): null for the first page; bad_param when it is none of ours. */
export function deliveryCursor(cursor: string | null | undefined, param: string): string | null {
  if (cursor === undefined || cursor === null) return null;
  if (!isDeliveryId(cursor)) throw bad(param, 'must be the cursor of an earlier page');
  return cursor;
}

/**
 * A page size as sent (REST limit as text, GraphQL first and an MCP limit as a number; anything else is
 * refused): a whole number from 1 to MAX_DELIVERIES_PAGE.
 */
export function deliveryPageSize(value: unknown, param: string): number {
  if (value === undefined || value === null) return DEFAULT_DELIVERIES_PAGE;
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_DELIVERIES_PAGE)
    throw bad(param, `must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}`);
  return n;
}

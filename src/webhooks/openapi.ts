// The OpenAPI 3.1 `webhooks` object: the requests the service sends to a job's or watch's webhook_url, or to
// an account's usage alert URL,
// one per event type, with the Standard Webhooks headers. buildOpenApi (src/rest/openapi.ts) includes it;
// the payloads refer to the document's own component schemas (JobView, PortalProperty).
import { WATCHED_FIELDS } from '../contract/watches.js';
import { WEBHOOK_ATTEMPTS, type WebhookEventType } from './types.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

const HEADERS: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'msg_…: the same on every attempt of one event. Deliveries come at least once: dedupe on it.',
    schema: { type: 'string', pattern: '^msg_' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: "The attempt's time, unix seconds. Refuse one over 5 minutes from your clock.",
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the base64-decoded part of the account\'s secret after whsec_ ' +
      '(npm run accounts -- create / rotate-webhook-secret). For 24 h after a rotation a second `v1,…` signature, with the previous secret, ' +
      'follows after a space: accept the delivery when any one verifies. Verify with a Standard Webhooks library.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

function envelope(type: WebhookEventType, data: Json, description: string): Json {
  return {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', const: type },
      timestamp: {
        type: 'string',
        format: 'date-time',
        description: 'When the event happened (the same on every attempt)',
      },
      data: { ...(data as Record<string, Json>), description },
    },
  };
}

const PROPERTY_CHANGED: Json = {
  type: 'object',
  required: ['zpid', 'changes', 'data'],
  properties: {
    zpid: { type: 'string' },
    changes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['field', 'from', 'to'],
        properties: { field: { type: 'string', enum: [...WATCHED_FIELDS] }, from: {}, to: {} },
      },
    },
    data: ref('PortalProperty'),
  },
};

const USAGE_THRESHOLD: Json = {
  type: 'object',
  required: ['account_id', 'period', 'threshold_percent', 'basis', 'limit', 'used', 'overage_used', 'period_end'],
  properties: {
    account_id: { type: 'string' },
    period: {
      type: 'string',
      description: 'The usage period: YYYY-MM (paid plans, UTC calendar month) or lifetime (free plan)',
    },
    threshold_percent: { type: 'integer', description: 'The threshold reached, a percent of `limit`' },
    basis: {
      type: 'string',
      enum: ['allotment', 'included', 'spend_limit'],
      description:
        "What `limit` is: the free plan's allotment, the included lookups, or the included lookups plus the overage the spend limit pays for",
    },
    limit: { type: 'integer', description: 'The lookups the percent is of' },
    used: { type: 'integer', description: 'Lookups charged in the period when the threshold was reached' },
    overage_used: { type: 'integer', description: 'Of those, the lookups billed past the included ones' },
    period_end: { type: ['string', 'null'], format: 'date-time', description: 'End of the period; null: free plan' },
  },
};

function event(type: WebhookEventType, summary: string, data: Json, dataDescription: string): Json {
  return {
    post: {
      operationId: `webhook_${type.replace('.', '_')}`,
      summary,
      description:
        'Sent to the webhook_url given, signed per Standard Webhooks (https://www.standardwebhooks.com). A 2xx answer within WEBHOOK_TIMEOUT_MS ' +
        `is delivered; anything else (redirects are not followed) is retried with doubling delays, ${WEBHOOK_ATTEMPTS} attempts over about a day.`,
      security: [],
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: envelope(type, data, dataDescription) } },
      },
      responses: {
        '2XX': { description: 'Delivered: no more attempts' },
        default: { description: 'Not delivered: retried later' },
      },
    },
  };
}

export function webhooksOpenApi(): Record<string, Json> {
  return {
    'job.completed': event(
      'job.completed',
      'A lookup job finished (or was cancelled and its running chunks settled)',
      ref('JobView'),
      'The job, as GET /v1/portal/jobs/{id} shows it',
    ),
    'job.failed': event(
      'job.failed',
      'A lookup job could not run',
      ref('JobView'),
      'The job, as GET /v1/portal/jobs/{id} shows it',
    ),
    'property.changed': event(
      'property.changed',
      "A watched home's price, status, estimate, rent estimate or HOA changed",
      PROPERTY_CHANGED,
      'The home and what changed since the last check',
    ),
    'account.usage_threshold': event(
      'account.usage_threshold',
      "The account's lookups reached a usage alert's threshold (once per threshold and period)",
      USAGE_THRESHOLD,
      'The account, the threshold reached and its usage then (npm run accounts -- set-usage-alert)',
    ),
  };
}

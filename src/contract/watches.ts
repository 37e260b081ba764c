// Watched homes in the contract: the body of POST /v1/portal/watches (GraphQL: watchProperty's
// arguments) and a watch as answered (REST data, GraphQL Watch), declared once as TypeBox schemas
// for OpenAPI and GraphQL, and the body's parser both faces call. The limits that need the service's
// configuration (the shortest interval) and the webhook URL's check are the core's (src/watches).
import { Type, type Static } from '@sinclair/typebox';
import { LookupError } from './errors.js';
import { LOCATOR_FIELDS, LOCATOR_KEYS } from './inputs.js';
import { parseLocator, type Locator } from './validate.js';

/** The fields a watch compares between two checks (PortalProperty names). */
export const WATCHED_FIELDS = ['price', 'homeStatus', 'estimate', 'rentEstimate', 'monthlyHoaFee'] as const;

/** The longest interval a watch may ask for: 30 days. */
export const WATCH_MAX_INTERVAL_HOURS = 720;
/** Watches one account may have at once (more: 400 too_many_items, delete one first). */
export const MAX_WATCHES_PER_ACCOUNT = 1_000;

const nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

/** The body of POST /v1/portal/watches (one locator, webhook_url, interval_hours). */
export const WatchRequestBody = Type.Object(
  {
    url: Type.Optional(LOCATOR_FIELDS.url),
    zpid: Type.Optional(LOCATOR_FIELDS.zpid),
    address: Type.Optional(LOCATOR_FIELDS.address),
    webhook_url: Type.String({
      maxLength: 2048,
      description:
        'Where property.changed events are sent (signed, Standard Webhooks): an http(s) URL of a public host.',
      examples: ['https://crm.example.com/hooks/homes'],
    }),
    interval_hours: Type.Number({
      exclusiveMinimum: 0,
      maximum: WATCH_MAX_INTERVAL_HOURS,
      description: `Hours between two checks (fractions allowed), at least WATCH_MIN_INTERVAL_HOURS (24 by default) and at most ${WATCH_MAX_INTERVAL_HOURS}. Each check is a live lookup billed like one.`,
      examples: [24],
    }),
  },
  {
    $id: 'WatchRequest',
    additionalProperties: false,
    description: `Exactly one of ${LOCATOR_KEYS.join(', ')}, with webhook_url and interval_hours.`,
  },
);
const WATCH_BODY_KEYS: readonly string[] = Object.keys(WatchRequestBody.properties);

const time = (description: string) => nullable(Type.String({ format: 'date-time' }), description);

/** A watch as answered (REST data of the watch routes; GraphQL Watch in camelCase). */
export const WatchView = Type.Object(
  {
    id: Type.String({ description: 'The watch id (`DELETE /v1/portal/watches/<id>` ends it)' }),
    url: Type.Optional(Type.String({ description: 'The locator as sent, when it was a link' })),
    zpid: Type.Optional(Type.String({ description: 'The locator as sent, when it was a zpid' })),
    address: Type.Optional(Type.String({ description: 'The locator as sent, when it was an address' })),
    webhook_url: Type.String({ description: 'Where property.changed events are sent' }),
    interval_hours: Type.Number({ description: 'Hours between two checks' }),
    created_at: Type.String({
      format: 'date-time',
      description: 'When the watch was made (its first check runs at once)',
    }),
    home_zpid: nullable(Type.String(), "The home's zpid once a check found it"),
    last_checked_at: time('When the last check ran; null before the first'),
    next_check_at: time('When the next check is due; null when the watch stopped (its account was revoked)'),
    last_error: nullable(
      Type.String(),
      "The last check's error code (it was not billed), or null when it found the home",
    ),
  },
  {
    $id: 'Watch',
    description:
      'A watched home: read live every interval_hours; a property.changed event when price, status, estimate, rent estimate or HOA changed.',
  },
);
export type WatchViewShape = Static<typeof WatchView>;

export const WATCH_SCHEMAS = [WatchRequestBody, WatchView] as const;

/** A watch body as sent: its locator parsed; webhook_url and interval_hours as sent (the core checks them). */
export interface ParsedWatchBody {
  locator: Locator;
  webhookUrl: unknown;
  intervalHours: unknown;
}

/** POST /v1/portal/watches' JSON body, or watchProperty's arguments under the REST names. */
export function parseWatchBody(body: unknown): ParsedWatchBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new LookupError('bad_body', {
      message: 'The body must be a JSON object with one locator, webhook_url and interval_hours.',
      details: { reason: 'not an object' },
    });
  }
  const input = body as Record<string, unknown>;
  for (const k of Object.keys(input)) {
    if (!WATCH_BODY_KEYS.includes(k)) {
      throw new LookupError('bad_param', {
        message: `Invalid ${k}: unknown field (expected ${WATCH_BODY_KEYS.join(', ')}).`,
        details: { param: k, reason: 'unknown field' },
      });
    }
  }
  return { locator: parseLocator(input), webhookUrl: input.webhook_url, intervalHours: input.interval_hours };
}

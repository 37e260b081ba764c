// The service's own public figures (GET /v1/status, the /status page): what every instance answered in the
// last hour and the last 24 hours, as one TypeBox schema (the OpenAPI document's ServiceStatus). Counts and
// shares only: no account, key, address or anything else that names a customer.
import { Type, type Static } from '@sinclair/typebox';

/** The windows the figures cover, in minutes. */
export const STATUS_WINDOWS = { last_hour: 60, last_24_hours: 1440 } as const;

const share = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: `${description}; a fraction from 0 to 1 (4 decimals), null when there was nothing to share`,
  });
const ms = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: `${description}; null without reads` });

export const StatusWindow = Type.Object(
  {
    minutes: Type.Integer({ description: 'The window: the last this many minutes, the current one included' }),
    lookups: Type.Integer({
      description:
        'Lookups answered, found or failed: single lookups, batch items, GraphQL fields, MCP tools, job items and watch checks, each once',
    }),
    found: Type.Integer({ description: 'Lookups answered with a home' }),
    served: Type.Object(
      {
        own_collector: share('Found homes read live by the own collector'),
        fallback: share('Found homes read live by the fallback provider'),
        cache: share('Found homes served from the cache'),
        stale: share('Found homes answered with the last good record because the live read failed (meta.stale)'),
      },
      { description: 'Where the found homes came from: the four shares add up to 1' },
    ),
    live_reads: Type.Object(
      {
        count: Type.Integer({ description: 'Live reads of a page (the own collector, with the fallback behind it)' }),
        p50_ms: ms('Median time of a live read, ms (from fixed buckets: an estimate)'),
        p95_ms: ms('95th percentile of a live read, ms (from fixed buckets: an estimate)'),
      },
      { description: 'Live reads of the listing site or the fallback provider, whatever their outcome' },
    ),
    site_attempts: Type.Object(
      {
        count: Type.Integer({ description: "The own collector's requests to the listing site" }),
        walled_share: share('Share of them refused by the bot wall'),
      },
      { description: "The own collector's requests to the listing site" },
    ),
    records: Type.Object(
      {
        count: Type.Integer({ description: 'Records read live (found, not from the cache)' }),
        complete_share: share('Share of them with every section read (none in extraction_failed; see meta.sections)'),
      },
      { description: 'Records read live, and how complete they were' },
    ),
    errors: Type.Object(
      {
        total: Type.Integer({ description: 'Lookups answered with an error' }),
        by_code: Type.Object({}, { additionalProperties: Type.Integer(), description: 'Error code → lookups' }),
      },
      { description: 'Failed lookups by error code (the codes of the error table)' },
    ),
  },
  { $id: 'StatusWindow', description: "The service's figures over one window, summed over every instance" },
);

export const BREAKER_STATES = ['closed', 'open', 'none'] as const;

export const ServiceStatus = Type.Object(
  {
    generated_at: Type.String({ format: 'date-time', description: 'When these figures were read' }),
    last_hour: Type.Ref(StatusWindow),
    last_24_hours: Type.Ref(StatusWindow),
    breaker: Type.Object(
      {
        state: Type.Union(
          BREAKER_STATES.map((s) => Type.Literal(s)),
          {
            description:
              "open while any instance's breaker is open (its lookups go straight to the fallback provider); closed when every instance with an own collector has it closed; none when no instance runs an own collector (or none reported in the last 30 s)",
          },
        ),
        instances: Type.Integer({ description: 'Instances that reported their state in the last 30 s' }),
        open: Type.Integer({ description: 'How many of them have their breaker open' }),
      },
      { description: "The own collector's circuit breaker across the instances" },
    ),
  },
  {
    $id: 'ServiceStatus',
    description:
      "The service's own figures for the last hour and the last 24 hours, across every instance (counts and shares only: nothing about any customer)",
  },
);

export const StatusResponse = Type.Object(
  {
    data: Type.Ref(ServiceStatus),
    meta: Type.Object({ took_ms: Type.Integer() }),
  },
  { $id: 'StatusResponse' },
);

/** A window as answered (`by_code` is a map: the schema says so with additionalProperties). */
export type StatusWindow = Omit<Static<typeof StatusWindow>, 'errors'> & {
  errors: { total: number; by_code: Record<string, number> };
};
export type ServiceStatus = Omit<Static<typeof ServiceStatus>, 'last_hour' | 'last_24_hours'> & {
  last_hour: StatusWindow;
  last_24_hours: StatusWindow;
};
export type BreakerSummary = ServiceStatus['breaker'];

export const STATUS_SCHEMAS = [StatusWindow, ServiceStatus, StatusResponse] as const;

// The v1 contract of lookup jobs (docs/jobs.md): the JSON body of POST /v1/portal/jobs, the job as
// every answer shows it, and the columns of its CSV results, declared once as TypeBox schemas. Generated
// from here: the OpenAPI document's job schemas (rest/openapi.ts) and GraphQL's LookupJob
// (graphql/schema/jobs.ts), and the jobs core's own types (src/jobs/types.ts re-exports them).
import { KindGuard, Type, type Static, type TSchema } from '@sinclair/typebox';
import { BatchItem, OPTION_FIELDS } from './inputs.js';
import { PortalProperty } from './schema.js';

export const MAX_JOB_ITEMS = 10_000;
/** How long a job and its results are kept after it was made. */
export const JOB_TTL_MS = 7 * 24 * 3600_000;

export const JOB_STATUSES = ['queued', 'running', 'completed', 'cancelled', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** A job in one of these statuses changes no more. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'cancelled', 'failed'];
/** The largest body POST /v1/portal/jobs reads, bytes: 10,000 items of long links with room to spare. */
export const MAX_JOB_BODY_BYTES = 8 * 1024 * 1024;
export const JOB_RETENTION_DAYS = JOB_TTL_MS / (24 * 3600_000);
/** Jobs per page of GET /v1/portal/jobs (and GraphQL's jobs): at most, and when not given. */
export const MAX_JOBS_PAGE = 100;
export const DEFAULT_JOBS_PAGE = 20;
/** Results per page of GraphQL's LookupJob.results: at most, and when not given. */
export const MAX_RESULTS_PAGE = 500;
export const DEFAULT_RESULTS_PAGE = 50;

/** What a job's options and its webhook are, as the JSON body, the query string (CSV, NDJSON) and GraphQL's arguments take them. */
export const JOB_OPTION_FIELDS = {
  webhook_url: Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        'http(s) URL to send the signed `job.completed` (or `job.failed`) event to when the job ends (docs/watches-and-webhooks.md). Refused (bad_param) when it resolves to an address that is not globally routable unicast (loopback, private, link-local, documentation, reserved, multicast, or an IPv6 form carrying an IPv4 address); WEBHOOK_ALLOW_PRIVATE lets loopback, private and link-local through.',
      examples: ['https://example.com/hooks/portal'],
    }),
  ),
  ...OPTION_FIELDS,
};
export const JOB_OPTION_KEYS: readonly string[] = Object.keys(JOB_OPTION_FIELDS);

export const JobRequest = Type.Object(
  {
    items: Type.Array(Type.Ref(BatchItem), {
      minItems: 1,
      maxItems: MAX_JOB_ITEMS,
      description: `1 to ${MAX_JOB_ITEMS.toLocaleString('en-US')} homes, in the batch's item forms. An invalid item is its own error result, never the job's.`,
    }),
    ...JOB_OPTION_FIELDS,
  },
  {
    $id: 'JobRequest',
    additionalProperties: false,
    description:
      'A lookup job as JSON (POST /v1/portal/jobs); also accepted as text/csv and NDJSON, options then in the query string.',
  },
);
export const JOB_BODY_KEYS: readonly string[] = Object.keys(JobRequest.properties);

const time = (description: string) => Type.String({ format: 'date-time', description });
const maybeTime = (description: string) => Type.Union([time(description), Type.Null()], { description });

export const JobView = Type.Object(
  {
    id: Type.String({ description: 'The job id' }),
    status: Type.Union(
      JOB_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'queued (no item started), running, completed (every item has its result), cancelled (DELETE: the items not started have none), failed (the job itself could not run)',
      },
    ),
    count: Type.Integer({ description: 'Items in the job' }),
    done: Type.Integer({ description: 'Items with a result so far' }),
    succeeded: Type.Integer({ description: 'Items found (ok)' }),
    failed: Type.Integer({ description: 'Items that failed (their result says why)' }),
    cache_hits: Type.Integer({ description: 'Succeeded items served from the cache (0 credits)' }),
    credits: Type.Integer({
      description: 'Credits charged so far: successful live lookups only, each item at most once',
    }),
    created_at: time('When the job was made'),
    started_at: maybeTime('When its first item started; null while queued'),
    finished_at: maybeTime(
      'When it became completed or failed, or, cancelled, once no chunk of it ran any more; null before',
    ),
    webhook_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Where job.completed / job.failed is sent; null: no webhook',
    }),
    waiting: Type.Integer({
      description:
        'Items held for the daily live-lookup limit (live_lookups_capped): read again at waiting_until, not failed',
    }),
    waiting_until: maybeTime('When held items run again (00:00 UTC); null when none is held'),
  },
  {
    $id: 'JobView',
    description: `A lookup job. Kept, with its results, for ${JOB_TTL_MS / (24 * 3600_000)} days after it was made.`,
  },
);

/** A job as GET /v1/portal/jobs/<id> shows it (snake_case; GraphQL shows the same fields in camelCase). */
export type JobView = Static<typeof JobView>;

const tookMeta = Type.Object({ took_ms: Type.Integer({ description: 'Milliseconds taken' }) });

export const JobCreated = Type.Object(
  {
    data: Type.Object({
      id: JobView.properties.id,
      status: Type.Literal('queued', { description: 'Always queued: the items run in the background' }),
      count: JobView.properties.count,
      created_at: JobView.properties.created_at,
    }),
    meta: tookMeta,
  },
  { $id: 'JobCreated', description: 'A job made (202): follow the location header, its events or its webhook' },
);

export const JobResponse = Type.Object({ data: Type.Ref(JobView), meta: tookMeta }, { $id: 'JobResponse' });

export const JobListResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(JobView), { description: "The account's jobs, newest first" }),
    meta: Type.Object({
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as cursor for the next (older) page; null: no more',
      }),
      took_ms: tookMeta.properties.took_ms,
    }),
  },
  { $id: 'JobListResponse' },
);

export const JOB_SCHEMAS = [JobRequest, JobView, JobCreated, JobResponse, JobListResponse] as const;

/** A value a CSV cell can hold as it is: a string, number, integer or boolean, or a union of those with null (an enum too). */
function isScalar(s: TSchema): boolean {
  if (
    KindGuard.IsString(s) ||
    KindGuard.IsNumber(s) ||
    KindGuard.IsInteger(s) ||
    KindGuard.IsBoolean(s) ||
    KindGuard.IsLiteral(s) ||
    KindGuard.IsNull(s)
  )
    return true;
  return KindGuard.IsUnion(s) && s.anyOf.every(isScalar);
}

/** PortalProperty's scalar fields, in the contract's order (lists and raw are left to the NDJSON results). */
export const CSV_PROPERTY_FIELDS: readonly string[] = Object.entries(PortalProperty.properties)
  .filter(([, schema]) => !KindGuard.IsOptional(schema) && isScalar(schema))
  .map(([name]) => name);
/** The result's own columns, before the home's. */
export const CSV_RESULT_COLUMNS = ['index', 'ok', 'error_code', 'error_message', 'credits', 'cached'] as const;
export const JOB_CSV_COLUMNS: readonly string[] = [...CSV_RESULT_COLUMNS, ...CSV_PROPERTY_FIELDS];

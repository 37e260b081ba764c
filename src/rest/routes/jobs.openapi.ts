// The OpenAPI operations of the lookup jobs' routes (jobs.ts, docs/jobs.md): make one, list the account's,
// read or cancel one, its results and its progress. Beside the routes, not in them: jobs.ts is long enough.
import { JOB_MEDIA_TYPES } from '../../contract/job-input.js';
import {
  DEFAULT_JOBS_PAGE,
  JOB_CSV_COLUMNS,
  JOB_OPTION_FIELDS,
  MAX_JOB_BODY_BYTES,
  MAX_JOB_ITEMS,
  MAX_JOBS_PAGE,
  type JobView,
} from '../../contract/jobs.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../lookup/idempotency.js';
import { exampleProperty } from '../openapi/examples.js';
import {
  commonHeaders,
  errorResponses,
  IDEMPOTENCY_CODES,
  queryParameter,
  replayedHeader,
  REQUEST_LEVEL_CODES,
  resourceErrors,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';
import { HEARTBEAT_MS, JOBS_PATH } from './jobs.js';

const exampleJob: JobView = {
  id: 'job_01JD3Y6Q7W',
  status: 'running',
  count: 2000,
  done: 850,
  succeeded: 812,
  failed: 38,
  cache_hits: 301,
  credits: 511,
  created_at: '2026-10-09T12:00:00.000Z',
  started_at: '2026-10-09T12:00:01.000Z',
  finished_at: null,
  webhook_url: 'https://example.com/hooks/portal',
  waiting: 0,
  waiting_until: null,
};

/** The idempotency header of a job's creation: its retry makes no second job. */
const jobIdempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a retry with the same key and the same job (body, content-type, query string) from the same account within 24 h ' +
    'gets the first answer again (the same job id) with idempotent-replayed: true, and no second job is made. The key with another job is 422 idempotency_key_reused.',
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x20-\\x7e]+$' },
};

const jobIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The job id (the location header of its creation)',
  schema: { type: 'string' },
};
const jobAnswer = (description: string) => ({
  description,
  headers: commonHeaders,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/JobResponse' },
      example: { data: exampleJob, meta: { took_ms: 3 } } as unknown as Json,
    },
  },
});

/** The operations in the OpenAPI document. */
export const jobsPaths = (): OpenApiPaths => ({
  [JOBS_PATH]: {
    post: {
      operationId: 'createLookupJob',
      tags: [TAGS.jobs],
      summary: `Queue a job of up to ${MAX_JOB_ITEMS.toLocaleString('en-US')} homes`,
      description:
        `The items in the batch's forms, as JSON (JobRequest), as text/csv (a header row naming url, zpid and/or address columns; one item per row ` +
        `from its non-empty locator cell; other columns ignored) or as NDJSON (one item per line). For CSV and NDJSON the options and webhook_url ` +
        `are query parameters. Bodies up to ${MAX_JOB_BODY_BYTES / (1024 * 1024)} MB. Every item is validated up front: an invalid one is its own ` +
        'error result (400 bad_body: no job; too_many_items: "At most 10,000 items per job."). Billed as lookups, as the items run: 1 credit per ' +
        'successful live lookup, each item at most once.',
      parameters: [
        ...Object.entries(JOB_OPTION_FIELDS).map(([name, field]) => queryParameter(name, field, false)),
        jobIdempotencyHeader,
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/JobRequest' },
            example: {
              items: [exampleProperty.detailUrl!, { zpid: '15192198' }, '661 Lakeview Ave, San Francisco, CA 94112'],
              webhook_url: 'https://example.com/hooks/portal',
            },
          },
          'text/csv': {
            schema: {
              type: 'string',
              description: 'A header row naming url, zpid and/or address columns, then one home per row',
            },
            example: 'zpid,address\r\n15192198,\r\n,"661 Lakeview Ave, San Francisco, CA 94112"\r\n',
          },
          ...Object.fromEntries(
            Object.entries(JOB_MEDIA_TYPES)
              .filter(([, f]) => f === 'ndjson')
              .map(([type]) => [
                type,
                { schema: { type: 'string', description: 'One item (a JSON string or item object) per line' } },
              ]),
          ),
        },
      },
      responses: {
        '202': {
          description: 'Queued: the job runs in the background',
          headers: {
            ...commonHeaders,
            location: { description: 'The job: `/v1/portal/jobs/<id>`', schema: { type: 'string' } },
            ...replayedHeader,
          },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/JobCreated' },
              example: {
                data: { id: exampleJob.id, status: 'queued', count: 2000, created_at: exampleJob.created_at },
                meta: { took_ms: 41 },
              },
            },
          },
        },
        // An item without a locator is its own result, never the job's refusal.
        ...errorResponses([400], (c) => c !== 'missing_param'),
        ...errorResponses([401]),
        ...errorResponses([409, 422], (c) => IDEMPOTENCY_CODES.has(c)),
        // The account's per-account job bounds (details.limit jobs_active or job_items_queued).
        ...errorResponses([429]),
        ...errorResponses([500]),
        ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
        ...sharedResponses([...REQUEST_LEVEL_CODES, 'unsupported_media_type']),
      },
    },
    get: {
      operationId: 'listLookupJobs',
      tags: [TAGS.jobs],
      summary: "The account's jobs, newest first",
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Jobs per page, 1 to ${MAX_JOBS_PAGE}; ${DEFAULT_JOBS_PAGE} when omitted`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_JOBS_PAGE },
        },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "meta.next_cursor of the page before; one not of a job id's form is 400 bad_param",
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'A page of jobs',
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/JobListResponse' },
              example: { data: [exampleJob], meta: { next_cursor: null, took_ms: 4 } } as unknown as Json,
            },
          },
        },
        ...resourceErrors(),
      },
    },
  },
  [`${JOBS_PATH}/{id}`]: {
    get: {
      operationId: 'getLookupJob',
      tags: [TAGS.jobs],
      summary: 'A job: its status and counts',
      description: "Another account's job, or one past its retention, is 404 not_found.",
      parameters: [jobIdParameter],
      responses: { '200': jobAnswer('The job'), ...resourceErrors() },
    },
    delete: {
      operationId: 'cancelLookupJob',
      tags: [TAGS.jobs],
      summary: 'Cancel a job',
      description:
        'Items not started are not run, have no result and are not billed; chunks already running finish and are billed, so `done` and `credits` may still grow after this answer. Answers the job as it then stands (`finished_at` null while chunks run). Once no chunk of it runs (at once when none did), `finished_at` is set, the events stream ends and, with a `webhook_url`, its one `job.completed` is sent, all with the final counts as billed (cancelling a finished job changes nothing).',
      parameters: [jobIdParameter],
      responses: { '200': jobAnswer('The job as it stands after cancelling'), ...resourceErrors() },
    },
  },
  [`${JOBS_PATH}/{id}/results`]: {
    get: {
      operationId: 'getLookupJobResults',
      tags: [TAGS.jobs],
      summary: "A job's results, streamed",
      description:
        'The results of the items done so far, in item order: NDJSON, one BatchResult-shaped line per item ({index, ok, data, meta} or {index, ok, error}); ' +
        `with format=csv, CSV with a header row: ${JOB_CSV_COLUMNS.slice(0, 6).join(', ')}, then a column per PortalProperty scalar field ` +
        '(lists and raw are left to NDJSON).',
      parameters: [
        jobIdParameter,
        {
          name: 'format',
          in: 'query',
          required: false,
          description: 'ndjson (when omitted) or csv',
          schema: { type: 'string', enum: ['ndjson', 'csv'] },
        },
      ],
      responses: {
        '200': {
          description: 'The results',
          headers: commonHeaders,
          content: {
            'application/x-ndjson': {
              schema: { type: 'string', description: 'One BatchItemSuccess or BatchItemFailure JSON per line' },
            },
            'text/csv': {
              schema: {
                type: 'string',
                description: `Columns: ${JOB_CSV_COLUMNS.join(', ')}. A text cell starting with =, +, -, @, tab or CR has a leading ' (no spreadsheet formula); numbers are as they are.`,
              },
            },
          },
        },
        ...resourceErrors(),
      },
    },
  },
  [`${JOBS_PATH}/{id}/events`]: {
    get: {
      operationId: 'streamLookupJobEvents',
      tags: [TAGS.jobs],
      summary: "A job's progress as server-sent events",
      description:
        '`event: progress` with the job (JobView JSON) now and on each change, `event: done` with the final job, then the stream ends; ' +
        `a comment line every ${HEARTBEAT_MS / 1000} s keeps it open.`,
      parameters: [jobIdParameter],
      responses: {
        '200': {
          description: 'The event stream',
          headers: commonHeaders,
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...resourceErrors(),
        // The account's open streams at JOB_MAX_EVENT_STREAMS_PER_ACCOUNT (details.limit event_streams).
        ...errorResponses([429]),
      },
    },
  },
});

// Lookup jobs over GraphQL (docs/jobs.md): Mutation.createLookupJob and cancelLookupJob, Query.job
// and jobs, LookupJob with its results paged. The same core as REST's /v1/portal/jobs (background.jobs)
// and the same readers (contract/job-input.ts): the job's fields are the contract's JobView in camelCase,
// each result the batch's BatchItemResult.
import {
  DEFAULT_JOBS_PAGE,
  DEFAULT_RESULTS_PAGE,
  JOB_STATUSES,
  JobRequest,
  JobView,
  MAX_JOBS_PAGE,
  MAX_RESULTS_PAGE,
} from '../../contract/jobs.js';
import { jobListCursor, parseJobJson, tooManyJobItems } from '../../contract/job-input.js';
import { LookupError, type BatchResult as BatchResultShape } from '../../contract/index.js';
import { MAX_JOB_ITEMS, type JobView as JobViewShape } from '../../contract/jobs.js';
import { builder, type GraphqlContext } from '../builder.js';
import { contractArgs, contractFields, planFields, planInputs, restNamed, type TypeMap } from '../typebox.js';
import { BatchItemResultType, LookupItemInput } from './batch.js';
import { contractTypes, requireLookup, rethrowCoded } from './shared.js';

export const JobStatusEnum = builder.enumType('LookupJobStatus', {
  description: JobView.properties.status.description,
  values: Object.fromEntries(JOB_STATUSES.map((s) => [s.toUpperCase(), { value: s, description: `REST: ${s}` }])),
});

const jobTypes: TypeMap = {
  ...contractTypes,
  enums: [...contractTypes.enums, { values: JOB_STATUSES, ref: JobStatusEnum, name: 'LookupJobStatus' }],
  inputs: { BatchItem: { ref: LookupItemInput, name: 'LookupItem' } },
};

export const LookupJobType = builder.objectRef<JobViewShape>('LookupJob');
interface ResultPage {
  items: BatchResultShape[];
  endCursor: string | null;
  hasNextPage: boolean;
}
const ResultPageType = builder.objectRef<ResultPage>('LookupJobResultPage');
interface JobPage {
  jobs: JobViewShape[];
  endCursor: string | null;
  hasNextPage: boolean;
}
const JobPageType = builder.objectRef<JobPage>('LookupJobPage');

const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** A page size argument: a whole number from 1 to `max`. */
function pageSize(value: number, param: string, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) throw bad(param, `must be from 1 to ${max}`);
  return value;
}

/** The first item index after a results cursor (the index of the last result of the page before). */
function afterCursor(after: string | null | undefined, count: number): number {
  if (after === null || after === undefined) return 0;
  // Past the job's last item no page can come: a cursor there was not one of ours.
  if (!/^\d{1,9}$/.test(after) || Number(after) >= count)
    throw bad('after', 'must be the endCursor of an earlier page');
  return Number(after) + 1;
}

/** What one HTTP request's operations share (each operation of a batched request has a context of its own). */
const requestOf = (ctx: GraphqlContext): object => ctx.lookup ?? ctx;

/**
 * Result lines already handed out per request (all its operations): `jobs(first: 100) { jobs { results(first:
 * 500) } }`, or aliases of it, would otherwise build tens of thousands of results in one answer in memory.
 */
const resultsServed = new WeakMap<object, number>();
function takeResults(ctx: GraphqlContext, first: number): void {
  const request = requestOf(ctx);
  const served = resultsServed.get(request) ?? 0;
  if (served + first > MAX_RESULTS_PAGE) {
    throw bad(
      'first',
      `at most ${MAX_RESULTS_PAGE} results per request across its results fields (${served} taken); page through the rest`,
    );
  }
  resultsServed.set(request, served + first);
}

/**
 * Job items queued per request (all its operations), at most MAX_JOB_ITEMS as one REST POST: aliases
 * (up to 60) and batched operations each naming a 10,000-item $items would queue 60 times that per request.
 */
const itemsQueued = new WeakMap<object, number>();
function takeJobItems(ctx: GraphqlContext, count: number): void {
  const request = requestOf(ctx);
  const queued = (itemsQueued.get(request) ?? 0) + count;
  if (queued > MAX_JOB_ITEMS) throw tooManyJobItems(queued);
  itemsQueued.set(request, queued);
}

const jobs = (ctx: GraphqlContext) => {
  const lookup = requireLookup(ctx);
  return { account: lookup.account, jobs: ctx.background.jobs };
};

ResultPageType.implement({
  description: "A page of a job's results, in item order (REST: lines of GET /v1/portal/jobs/<id>/results).",
  fields: (t) => ({
    items: t.field({
      type: [BatchItemResultType],
      description: 'The results of this page, each with its item index',
      resolve: (p) => p.items,
    }),
    endCursor: t.string({
      nullable: true,
      description:
        "Pass as `after` for the next page: the index of this page's last result (null when the page is empty and no cursor was given)",
      resolve: (p) => p.endCursor,
    }),
    hasNextPage: t.boolean({
      description: 'True when more results are ready now (a running job adds more later: ask again after endCursor)',
      resolve: (p) => p.hasNextPage,
    }),
  }),
});

LookupJobType.implement({
  description: `${JobView.description} (REST: GET /v1/portal/jobs/<id>.)`,
  fields: (t) => ({
    ...contractFields(t, planFields(JobView, jobTypes)),
    results: t.field({
      type: ResultPageType,
      // Nullable: a bad page argument in createLookupJob's selection must not null the job just made (its id lost, a retry makes another).
      nullable: true,
      description: `The results of the items done so far, in item order, ${DEFAULT_RESULTS_PAGE} (at most ${MAX_RESULTS_PAGE}) per page, and at most ${MAX_RESULTS_PAGE} across all results fields of one request (REST: GET /v1/portal/jobs/<id>/results).`,
      args: {
        first: t.arg.int({
          required: true,
          defaultValue: DEFAULT_RESULTS_PAGE,
          description: `Results per page, 1 to ${MAX_RESULTS_PAGE}`,
        }),
        after: t.arg.string({ description: 'The endCursor of the page before' }),
      },
      resolve: async (job, args, ctx) => {
        try {
          const first = pageSize(args.first, 'first', MAX_RESULTS_PAGE);
          const from = afterCursor(args.after, job.count);
          takeResults(ctx, first);
          const { account, jobs: core } = jobs(ctx);
          const items: BatchResultShape[] = [];
          for await (const line of await core.results(account, job.id, { from, limit: first + 1 }))
            items.push(JSON.parse(line) as BatchResultShape);
          const page = items.slice(0, first);
          const last = page.at(-1);
          return {
            items: page,
            endCursor: last ? String(last.index) : (args.after ?? null),
            hasNextPage: items.length > first,
          };
        } catch (e) {
          rethrowCoded(e);
        }
      },
    }),
  }),
});

JobPageType.implement({
  description: "A page of the account's jobs, newest first (REST: GET /v1/portal/jobs).",
  fields: (t) => ({
    jobs: t.field({
      type: [LookupJobType],
      description: 'The jobs of this page, newest first',
      resolve: (p) => p.jobs,
    }),
    endCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next (older) page; null: no more',
      resolve: (p) => p.endCursor,
    }),
    hasNextPage: t.boolean({
      description: 'True when there are older jobs (after endCursor)',
      resolve: (p) => p.hasNextPage,
    }),
  }),
});

builder.queryField('job', (t) =>
  t.field({
    type: LookupJobType,
    nullable: true,
    description:
      "One of the account's jobs (REST: GET /v1/portal/jobs/<id>); another account's or an expired one is the error not_found.",
    args: { id: t.arg.id({ required: true, description: "The job id (createLookupJob, or REST's location header)" }) },
    resolve: async (_root, args, ctx) => {
      const { account, jobs: core } = jobs(ctx);
      return core.get(account, String(args.id)).catch(rethrowCoded);
    },
  }),
);

builder.queryField('jobs', (t) =>
  t.field({
    type: JobPageType,
    description: "The account's jobs, newest first (REST: GET /v1/portal/jobs).",
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_JOBS_PAGE,
        description: `Jobs per page, 1 to ${MAX_JOBS_PAGE}`,
      }),
      after: t.arg.string({ description: 'The endCursor of the page before' }),
    },
    resolve: async (_root, args, ctx) => {
      try {
        const limit = pageSize(args.first, 'first', MAX_JOBS_PAGE);
        const { account, jobs: core } = jobs(ctx);
        const page = await core.list(account, { limit, cursor: jobListCursor(args.after, 'after') });
        return { jobs: page.jobs, endCursor: page.next_cursor, hasNextPage: page.next_cursor !== null };
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);

/** GraphQL's item objects as the REST body has them: contract names, and no null for a field left out. */
const itemOf = (item: unknown): unknown =>
  item && typeof item === 'object'
    ? Object.fromEntries(Object.entries(restNamed(item as Record<string, unknown>)).filter(([, v]) => v !== null))
    : item;

builder.mutationField('createLookupJob', (t) =>
  t.field({
    type: LookupJobType,
    // Nullable: with two in one request, the second one's error must not null the data holding the first's id.
    nullable: true,
    description:
      'Queues a lookup job of 1 to 10,000 items (REST: POST /v1/portal/jobs): the items run in the background, billed as lookups; follow it with Query.job, or the webhook. At most 10,000 items per request across its createLookupJob fields (too_many_items). With an Idempotency-Key header, a retry makes no second job.',
    // The contract's job body: the same fields, limits and descriptions as REST's.
    args: contractArgs(t, planInputs(JobRequest.properties, jobTypes, 'createLookupJob')),
    resolve: async (_root, args, ctx) => {
      try {
        const body = restNamed(args as Record<string, unknown>);
        const request = parseJobJson({
          ...body,
          items: Array.isArray(body.items) ? body.items.map(itemOf) : body.items,
        });
        const { account, jobs: core } = jobs(ctx);
        takeJobItems(ctx, request.items.length);
        return await core.create(account, request);
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);

builder.mutationField('cancelLookupJob', (t) =>
  t.field({
    type: LookupJobType,
    description:
      'Cancels what of the job has not started (REST: DELETE /v1/portal/jobs/<id>): those items are never read or billed; chunks already running finish and are billed, and finishedAt and the one job.completed come once they have. The job as it then stands.',
    args: { id: t.arg.id({ required: true, description: 'The job id' }) },
    resolve: async (_root, args, ctx) => {
      const { account, jobs: core } = jobs(ctx);
      return core.cancel(account, String(args.id)).catch(rethrowCoded);
    },
  }),
);

// GET /v1/account: the caller's own plan and usage; its own record (docs/accounts.md): GET /v1/account/usage,
// its lookups by UTC day, and GET /v1/account/charges, its charges newest first (JSON or CSV); and their
// OpenAPI operations. None takes a credit or a unit of the rate window: nothing is looked up.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountCharges, accountDays, accountUsage, apiKeyFrom, authenticate } from '../../accounts/index.js';
import type { AccountUsage } from '../../contract/index.js';
import {
  CHARGE_CSV_COLUMNS,
  chargesCursorId,
  chargesLimit,
  DEFAULT_CHARGES_PAGE,
  MAX_CHARGES_PAGE,
  MAX_USAGE_DAYS,
  usageDays,
  type ChargeLine,
  type UsageDay,
} from '../../contract/account-record.js';
import type { Account } from '../../store/index.js';
import { badParam, queryOf } from '../params.js';
import { csvCell } from '../csv.js';
import type { CoreDeps } from '../../lookup/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import {
  commonHeaders,
  errorResponses,
  REQUEST_LEVEL_CODES,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const ACCOUNT_PATH = '/v1/account';
export const ACCOUNT_USAGE_PATH = '/v1/account/usage';
export const ACCOUNT_CHARGES_PATH = '/v1/account/charges';

/** The caller's account, from its key (the request's log line names it). */
async function callerOf(deps: CoreDeps, request: FastifyRequest): Promise<Account> {
  const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKeyFrom(request.headers));
  request.stats.account = account.id;
  return account;
}

/** One charge as a CSV row of CHARGE_CSV_COLUMNS. */
const chargeRow = (line: ChargeLine): string => CHARGE_CSV_COLUMNS.map((c) => csvCell(line[c])).join(',') + '\r\n';

export function accountRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get(ACCOUNT_PATH, async (request, reply) => {
    try {
      const account = await callerOf(deps, request);
      const data = await accountUsage(deps.store, account, deps.clock());
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
    } catch (e) {
      return sendError(reply, e);
    }
  });

  app.get(ACCOUNT_USAGE_PATH, async (request, reply) => {
    try {
      const account = await callerOf(deps, request);
      const query = queryOf(request, ['from', 'to']);
      const days = usageDays(query.from, query.to, deps.clock());
      const data = {
        from: days[0]!,
        to: days[days.length - 1]!,
        days: await accountDays(deps.store, deps.logger, account, days),
      };
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
    } catch (e) {
      return sendError(reply, e);
    }
  });

  app.get(ACCOUNT_CHARGES_PATH, async (request, reply) => {
    try {
      const account = await callerOf(deps, request);
      const query = queryOf(request, ['limit', 'cursor', 'format']);
      const format = query.format ?? 'json';
      if (format !== 'json' && format !== 'csv') throw badParam('format', 'must be json or csv');
      const limit = chargesLimit(query.limit, 'limit');
      const page = await accountCharges(deps.store, account, limit, chargesCursorId(query.cursor, 'cursor'));
      if (format === 'csv') {
        // The next page's cursor in a header: a CSV body has no room for it.
        if (page.nextCursor !== null) reply.header('x-next-cursor', page.nextCursor);
        return reply
          .type('text/csv; charset=utf-8')
          .send(CHARGE_CSV_COLUMNS.join(',') + '\r\n' + page.lines.map(chargeRow).join(''));
      }
      return reply.send({ data: page.lines, meta: { next_cursor: page.nextCursor, took_ms: tookMs(reply) } });
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

const exampleAccount: AccountUsage = {
  plan: 'paid',
  key_prefix: 'pk_live_3f9a',
  used: 120,
  included: 1000,
  remaining: 880,
  period_end: '2026-12-01T00:00:00.000Z',
  overage_enabled: false,
  overage_used: 0,
  overage_usd: 0,
  spend_limit_usd: null,
};

const exampleDay: UsageDay = {
  day: '2026-11-03',
  lookups: 42,
  live_reads: 12,
  cache_hits: 27,
  stale: 1,
  failed: 2,
  credits: 11,
};

const exampleCharge: ChargeLine = {
  at: '2026-11-03T14:02:11.532Z',
  request_id: 'job:6f1c2a9e4b7d4e21:3',
  cache_key: 'zpid:2146993218',
  source: 'self_hosted',
  job_id: '6f1c2a9e4b7d4e21',
  watch_id: null,
  kind: 'included',
  credits: 1,
};

/** What a read of the account's record can answer besides its data: a bad parameter, the key, the store. */
const recordErrors = () => ({
  ...errorResponses(
    [400, 401, 503],
    (c) =>
      c === 'bad_param' ||
      c === 'missing_api_key' ||
      c === 'invalid_api_key' ||
      c === 'store_unavailable' ||
      c === 'upstream_busy',
  ),
  ...sharedResponses(REQUEST_LEVEL_CODES),
});

const json = (schema: string, example: unknown) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example: example as Json },
});

/** The operations in the OpenAPI document. */
export const accountPaths = (): OpenApiPaths => ({
  [ACCOUNT_PATH]: {
    get: {
      operationId: 'getAccount',
      tags: [TAGS.account],
      summary: "The caller's plan and usage",
      description: 'Free: no lookup is made.',
      responses: {
        '200': {
          description: 'Plan and usage',
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data', 'meta'],
                properties: {
                  data: { $ref: '#/components/schemas/AccountUsage' },
                  meta: { type: 'object', required: ['took_ms'], properties: { took_ms: { type: 'integer' } } },
                },
              },
              example: { data: exampleAccount, meta: { took_ms: 3 } } as unknown as Json,
            },
          },
        },
        // No lookup: only the store, or an instance too busy to hear it, can fail it.
        ...errorResponses(
          [401, 503],
          (c) =>
            c === 'missing_api_key' || c === 'invalid_api_key' || c === 'store_unavailable' || c === 'upstream_busy',
        ),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
  },
  [ACCOUNT_USAGE_PATH]: {
    get: {
      operationId: 'getAccountUsage',
      tags: [TAGS.account],
      summary: "The caller's lookups by UTC day",
      description:
        `Every day from \`from\` to \`to\` (UTC, both included; by default the current month up to today; at most ${MAX_USAGE_DAYS} days): ` +
        'lookups by outcome and the credits charged, which are the lines of the ledger (GET /v1/account/charges) that day. ' +
        'Free: no credit, no unit of the rate window.',
      parameters: [
        {
          name: 'from',
          in: 'query',
          description: 'First day, YYYY-MM-DD (UTC); default the first of the month of `to`',
          schema: { type: 'string', format: 'date' },
        },
        {
          name: 'to',
          in: 'query',
          description: 'Last day, YYYY-MM-DD (UTC), included; default today',
          schema: { type: 'string', format: 'date' },
        },
      ],
      responses: {
        '200': {
          description: 'The days, oldest first',
          headers: commonHeaders,
          content: json('AccountUsageDays', {
            data: { from: '2026-11-01', to: '2026-11-03', days: [exampleDay] },
            meta: { took_ms: 4 },
          }),
        },
        ...recordErrors(),
      },
    },
  },
  [ACCOUNT_CHARGES_PATH]: {
    get: {
      operationId: 'getAccountCharges',
      tags: [TAGS.account],
      summary: "The caller's charges, newest first",
      description:
        "One line per credit charged: when, the request that made it (a job: its id), the home's cache key, what read it. " +
        'Every charge of the period is here: their count is `used` of GET /v1/account. ' +
        "`format=csv`: text/csv (RFC 4180; a text cell starting with =, +, -, @, tab or CR has a leading '), " +
        "the next page's cursor in the x-next-cursor header. Free: no credit, no unit of the rate window.",
      parameters: [
        {
          name: 'limit',
          in: 'query',
          description: `Charges per page, 1 to ${MAX_CHARGES_PAGE} (default ${DEFAULT_CHARGES_PAGE})`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_CHARGES_PAGE },
        },
        { name: 'cursor', in: 'query', description: 'next_cursor of the page before', schema: { type: 'string' } },
        {
          name: 'format',
          in: 'query',
          description: 'json (default) or csv',
          schema: { type: 'string', enum: ['json', 'csv'] },
        },
      ],
      responses: {
        '200': {
          description: 'A page of charges',
          headers: {
            ...commonHeaders,
            'x-next-cursor': {
              description: 'format=csv: the cursor of the next page, when there is one',
              schema: { type: 'string' },
            },
          },
          content: {
            ...json('AccountChargesResponse', { data: [exampleCharge], meta: { next_cursor: null, took_ms: 3 } }),
            'text/csv': {
              schema: { type: 'string', description: `Columns: ${CHARGE_CSV_COLUMNS.join(', ')}` },
            },
          },
        },
        ...recordErrors(),
      },
    },
  },
});

// GET /v1/account: the caller's own plan and usage; and its OpenAPI operation.
import type { FastifyInstance } from 'fastify';
import { accountUsage, apiKeyFrom, authenticate } from '../../accounts/index.js';
import type { AccountUsage } from '../../contract/index.js';
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

export function accountRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get(ACCOUNT_PATH, async (request, reply) => {
    try {
      const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKeyFrom(request.headers));
      request.stats.account = account.id;
      const data = await accountUsage(deps.store, account, deps.clock());
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
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

/** The operation in the OpenAPI document. */
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
});

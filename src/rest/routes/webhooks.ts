// Webhook deliveries over REST (docs/watches-and-webhooks.md): GET /v1/webhooks/deliveries lists the account's
// delivery attempts of the last week, newest first, paged by cursor; POST /v1/webhooks/deliveries/{id}/redeliver
// sends that attempt's event again now (the same webhook-id), 202 with the attempt. Thin: the rules are the
// webhooks core's (background.webhooks), the page's checks the contract's. Free: no lookup, no credit, no
// rate-window unit. Another account's attempt is 404 not_found "No such delivery.", as an unknown one. The
// key is checked first. Their OpenAPI operations are at the end.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFrom, authenticate } from '../../accounts/index.js';
import type { Background } from '../../background.js';
import {
  DEFAULT_DELIVERIES_PAGE,
  deliveryCursor,
  deliveryPageSize,
  MAX_DELIVERIES_PAGE,
  WEBHOOK_DELIVERIES_KEEP_DAYS,
  WEBHOOK_DELIVERIES_KEPT,
  type WebhookDeliveryShape,
} from '../../contract/webhook-deliveries.js';
import type { CoreDeps } from '../../lookup/index.js';
import type { Account } from '../../store/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { bodyAsText } from '../../http/json-body.js';
import { idOf, queryOf } from '../params.js';
import { commonHeaders, resourceErrors, TAGS, type Json, type OpenApiPaths } from '../openapi/shared.js';

export const DELIVERIES_PATH = '/v1/webhooks/deliveries';

export async function webhooksRoute(app: FastifyInstance, deps: CoreDeps, background: Background): Promise<void> {
  const webhooks = () => background.webhooks;
  /** Runs `handle` as the caller's account (the key first), answering its LookupError in the envelope. */
  const route =
    (
      allowed: readonly string[],
      handle: (account: Account, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const account = await authenticate(
          deps.store,
          deps.config.apiKeySecret,
          apiKeyFrom(request.headers),
          deps.auth,
        );
        request.stats.account = account.id;
        queryOf(request, allowed);
        return await handle(account, request, reply);
      } catch (e) {
        return sendError(reply, e);
      }
    };

  app.get(
    DELIVERIES_PATH,
    route(['limit', 'cursor'], async (account, request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      const limit = deliveryPageSize(query.limit, 'limit');
      const page = await webhooks().deliveries(account, { limit, cursor: deliveryCursor(query.cursor, 'cursor') });
      return reply.send({ data: page.deliveries, meta: { next_cursor: page.next_cursor, took_ms: tookMs(reply) } });
    }),
  );
  await app.register(async (scope) => {
    // No body is read: a client that sends content-type: application/json on every request (and no body, or
    // an empty object) is not refused for it.
    bodyAsText(scope);
    scope.post(
      `${DELIVERIES_PATH}/:id/redeliver`,
      route([], async (account, request, reply) => {
        const data = await webhooks().redeliver(account, idOf(request));
        return reply.code(202).send({ data, meta: { took_ms: tookMs(reply) } });
      }),
    );
  });
}

const exampleDelivery: WebhookDeliveryShape = {
  id: 'dlv_1791633600000-0',
  webhook_id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  type: 'job.completed',
  url: 'https://example.com/hooks/portal',
  attempt: 2,
  redelivery: false,
  ok: false,
  status: 500,
  error: 'answered 500',
  duration_ms: 84,
  next_retry_at: '2026-10-09T12:01:00.000Z',
  at: '2026-10-09T12:00:00.000Z',
};

/** The operations in the OpenAPI document (docs/watches-and-webhooks.md). */
export const webhooksPaths = (): OpenApiPaths => ({
  [DELIVERIES_PATH]: {
    get: {
      operationId: 'listWebhookDeliveries',
      tags: [TAGS.webhooks],
      summary: "The account's webhook delivery attempts, newest first",
      description:
        `Every attempt to deliver a job.completed, job.failed or property.changed event to the account's URLs: the receiver's status or the ` +
        `network error, how long it took, and when the next attempt is due. Kept ${WEBHOOK_DELIVERIES_KEEP_DAYS} days, at most ` +
        `${WEBHOOK_DELIVERIES_KEPT.toLocaleString('en-US')} per account. Free: no lookup is made.`,
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Attempts per page, 1 to ${MAX_DELIVERIES_PAGE}; ${DEFAULT_DELIVERIES_PAGE} when omitted`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_DELIVERIES_PAGE },
        },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "meta.next_cursor of the page before; one not of an attempt id's form is 400 bad_param",
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'A page of delivery attempts',
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/WebhookDeliveryListResponse' },
              example: { data: [exampleDelivery], meta: { next_cursor: null, took_ms: 4 } } as unknown as Json,
            },
          },
        },
        ...resourceErrors(),
      },
    },
  },
  [`${DELIVERIES_PATH}/{id}/redeliver`]: {
    post: {
      operationId: 'redeliverWebhook',
      tags: [TAGS.webhooks],
      summary: "Send an attempt's event again, now",
      description:
        'The same event (the same webhook-id and body, signed for now with the current secret) to the same URL, one attempt, ' +
        'recorded in the list as a redelivery; a receiver that dedupes on webhook-id stays correct. ' +
        "Another account's attempt, or one no longer kept, is 404 not_found (No such delivery.). Free: no lookup is made.",
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'The attempt id (id of an attempt in the list)',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '202': {
          description: 'The redelivery is queued: the attempt whose event is sent again',
          headers: commonHeaders,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/WebhookDeliveryResponse' },
              example: { data: exampleDelivery, meta: { took_ms: 3 } } as unknown as Json,
            },
          },
        },
        ...resourceErrors(),
      },
    },
  },
});

// Watched homes over REST (docs/watches-and-webhooks.md): POST /v1/portal/watches makes one (201, location),
// GET lists the account's or reads one, DELETE ends one (204). Thin: the body is read by the contract's
// parseWatchBody, every other rule is the watches core's (background.watches). Another account's
// watch is 404 not_found "No such watch.", as one that does not exist. The key is checked first. Their
// OpenAPI operations are at the end.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFrom, authenticate } from '../../accounts/index.js';
import type { Background } from '../../background.js';
import { LOCATOR_KEYS, parseWatchBody } from '../../contract/index.js';
import { MAX_WATCHES_PER_ACCOUNT, type WatchViewShape } from '../../contract/watches.js';
import type { CoreDeps } from '../../lookup/index.js';
import type { Account } from '../../store/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { bodyAsText, parseJsonBody } from '../../http/json-body.js';
import { idOf, queryOf } from '../params.js';
import {
  commonHeaders,
  errorResponses,
  REQUEST_LEVEL_CODES,
  resourceErrors,
  sharedResponses,
  TAGS,
  type Json,
  type OpenApiPaths,
} from '../openapi/shared.js';

export const WATCHES_PATH = '/v1/portal/watches';

const BODY_MESSAGE = 'The body must be a JSON object with one locator, webhook_url and interval_hours.';

export async function watchesRoute(app: FastifyInstance, deps: CoreDeps, background: Background): Promise<void> {
  const watches = () => background.watches;
  /** Runs `handle` as the caller's account (the key first), answering its LookupError in the envelope. */
  const route =
    (handle: (account: Account, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const account = await authenticate(
          deps.store,
          deps.config.apiKeySecret,
          apiKeyFrom(request.headers),
          deps.auth,
        );
        request.stats.account = account.id;
        queryOf(request, []);
        return await handle(account, request, reply);
      } catch (e) {
        return sendError(reply, e);
      }
    };

  await app.register(async (scope) => {
    // Any content-type is read as JSON, as on the batch route.
    bodyAsText(scope);
    scope.post(
      WATCHES_PATH,
      route(async (account, request, reply) => {
        const { locator, webhookUrl, intervalHours } = parseWatchBody(parseJsonBody(request.body, BODY_MESSAGE));
        const data = await watches().create(account, { locator, webhookUrl, intervalHours });
        return reply
          .code(201)
          .header('location', `${WATCHES_PATH}/${encodeURIComponent(data.id)}`)
          .send({ data, meta: { took_ms: tookMs(reply) } });
      }),
    );
    // Here too: a DELETE sent with content-type application/json and no body (clients that set it on every
    // request) is no unreadable body.
    scope.delete(
      `${WATCHES_PATH}/:id`,
      route(async (account, request, reply) => {
        await watches().remove(account, idOf(request));
        return reply.code(204).send();
      }),
    );
  });
  app.get(
    WATCHES_PATH,
    route(async (account, _request, reply) => {
      const data = await watches().list(account);
      return reply.send({ data, meta: { count: data.length, took_ms: tookMs(reply) } });
    }),
  );
  app.get(
    `${WATCHES_PATH}/:id`,
    route(async (account, request, reply) => {
      const data = await watches().get(account, idOf(request));
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
    }),
  );
}

const exampleWatch: WatchViewShape = {
  id: 'w_3f9a0c1d2e4b4f6a8c0e1f2a3b4c5d6e',
  zpid: '15192198',
  webhook_url: 'https://example.com/hooks/portal',
  interval_hours: 24,
  created_at: '2026-10-09T12:00:00.000Z',
  home_zpid: '15192198',
  last_checked_at: '2026-10-10T12:00:00.000Z',
  next_check_at: '2026-10-11T12:00:00.000Z',
  last_error: null,
};
const watchIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The watch id (the location header of its creation)',
  schema: { type: 'string' },
};
/** A watch or the account's watches, as answered. */
const watchAnswer = (description: string, list: boolean) => {
  const data: Json = list
    ? { type: 'array', items: { $ref: '#/components/schemas/Watch' } }
    : { $ref: '#/components/schemas/Watch' };
  const meta: Json = {
    type: 'object',
    required: ['took_ms'],
    properties: list ? { took_ms: { type: 'integer' }, count: { type: 'integer' } } : { took_ms: { type: 'integer' } },
  };
  return {
    description,
    headers: commonHeaders,
    content: {
      'application/json': {
        schema: { type: 'object', required: ['data', 'meta'], properties: { data, meta } },
        example: {
          data: list ? [exampleWatch] : exampleWatch,
          meta: list ? { took_ms: 3, count: 1 } : { took_ms: 3 },
        } as unknown as Json,
      },
    },
  };
};

/** The operations in the OpenAPI document: POST/GET /v1/portal/watches and GET/DELETE /v1/portal/watches/{id} (docs/watches-and-webhooks.md). */
export const watchesPaths = (): OpenApiPaths => ({
  [WATCHES_PATH]: {
    post: {
      operationId: 'createWatch',
      tags: [TAGS.watches],
      summary: 'Watch a home',
      description:
        `The home (one of ${LOCATOR_KEYS.join(', ')}) is read live every interval_hours, the first time at once; each check is billed like a lookup ` +
        '(1 credit when read live; a failed check is not billed and shows in last_error). When price, status, estimate, rent estimate or HOA differ ' +
        'from the last check, a signed property.changed webhook goes to webhook_url with { zpid, changes: [{ field, from, to }], data: the PortalProperty }. ' +
        `At most ${MAX_WATCHES_PER_ACCOUNT.toLocaleString('en-US')} watches per account (then 429 rate_limited, details.limit "watches").`,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/WatchRequest' },
            example: { zpid: '15192198', webhook_url: 'https://example.com/hooks/portal', interval_hours: 24 },
          },
        },
      },
      responses: {
        '201': {
          ...watchAnswer('The watch; its first check runs at once', false),
          headers: {
            ...commonHeaders,
            location: { description: 'The watch: `/v1/portal/watches/<id>`', schema: { type: 'string' } },
          },
        },
        ...errorResponses([400], (c) => c === 'bad_body' || c === 'bad_param' || c === 'missing_param'),
        ...errorResponses([401]),
        ...errorResponses([429]),
        ...errorResponses([500]),
        ...errorResponses([503], (c) => c === 'store_unavailable' || c === 'upstream_busy'),
        ...sharedResponses(REQUEST_LEVEL_CODES),
      },
    },
    get: {
      operationId: 'listWatches',
      tags: [TAGS.watches],
      summary: "The account's watches",
      description: 'Newest first. Free: no lookup is made.',
      responses: { '200': watchAnswer("The account's watches", true), ...resourceErrors() },
    },
  },
  [`${WATCHES_PATH}/{id}`]: {
    get: {
      operationId: 'getWatch',
      tags: [TAGS.watches],
      summary: 'A watch',
      description: "Another account's watch is 404 not_found (No such watch.).",
      parameters: [watchIdParameter],
      responses: { '200': watchAnswer('The watch', false), ...resourceErrors() },
    },
    delete: {
      operationId: 'deleteWatch',
      tags: [TAGS.watches],
      summary: 'Stop watching a home',
      description:
        "Its schedule is removed: no more checks or charges. 204 with no body; another account's watch is 404 not_found.",
      parameters: [watchIdParameter],
      responses: { '204': { description: 'Removed', headers: commonHeaders }, ...resourceErrors() },
    },
  },
});

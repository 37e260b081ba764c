// Watched homes over REST (docs/watches-and-webhooks.md): POST /v1/portal/watches makes one (201, location),
// GET lists the account's or reads one, DELETE ends one (204). Thin: the body is read by the contract's
// parseWatchBody, every other rule is the watches core's (background.watches). Another account's
// watch is 404 not_found "No such watch.", as one that does not exist. The key is checked first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../../accounts/index.js';
import { parseWatchBody } from '../../contract/index.js';
import type { Background } from '../../background.js';
import type { CoreDeps } from '../../lookup/index.js';
import type { Account } from '../../store/index.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { bodyAsText, parseJsonBody } from '../../http/json-body.js';
import { idOf, queryOf } from '../params.js';

export const WATCHES_PATH = '/v1/portal/watches';

const BODY_MESSAGE = 'The body must be a JSON object with one locator, webhook_url and interval_hours.';

export async function watchesRoute(app: FastifyInstance, deps: CoreDeps, background: Background): Promise<void> {
  const watches = () => background.watches;
  /** Runs `handle` as the caller's account (the key first), answering its LookupError in the envelope. */
  const route = (handle: (account: Account, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const account = await authenticate(deps.store, deps.config.apiKeySecret, request.headers['x-api-key'], deps.auth);
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
    scope.post(WATCHES_PATH, route(async (account, request, reply) => {
      const { locator, webhookUrl, intervalHours } = parseWatchBody(parseJsonBody(request.body, BODY_MESSAGE));
      const data = await watches().create(account, { locator, webhookUrl, intervalHours });
      return reply.code(201).header('location', `${WATCHES_PATH}/${encodeURIComponent(data.id)}`).send({ data, meta: { took_ms: tookMs(reply) } });
    }));
    // Here too: a DELETE sent with content-type application/json and no body (clients that set it on every
    // request) is no unreadable body.
    scope.delete(`${WATCHES_PATH}/:id`, route(async (account, request, reply) => {
      await watches().remove(account, idOf(request));
      return reply.code(204).send();
    }));
  });
  app.get(WATCHES_PATH, route(async (account, _request, reply) => {
    const data = await watches().list(account);
    return reply.send({ data, meta: { count: data.length, took_ms: tookMs(reply) } });
  }));
  app.get(`${WATCHES_PATH}/:id`, route(async (account, request, reply) => {
    const data = await watches().get(account, idOf(request));
    return reply.send({ data, meta: { took_ms: tookMs(reply) } });
  }));
}

// GET /v1/account: the caller's own plan and usage.
import type { FastifyInstance } from 'fastify';
import { accountUsage, authenticate } from '../../accounts/index.js';
import type { CoreDeps } from '../../lookup/index.js';
import { sendError, tookMs } from '../../http/envelope.js';

export function accountRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get('/v1/account', async (request, reply) => {
    try {
      const account = await authenticate(deps.store, deps.config.apiKeySecret, request.headers['x-api-key']);
      request.stats.account = account.id;
      const data = await accountUsage(deps.store, account, deps.clock());
      return reply.send({ data, meta: { took_ms: tookMs(reply) } });
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

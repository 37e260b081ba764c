// /healthz: the process answers. /readyz: it can serve lookups (the store is reachable).
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../../lookup/index.js';
import { sendError } from '../envelope.js';

export function healthRoutes(app: FastifyInstance, deps: CoreDeps): void {
  app.route({ method: ['GET', 'HEAD'], url: '/healthz', handler: async (_request, reply) => reply.send({ status: 'ok' }) });
  app.route({ method: ['GET', 'HEAD'], url: '/readyz', handler: async (_request, reply) => {
    try {
      await deps.store.ping();
      return reply.send({ status: 'ready', store: deps.store.kind });
    } catch (e) {
      return sendError(reply, e);
    }
  } });
}

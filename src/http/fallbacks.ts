// Everything that is not a route answers in the same envelope: unknown paths (404), known paths
// with the wrong method (405), and bodies or requests Fastify itself refused.
import type { FastifyError, FastifyInstance } from 'fastify';
import { LookupError } from '../contract/index.js';
import { sendError } from './envelope.js';

export function fallbackHandlers(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = (['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const).filter((m) => app.hasRoute({ url: path, method: m }));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, new LookupError('method_not_allowed', {
        message: `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`,
        details: { allowed },
      }));
    }
    return sendError(reply, new LookupError('route_not_found', { message: `No route ${request.method} ${path}.`, details: { path } }));
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error instanceof LookupError) return sendError(reply, error);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, new LookupError('bad_body', { details: { reason: 'body is larger than 1 MB' } }));
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, new LookupError('bad_param', { message: error.message, details: { reason: error.code ?? 'bad request' } }));
    }
    return sendError(reply, error);
  });
}

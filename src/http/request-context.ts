// From a Fastify request to the core's request context: who is calling, and a signal that
// aborts when the client goes away (made only if a lookup needs it: a cache hit never does).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyFrom } from '../accounts/index.js';
import { openRequest, type CoreDeps, type RequestContext } from '../lookup/index.js';
import { requestIdOf } from '../observability/http.js';

export function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  // The request's stop controller: the drain aborts it too, when it gives up on the request at shutdown.
  const controller = request.server.drain.controllerOf(request);
  // Made late (on a miss): the client may already be gone.
  if (request.raw.socket?.destroyed && !reply.raw.writableFinished)
    controller.abort(new Error('client closed the connection'));
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  request.raw.on('aborted', () => controller.abort(new Error('client aborted the request')));
  return controller.signal;
}

export async function contextFor(
  deps: CoreDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  deadlineMs?: number,
): Promise<RequestContext> {
  return openRequest(deps, apiKeyFrom(request.headers), {
    ...requestIdOf(request),
    // The core fills the request's stats (lookups, credits, rate window): the log line and headers read them.
    stats: request.stats,
    signal: () => clientGone(request, reply),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  });
}

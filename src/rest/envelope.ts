// How REST writes errors: the spec's envelope, status from the one code table, retry-after.
import type { FastifyReply } from 'fastify';
import { failureOf } from '../lookup/index.js';

export const tookMs = (reply: FastifyReply): number => Math.round(reply.elapsedTime);

/** The headers every response carries (spec 4, 7, 9). */
export function v1Headers(reply: FastifyReply): void {
  reply.header('x-api-version', 'v1');
  // Only the hashed static assets (web/assets.ts) set their own: a year, immutable.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  reply.header('x-request-id', String(reply.request.id));
}

/** Sends JSON text built by the route (records are spliced in as the cache keeps them, not re-serialized). */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

export function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  const err = failureOf(e, reply.log);
  const retryAfter = err.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  reply.code(err.status).send({ error: err.toBody(), meta: { took_ms: tookMs(reply) } });
  return reply;
}

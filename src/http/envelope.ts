// How REST writes errors: the spec's envelope, status from the one code table, retry-after.
import type { FastifyReply } from 'fastify';
import { rateLimitField } from '../contract/rate-limit.js';
import { failureOf } from '../lookup/index.js';

export const tookMs = (reply: FastifyReply): number => Math.round(reply.elapsedTime);

/**
 * The headers every response carries (spec 4, 7, 9), and the per-key limit (IETF RateLimit fields):
 * the policy on every answer while there is a limit, the key's window once a request has taken from it.
 */
export function v1Headers(reply: FastifyReply): void {
  reply.header('x-api-version', 'v1');
  // Only the hashed static assets (site/assets.ts) set their own: a year, immutable.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  reply.header('x-request-id', String(reply.request.id));
  const policy = reply.server.rateLimitPolicy;
  if (policy) reply.header('ratelimit-policy', policy);
  const window = (reply.request.stats as FastifyReply['request']['stats'] | null)?.rate;
  if (window) reply.header('ratelimit', rateLimitField(window));
}

/** Sends JSON text built by the route (records are spliced in as the cache keeps them, not re-serialized). */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/** The error envelope; `meta.request_id` (an addition to spec 2.6) names the request in our logs. */
export function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  const err = failureOf(e, reply.log);
  (reply.request.stats as FastifyReply['request']['stats'] | null)?.answered(err.code);
  const retryAfter = err.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  reply
    .code(err.status)
    .send({ error: err.toBody(), meta: { took_ms: tookMs(reply), request_id: String(reply.request.id) } });
  return reply;
}

// How REST writes errors: the spec's envelope, status from the one code table, retry-after.
import type { FastifyReply } from 'fastify';
import { toLookupError } from '../contract/index.js';

export const tookMs = (reply: FastifyReply): number => Math.round(reply.elapsedTime);

export function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  const err = toLookupError(e);
  if (err.code === 'internal') reply.log.error({ err: e }, 'internal error');
  const retryAfter = err.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  reply.code(err.status).send({ error: err.toBody(), meta: { took_ms: tookMs(reply) } });
  return reply;
}

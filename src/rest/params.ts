// The path and query parameters of the REST routes that own their parameters (jobs, watches): which query
// parameters a route takes, refused with bad_param otherwise, and the `:id` of a resource route.
import type { FastifyRequest } from 'fastify';
import { LookupError } from '../contract/index.js';

export const badParam = (param: string, reason: string): LookupError =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

/** The query, refusing parameters other than `allowed` (and any sent twice). */
export function queryOf(request: FastifyRequest, allowed: readonly string[]): Record<string, string> {
  const query = request.query as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    if (!allowed.includes(k))
      throw badParam(
        k,
        allowed.length === 0
          ? 'this route takes no query parameters'
          : `unknown parameter (expected ${allowed.join(', ')})`,
      );
    if (Array.isArray(v)) throw badParam(k, 'sent more than once');
  }
  return query as Record<string, string>;
}

/** The route's `:id`. */
export const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

// Anything a lookup or a request threw, as the LookupError a client is answered with. Every face
// goes through here, so an unexpected failure (masked as `internal`: a bug, never the client's) is
// logged once, with what was really thrown, and nothing else is logged as an error.
import { toLookupError, type LookupError } from '../contract/index.js';

/** What the helper logs to: the request's logger (pino), Fastify's reply.log. */
export interface ErrorLog {
  error(obj: object, msg: string): void;
}

export function failureOf(
  e: unknown,
  log: ErrorLog,
  msg = 'internal error',
  bindings: Record<string, unknown> = {},
): LookupError {
  const err = toLookupError(e);
  if (err.code === 'internal') log.error({ err: e, ...bindings }, msg);
  return err;
}

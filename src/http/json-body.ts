// Routes whose body is JSON whatever content-type the client sent (docs/behaviour.md, 4.2 rule 4: the batch and watch routes),
// read as text after authentication (a bad key is reported as such even when the body is bad too), then
// parsed with the spec's bad_body refusals.
import type { FastifyInstance } from 'fastify';
import { LookupError, MAX_BODY_BYTES } from '../contract/index.js';

/** In `scope`: any content-type, even one Fastify cannot parse ("aaaa", a list), is kept as the body's text. */
export function bodyAsText(scope: FastifyInstance): void {
  scope.addHook('onRequest', (request, _reply, next) => {
    request.raw.headers['content-type'] = 'application/json';
    next();
  });
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
    done(null, body),
  );
}

/** The body's JSON; an empty or unreadable body is bad_body (with the route's own message, when it has one). */
export function parseJsonBody(text: unknown, message?: string): unknown {
  if (typeof text !== 'string' || text.trim() === '')
    throw new LookupError('bad_body', { ...(message ? { message } : {}), details: { reason: 'body is empty' } });
  try {
    return JSON.parse(text);
  } catch {
    throw new LookupError('bad_body', {
      ...(message ? { message } : {}),
      details: { reason: 'body is not valid JSON' },
    });
  }
}

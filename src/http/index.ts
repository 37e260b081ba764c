// The server's HTTP layer, below every face and owned by none: the envelope and v1 headers on every
// answer, the drain, what is answered where no route is, the request's context and body reading.
import type { FastifyInstance } from 'fastify';
import { drainHooks } from './drain.js';
import { v1Headers } from './envelope.js';
import { fallbackHandlers } from './fallbacks.js';

export { addErrorFormat, clientError, frameworkError, type ErrorFormat } from './fallbacks.js';
export { Drain, stopSignal } from './drain.js';
export { sendError } from './envelope.js';

/** The layer's hooks and handlers on `app`, before any face registers its routes. */
export function registerHttp(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise and a microtask on every answer.
  app.addHook('onSend', (_request, reply, payload, done) => {
    v1Headers(reply);
    done(null, payload);
  });
  fallbackHandlers(app);
  drainHooks(app);
}

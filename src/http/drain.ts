// Graceful stop, request by request. Every request gets one stop controller: it aborts when the client
// goes away (request-context.ts) or when the drain gives up on the request's work (server.ts, at the end
// of SHUTDOWN_GRACE_MS), so the core's abort path releases the request's reservations. While draining,
// new requests are refused (503 upstream_busy, reason shutting_down) and every answer closes its connection, so no keep-alive
// socket outlives the drain.
import { setMaxListeners } from 'node:events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { instanceBusy } from '../contract/index.js';
import { answerError } from './fallbacks.js';

export class Drain {
  #draining = false;
  /** Requests whose handler has not answered yet, with their stop controllers. */
  readonly #working = new Map<FastifyRequest, AbortController>();
  #idle: Array<() => void> = [];

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#working.size;
  }

  start(): void {
    this.#draining = true;
  }

  /** The request's stop controller (created on first use). */
  controllerOf(request: FastifyRequest): AbortController {
    let c = this.#working.get(request);
    if (!c) {
      c = new AbortController();
      // Each item of a batch listens to its request's signal: up to 50 listeners is the design, not a leak.
      setMaxListeners(0, c.signal);
      this.#working.set(request, c);
    }
    return c;
  }

  /** The request was answered (or its handler gave up): it no longer holds the drain. */
  done(request: FastifyRequest): void {
    if (!this.#working.delete(request) || this.#working.size > 0) return;
    const waiting = this.#idle;
    this.#idle = [];
    for (const wake of waiting) wake();
  }

  /** Resolves once every handler has answered. */
  whenIdle(): Promise<void> {
    if (this.#working.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Aborts the work of every request still running; the core releases their reservations. */
  abortAll(): void {
    const reason = instanceBusy('shutting_down', {
      message: 'The instance stopped before the lookup finished. Retry; another instance answers.',
    });
    for (const c of this.#working.values()) c.abort(reason);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain;
  }
}

/**
 * The signal a request's lookups run under: its stop controller, also aborted by `also` (GraphQL's
 * client-gone signal).
 */
export function stopSignal(request: FastifyRequest, also?: AbortSignal): AbortSignal {
  const c = request.server.drain.controllerOf(request);
  if (also) {
    if (also.aborted) c.abort(also.reason);
    else also.addEventListener('abort', () => c.abort(also.reason), { once: true });
  }
  return c.signal;
}

export function drainHooks(app: FastifyInstance): void {
  const drain = app.drain;
  app.addHook('onRequest', (request, reply, next) => {
    if (!drain.draining) return next();
    answerError(request, reply, instanceBusy('shutting_down'));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    drain.done(request);
    if (drain.draining && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request) => drain.done(request));
}

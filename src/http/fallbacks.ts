// Everything that is not a route answers in the same envelope: unknown paths (404), known paths
// with the wrong method (405), requests Fastify itself refused (a malformed URL, a bad body), and
// requests Node's HTTP parser refused before Fastify saw them (oversized headers, garbage).
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge, LookupError } from '../contract/index.js';
import { sendError, v1Headers } from './envelope.js';

/** Fastify's `frameworkErrors` option: a malformed URL and the like, before routing. */
export function frameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // Refused before routing, so no hook runs for this reply.
  v1Headers(reply);
  sendError(reply, new LookupError('bad_param', { message: 'The request URL is malformed.', details: { param: 'url', reason: error.code } }));
}

/** Fastify's `clientErrorHandler`: the raw socket, as Node's parser gave up on the request. */
export function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const e =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new LookupError('request_timeout')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new LookupError('headers_too_large')
        : new LookupError('bad_param', { message: 'The request could not be parsed.', details: { reason: err.code ?? 'parse error' } });
  const body = JSON.stringify({ error: e.toBody(), meta: { took_ms: 0 } });
  socket.end(
    `HTTP/1.1 ${e.status} ${e.code}\r\ncontent-type: application/json; charset=utf-8\r\nx-api-version: v1\r\n` +
      `cache-control: no-store\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

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
      return sendError(reply, bodyTooLarge());
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, new LookupError('bad_param', { message: error.message, details: { reason: error.code ?? 'bad request' } }));
    }
    return sendError(reply, error);
  });
}

// Everything that is not a route answers in the same envelope (on a face's own paths, in that face's
// format: GraphQL registers its own with addErrorFormat, so this shared layer imports no face), with
// the v1 headers: unknown paths (404), known paths with the wrong method (405), requests Fastify itself
// refused (a malformed URL, an unreadable body), and requests Node's HTTP server refused before Fastify
// saw them (unparsable or oversized headers, a missing Host, an unsupported Expect, headers or body
// too slow). Details say what the client can change, never a framework's or parser's internal code.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge, LookupError, toLookupError } from '../contract/index.js';
import { failureOf } from '../lookup/index.js';
import { sendError, v1Headers } from './envelope.js';

/** A face's own way of answering an error on its paths (GraphQL's, on /graphql). */
export interface ErrorFormat {
  matches(url: string): boolean;
  send(reply: FastifyReply, err: LookupError): FastifyReply;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The faces' error formats (addErrorFormat); the envelope on every other path. */
    errorFormats: ErrorFormat[];
  }
}

/** Makes `format` answer the errors of the paths it matches, on this app. */
export function addErrorFormat(app: FastifyInstance, format: ErrorFormat): void {
  app.errorFormats.push(format);
}

/** An error for this request, in the format of the face it was sent to. */
export function answerError(request: FastifyRequest, reply: FastifyReply, e: unknown): FastifyReply {
  const format = request.server.errorFormats?.find((f) => f.matches(request.url));
  return format ? format.send(reply, failureOf(e, reply.log)) : sendError(reply, e);
}

/** Fastify's `frameworkErrors` option: a malformed URL and the like, before routing. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Refused before routing, so no hook runs for this reply.
  v1Headers(reply);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    // A path segment longer than any id (a job's, a watch's): nothing is there, the URL itself is fine.
    const path = request.url.split('?')[0]!;
    answerError(
      request,
      reply,
      new LookupError('route_not_found', {
        message: `No route ${request.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}.`,
        details: { reason: 'a path segment is longer than 100 characters' },
      }),
    );
    return;
  }
  answerError(
    request,
    reply,
    new LookupError('bad_param', {
      message: 'The request URL is malformed.',
      details: { param: 'url', reason: 'the path or query is not valid percent-encoded UTF-8' },
    }),
  );
}

/** What a client can change, for each way Node's parser refuses a request. */
function parserRefusal(code: string | undefined): LookupError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new LookupError('request_timeout', { details: { reason: 'the headers or body did not arrive in time' } });
    case 'HPE_HEADER_OVERFLOW':
      return new LookupError('headers_too_large');
    case 'HPE_INVALID_METHOD':
      return new LookupError('bad_param', {
        message: 'The request could not be parsed.',
        details: { reason: 'unknown HTTP method' },
      });
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new LookupError('bad_param', {
        message: 'The request could not be parsed.',
        details: { reason: 'invalid content-length header' },
      });
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return new LookupError('bad_param', {
        message: 'The request could not be parsed.',
        details: { reason: 'invalid chunked body' },
      });
    default:
      return new LookupError('bad_param', {
        message: 'The request could not be parsed.',
        details: { reason: 'not a valid HTTP/1.1 request' },
      });
  }
}

function rawHead(e: LookupError, length: number, requestId: string): Record<string, string> {
  const retryAfter = e.retryAfterSeconds;
  return {
    'content-type': 'application/json; charset=utf-8',
    'x-api-version': 'v1',
    'cache-control': 'no-store',
    'x-request-id': requestId,
    ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
    connection: 'close',
    'content-length': String(length),
  };
}

const envelopeText = (e: LookupError, requestId: string): string =>
  JSON.stringify({ error: e.toBody(), meta: { took_ms: 0, request_id: requestId } });

/** Fastify's `clientErrorHandler`: the raw socket, as Node's parser gave up on the request. */
export function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const e = parserRefusal(err.code);
  const id = randomUUID();
  const body = envelopeText(e, id);
  const head = Object.entries(rawHead(e, Buffer.byteLength(body), id))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${e.status} ${e.code}\r\n${head}\r\n${body}`);
}

/** Node's `checkExpectation`: an Expect other than 100-continue, refused (417) in the envelope. */
function expectationFailed(_req: IncomingMessage, res: ServerResponse): void {
  const e = new LookupError('expectation_failed', { details: { header: 'expect', supported: ['100-continue'] } });
  const id = randomUUID();
  const body = envelopeText(e, id);
  res.writeHead(e.status, rawHead(e, Buffer.byteLength(body), id));
  res.end(body);
}

/**
 * RFC 3986's host[:port] (an IP literal or a reg-name's characters), which a URL then parses: URL.canParse
 * alone takes `&\` (WHATWG reads the backslash as a slash), and GraphQL's URL then had the path `//graphql`
 * (Yoga's own 404, text/plain; found by the socket fuzz).
 */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[\w\-.~!$&'()*+,;=%]+)(?::\d*)?$/;
const isAuthority = (host: string): boolean => AUTHORITY.test(host) && URL.canParse(`http://${host}/`);

/** A Fastify error as the code a client can act on. */
function fromFastifyError(error: FastifyError, request: FastifyRequest): LookupError {
  if (error instanceof LookupError) return error;
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) return bodyTooLarge();
  if (status === 415)
    return new LookupError('unsupported_media_type', {
      details: { header: 'content-type', supported: ['application/json'] },
    });
  if (status >= 400 && status < 500) {
    // Only the batch route and /graphql read bodies; anything wrong while reading one is the body's fault.
    const code = request.method === 'POST' ? 'bad_body' : 'bad_param';
    return new LookupError(code, {
      message: 'The request could not be read.',
      details: { reason: 'the body ended early or does not match its content-length' },
    });
  }
  return toLookupError(error);
}

export function fallbackHandlers(app: FastifyInstance): void {
  app.decorate('errorFormats', []);
  app.server.on('checkExpectation', expectationFailed);

  // HTTP/1.1 requires a Host header (Node's own refusal, requireHostHeader, would be an empty 400), and
  // one that can be an authority (RFC 9112 3.2: else 400; GraphQL builds its request URL from it).
  // The last Host found valid: nearly every request repeats it, and URL.canParse costs 2 % of a REST hit.
  let validHost: string | undefined;
  app.addHook('onRequest', (request, reply, next) => {
    const host = request.headers.host;
    if (host !== undefined && host === validHost) return next();
    if (host === undefined ? request.raw.httpVersion !== '1.1' : isAuthority(host)) {
      if (host !== undefined) validHost = host;
      return next();
    }
    const reason = host === undefined ? 'missing' : 'not a valid host[:port]';
    answerError(
      request,
      reply,
      new LookupError('bad_param', { message: 'Send a valid Host header.', details: { header: 'host', reason } }),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // hasRoute reads its url as a route pattern: a path with a wildcard or parameter mark is no route of ours.
    const allowed = /[*:]/.test(path)
      ? []
      : (['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const).filter((m) => app.hasRoute({ url: path, method: m }));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      // The server's own 405, in the envelope on every path (/graphql included: docs/graphql.md).
      return sendError(
        reply,
        new LookupError('method_not_allowed', {
          message: `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`,
          details: { allowed },
        }),
      );
    }
    return sendError(
      reply,
      new LookupError('route_not_found', { message: `No route ${request.method} ${path}.`, details: { path } }),
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) =>
    answerError(request, reply, fromFastifyError(error, request)),
  );
}

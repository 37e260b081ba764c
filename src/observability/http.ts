// The HTTP side of observability, for both faces (one Fastify server): the request id, each request's
// stats object (filled by the core, read by the log line and the RateLimit header), the request
// counter, and GET /metrics (on the main port behind METRICS_TOKEN, or on its own port).
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LookupError } from '../contract/index.js';
import type { ServiceMetrics } from './metrics.js';
import { RequestStats } from './request-stats.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What this request did (account, lookups, credits, upstream time, rate window). */
    stats: RequestStats;
  }
  interface FastifyInstance {
    metrics: ServiceMetrics;
    /** The RateLimit-Policy field's value, null without a per-key limit. */
    rateLimitPolicy: string | null;
    /** The separate /metrics listener (METRICS_PORT), once the app is ready (before listen() resolves). */
    metricsServer: http.Server | null;
  }
}

/** A client's x-request-id is used when it is a plain token a log line and a header can carry as is. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$/;

export function clientRequestId(header: string | string[] | undefined): string | null {
  const v = Array.isArray(header) ? header[0] : header;
  return v !== undefined && SANE_REQUEST_ID.test(v) ? v : null;
}

/** What a face hands the core about a request's id: whether the client chose it decides if the ledger may use it. */
export const requestIdOf = (request: FastifyRequest): { requestId: string; clientChoseRequestId: boolean } => ({
  requestId: String(request.id),
  clientChoseRequestId: clientRequestId(request.headers['x-request-id']) === request.id,
});

/** The route pattern a request matched (a label with few values), or `unmatched`. */
const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

export function observeHttp(app: FastifyInstance, metrics: ServiceMetrics, rateLimitPolicy: string | null): void {
  app.decorate('metrics', metrics);
  app.decorate('rateLimitPolicy', rateLimitPolicy);
  app.decorateRequest('stats', null as unknown as RequestStats);
  app.addHook('onRequest', (request, _reply, done) => {
    request.stats = new RequestStats();
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequests.inc({ route: routeOf(request), method: request.method, status: String(reply.statusCode) });
    done();
  });
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison of a bearer token with the configured one: digests of equal length, so no early return tells the token's length. */
export function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** null when the authorization header carries the token; else the refusal (401, in the envelope). */
function refusal(authorization: string | undefined, token: string): LookupError | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) {
    return new LookupError('missing_api_key', {
      message: 'Send the metrics token in the authorization header: Bearer <METRICS_TOKEN>.',
      details: { header: 'authorization', scheme: 'Bearer' },
    });
  }
  if (!sameToken(match[1]!, token)) {
    return new LookupError('invalid_api_key', {
      message: 'The metrics token is not valid.',
      details: { header: 'authorization', scheme: 'Bearer' },
    });
  }
  return null;
}

/**
 * GET /metrics on the main port, only with METRICS_TOKEN as a bearer token; without a token
 * configured there is no such route (404 route_not_found).
 */
export function metricsRoute(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  token: string | null,
  sendError: (reply: FastifyReply, e: unknown) => FastifyReply,
): void {
  if (!token) return;
  app.get('/metrics', async (request, reply) => {
    const refused = refusal(request.headers.authorization, token);
    if (refused) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendError(reply, refused);
    }
    const { text, contentType } = await metrics.render();
    return reply.type(contentType).send(text);
  });
}

/**
 * The /metrics listener on its own port (METRICS_PORT): no token, meant for a private network. A port
 * that cannot be bound rejects with the address and the reason, which stops the start-up.
 */
export async function startMetricsListener(metrics: ServiceMetrics, port: number, host: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const e = new LookupError(path === '/metrics' ? 'method_not_allowed' : 'route_not_found', { details: { path } });
      const body = JSON.stringify({ error: e.toBody(), meta: { took_ms: 0 } });
      res.writeHead(e.status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        ...(path === '/metrics' ? { allow: 'GET' } : {}),
      });
      res.end(body);
      return;
    }
    metrics.render().then(
      ({ text, contentType }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: new LookupError('internal').toBody(), meta: { took_ms: 0 } }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (e: NodeJS.ErrnoException) =>
      reject(new Error(`METRICS_PORT: cannot listen on ${host}:${port} (${e.code ?? e.message})`, { cause: e }));
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
  return server;
}

export const listenerPort = (server: http.Server): number => (server.address() as AddressInfo).port;

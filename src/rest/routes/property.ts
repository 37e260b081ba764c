// GET /v1/portal/property (spec 4.1): parse, call the core, write the envelope.
import type { FastifyInstance } from 'fastify';
import { parseLookupQuery } from '../../contract/index.js';
import { lookupOne, parsedLookup, type CoreDeps } from '../../lookup/index.js';
import { sendError, sendJsonText, tookMs } from '../../http/envelope.js';
import { contextFor } from '../../http/request-context.js';

export function propertyRoute(app: FastifyInstance, deps: CoreDeps): void {
  app.get('/v1/portal/property', async (request, reply) => {
    try {
      const ctx = await contextFor(deps, request, reply);
      const { locator, options } = parsedLookup(ctx, () => parseLookupQuery(request.query as Record<string, unknown>));
      const { dataJson, meta } = await lookupOne(ctx, locator, options);
      reply.header('x-cache', meta.stale ? 'STALE' : meta.cached ? 'HIT' : 'MISS');
      return sendJsonText(reply, `{"data":${dataJson},"meta":${JSON.stringify({ ...meta, took_ms: tookMs(reply) })}}`);
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

// POST /v1/portal/batch (spec 4.2). The body is parsed here, after authentication, so a bad key
// is reported as such even when the body is bad too.
import type { FastifyInstance } from 'fastify';
import { LookupError, MAX_BODY_BYTES, parseBatchBody } from '../../contract/index.js';
import { lookupBatch, type BatchItemOutcome, type CoreDeps } from '../../lookup/index.js';
import { sendError, sendJsonText, tookMs } from '../envelope.js';
import { contextFor } from '../request-context.js';

/** An item of the response's data; a found home's record is spliced in as the cache keeps it. */
const itemJson = (r: BatchItemOutcome): string =>
  r.ok ? `{"index":${r.index},"ok":true,"data":${r.dataJson},"meta":${JSON.stringify(r.meta)}}` : JSON.stringify(r);

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text.trim() === '') throw new LookupError('bad_body', { details: { reason: 'body is empty' } });
  try {
    return JSON.parse(text);
  } catch {
    throw new LookupError('bad_body', { details: { reason: 'body is not valid JSON' } });
  }
}

export async function batchRoute(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  await app.register(async (scope) => {
    // Any content-type is read as JSON (README), even one Fastify cannot parse ("aaaa", a list).
    scope.addHook('onRequest', (request, _reply, next) => {
      request.raw.headers['content-type'] = 'application/json';
      next();
    });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));
    scope.post('/v1/portal/batch', async (request, reply) => {
      try {
        const ctx = await contextFor(deps, request, reply, deps.config.batchDeadlineMs);
        const { items, options } = parseBatchBody(parseJson(request.body));
        const { data, meta } = await lookupBatch(ctx, items, options);
        return sendJsonText(reply, `{"data":[${data.map(itemJson).join(',')}],"meta":${JSON.stringify({ ...meta, took_ms: tookMs(reply) })}}`);
      } catch (e) {
        return sendError(reply, e);
      }
    });
  });
}

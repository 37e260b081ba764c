// POST /v1/portal/batch (spec 4.2), and its cost preview with ?dry_run=true. The body is parsed here,
// after authentication, so a bad key is reported as such even when the body is bad too. With an
// Idempotency-Key the request runs through the core's runIdempotent (lookup/idempotency.ts).
import type { FastifyInstance } from 'fastify';
import { parseBatchBody, parseBatchQuery } from '../../contract/index.js';
import { batchItemJson, lookupBatch, previewBatch, type BatchItemOutcome, type CoreDeps } from '../../lookup/index.js';
import { identityJson, idempotencyHeaderLines, idempotencyKeyOf, REPLAYED_HEADER, requestIdentity, runIdempotent, type RunAnswer } from '../../lookup/idempotency.js';
import { sendError, sendJsonText, tookMs } from '../../http/envelope.js';
import { bodyAsText, parseJsonBody } from '../../http/json-body.js';
import { contextFor } from '../../http/request-context.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** An item of the response's data. */
const itemJson = (r: BatchItemOutcome): string => batchItemJson(r);

export async function batchRoute(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  await app.register(async (scope) => {
    bodyAsText(scope);
    scope.post('/v1/portal/batch', async (request, reply) => {
      try {
        const ctx = await contextFor(deps, request, reply, deps.config.batchDeadlineMs);
        const idempotencyKey = idempotencyKeyOf(idempotencyHeaderLines(request.raw.rawHeaders));
        const { dryRun } = parseBatchQuery(request.query as Record<string, unknown>);
        const body = parseJsonBody(request.body);
        const { items, options } = parseBatchBody(body);
        // The answer's JSON. Whether a retry replays it is decided in the core from the codes of the
        // lookups that failed (ctx.stats), so the face need not read them back out of its answer.
        const answer = async (): Promise<string> => {
          if (dryRun) {
            const preview = await previewBatch(ctx, items, options);
            return JSON.stringify({ data: preview.data, meta: { ...preview.meta, took_ms: tookMs(reply) } });
          }
          const { data, meta } = await lookupBatch(ctx, items, options);
          return `{"data":[${data.map(itemJson).join(',')}],"meta":${JSON.stringify({ ...meta, took_ms: tookMs(reply) })}}`;
        };
        if (idempotencyKey === null) return sendJsonText(reply, await answer());
        // The request a retry must repeat: the query string (sorted) and the body's JSON, whitespace aside.
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        query.sort();
        const identity = requestIdentity(['POST /v1/portal/batch', query.toString(), identityJson(body)]);
        const run = await runIdempotent(ctx, idempotencyKey, identity, async (): Promise<RunAnswer> => ({
          status: 200, headers: { 'content-type': JSON_TYPE }, body: await answer(), codes: [],
        }));
        if (run.replayed) reply.header(REPLAYED_HEADER, 'true');
        return reply.code(run.answer.status).headers(run.answer.headers).send(run.answer.body);
      } catch (e) {
        return sendError(reply, e);
      }
    });
  });
}

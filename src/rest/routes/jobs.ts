// Lookup jobs over REST (docs/jobs.md): make one (JSON, CSV or NDJSON body), read it, its results
// (NDJSON or CSV, streamed from the jobs core a chunk at a time), its progress as server-sent events,
// cancel it, list the account's. Thin: the body readers are the contract's (contract/job-input.ts), the
// work is the jobs core's (deps.background.jobs); the key is checked first on every route, as on v1's.
import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge } from '../../contract/index.js';
import { jobFormatOf, jobListCursor, parseJobBody } from '../../contract/job-input.js';
import { DEFAULT_JOBS_PAGE, FINAL_JOB_STATUSES, JOB_CSV_COLUMNS, MAX_JOB_BODY_BYTES, MAX_JOBS_PAGE } from '../../contract/jobs.js';
import type { JobView } from '../../jobs/types.js';
import type { CoreDeps, RequestContext } from '../../lookup/index.js';
import { idempotencyHeaderLines, idempotencyKeyOf, REPLAYED_HEADER, requestIdentity, runIdempotent } from '../../lookup/idempotency.js';
import { sendError, tookMs } from '../envelope.js';
import { badParam, idOf, queryOf } from '../params.js';
import { contextFor } from '../request-context.js';

export const JOBS_PATH = '/v1/portal/jobs';
/** How often an events stream sends a comment line, so proxies and clients keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;

const JSON_TYPE = 'application/json; charset=utf-8';


/** One result line (the core's JSON) as a CSV row of JOB_CSV_COLUMNS; a list or object value is its JSON. Exported for its test. */
export function csvRow(line: string): string {
  const r = JSON.parse(line) as { index: number; ok: boolean; data?: Record<string, unknown>; meta?: { credits?: number; cached?: boolean }; error?: { code: string; message: string } };
  const own: Record<string, unknown> = {
    index: r.index, ok: r.ok, error_code: r.error?.code, error_message: r.error?.message, credits: r.meta?.credits ?? 0, cached: r.meta?.cached,
  };
  return JOB_CSV_COLUMNS.map((c) => csvCell(c in own ? own[c] : r.data?.[c])).join(',') + '\r\n';
}

/**
 * RFC 4180: a value with a comma, quote or line break is quoted, its quotes doubled; null and absent are empty.
 * A text starting with = + - @ tab or CR gets a leading ' (OWASP's CSV injection rule): a spreadsheet would run
 * it as a formula, and listing text and echoed input are not ours to trust. Numbers (a negative longitude) stay.
 */
function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

async function* csvLines(lines: AsyncIterable<string>): AsyncGenerator<string> {
  yield JOB_CSV_COLUMNS.join(',') + '\r\n';
  for await (const line of lines) yield csvRow(line);
}

async function* ndjsonLines(lines: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield line + '\n';
}

const sseEvent = (event: string, view: JobView): string => `event: ${event}\ndata: ${JSON.stringify(view)}\n\n`;

export async function jobsRoute(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  const jobs = () => deps.background.jobs;
  /** The open event streams' ends: called when the service closes, so none holds the server open. */
  const streams = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of streams) end();
    done();
  });

  /** Runs `handle` with the request's context (the key first), answering its LookupError in the envelope. */
  const route = (handle: (ctx: RequestContext, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return await handle(await contextFor(deps, request, reply), request, reply);
      } catch (e) {
        return sendError(reply, e);
      }
    };

  const viewAnswer = (reply: FastifyReply, view: JobView) => reply.type(JSON_TYPE).send({ data: view, meta: { took_ms: tookMs(reply) } });

  await app.register(async (scope) => {
    // The body is read as text by its content-type here, after authentication (a bad key is reported as such).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_JOB_BODY_BYTES }, (_req, body, done) => done(null, body));
    // A body past the job's limit says that limit; any other error of reading is the service's usual answer.
    scope.setErrorHandler((error: { code?: string }, _request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, bodyTooLarge(MAX_JOB_BODY_BYTES));
      throw error;
    });
    scope.post(JOBS_PATH, route(async (ctx, request, reply) => {
      const idempotencyKey = idempotencyKeyOf(idempotencyHeaderLines(request.raw.rawHeaders));
      const format = jobFormatOf(request.headers['content-type']);
      const text = typeof request.body === 'string' ? request.body : '';
      const query = request.query as Record<string, unknown>;
      const job = parseJobBody(format, text, query);
      const create = async () => {
        const view = await jobs().create(ctx.account, job);
        const body = JSON.stringify({ data: { id: view.id, status: 'queued', count: view.count, created_at: view.created_at }, meta: { took_ms: tookMs(reply) } });
        return { status: 202, headers: { 'content-type': JSON_TYPE, location: `${JOBS_PATH}/${view.id}` }, body, codes: [] };
      };
      if (idempotencyKey === null) {
        const answer = await create();
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
      // What a retry must repeat: the format, the query string (sorted) and the items and options as read.
      const sorted = new URLSearchParams(request.url.split('?')[1] ?? '');
      sorted.sort();
      const identity = requestIdentity([`POST ${JOBS_PATH}`, format, sorted.toString(), JSON.stringify(job)]);
      const run = await runIdempotent(ctx, idempotencyKey, identity, create);
      if (run.replayed) reply.header(REPLAYED_HEADER, 'true');
      return reply.code(run.answer.status).headers(run.answer.headers).send(run.answer.body);
    }));
    // Here, not beside GET: a client that sends content-type: application/json on every request sends it on a
    // bodiless DELETE too, which the default JSON parser refuses (400 'the body ended early'); any body is ignored.
    scope.delete(`${JOBS_PATH}/:id`, route(async (ctx, request, reply) => {
      queryOf(request, []);
      return viewAnswer(reply, await jobs().cancel(ctx.account, idOf(request)));
    }));
  });

  app.get(JOBS_PATH, route(async (ctx, request, reply) => {
    const query = queryOf(request, ['limit', 'cursor']);
    let limit = DEFAULT_JOBS_PAGE;
    if (query.limit !== undefined) {
      limit = Number(query.limit);
      if (!/^\d+$/.test(query.limit) || limit < 1 || limit > MAX_JOBS_PAGE) throw badParam('limit', `must be a whole number from 1 to ${MAX_JOBS_PAGE}`);
    }
    const page = await jobs().list(ctx.account, { limit, cursor: jobListCursor(query.cursor, 'cursor') });
    return reply.type(JSON_TYPE).send({ data: page.jobs, meta: { next_cursor: page.next_cursor, took_ms: tookMs(reply) } });
  }));

  app.get(`${JOBS_PATH}/:id`, route(async (ctx, request, reply) => {
    queryOf(request, []);
    return viewAnswer(reply, await jobs().get(ctx.account, idOf(request)));
  }));


  app.get(`${JOBS_PATH}/:id/results`, route(async (ctx, request, reply) => {
    const { format = 'ndjson' } = queryOf(request, ['format']);
    if (format !== 'ndjson' && format !== 'csv') throw badParam('format', 'must be ndjson or csv');
    const lines = await jobs().results(ctx.account, idOf(request));
    const csv = format === 'csv';
    if (csv) reply.header('content-disposition', `attachment; filename="job-${idOf(request)}.csv"`);
    return reply
      .type(csv ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8')
      .send(Readable.from(csv ? csvLines(lines) : ndjsonLines(lines)));
  }));

  app.get(`${JOBS_PATH}/:id/events`, route(async (ctx, request, reply) => {
    queryOf(request, []);
    const type = 'text/event-stream; charset=utf-8';
    const left = new AbortController();
    const progress = await jobs().progress(ctx.account, idOf(request), left.signal);
    const out = new PassThrough();
    const write = (text: string) => {
      if (!out.writableEnded && !out.destroyed) out.write(text);
    };
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
    // Once: the client left, the service closes, or the job is final.
    const end = () => {
      clearInterval(heartbeat);
      streams.delete(end);
      left.abort();
      if (!out.writableEnded) out.end();
    };
    streams.add(end);
    reply.raw.on('close', end);
    void (async () => {
      try {
        let last: JobView | null = null;
        for await (const view of progress) {
          write(sseEvent('progress', view));
          last = view;
          if (FINAL_JOB_STATUSES.includes(view.status)) break;
        }
        if (last && FINAL_JOB_STATUSES.includes(last.status)) write(sseEvent('done', last));
      } catch (e) {
        if (!left.signal.aborted) request.log.warn({ err: e }, 'job events stream failed');
      } finally {
        end();
      }
    })();
    // Proxies must not buffer the stream (nginx reads this header).
    return reply.type(type).header('x-accel-buffering', 'no').send(out);
  }));
}

// Lookup jobs over REST (docs/jobs.md): make one (JSON, CSV or NDJSON body), read it, its results
// (NDJSON or CSV, streamed from the jobs core a chunk at a time), its progress as server-sent events,
// cancel it, list the account's. Thin: the body readers are the contract's (contract/job-input.ts), the
// work is the jobs core's (background.jobs); the key is checked first on every route, as on v1's.
import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge } from '../../contract/index.js';
import { jobBodyReader, jobFormatOf, jobListCursor, type JobBodyParts } from '../../contract/job-input.js';
import { LookupError } from '../../contract/index.js';
import {
  DEFAULT_JOBS_PAGE,
  FINAL_JOB_STATUSES,
  JOB_CSV_COLUMNS,
  MAX_JOB_BODY_BYTES,
  MAX_JOBS_PAGE,
} from '../../contract/jobs.js';
import type { JobView } from '../../contract/jobs.js';
import type { Background } from '../../background.js';
import type { CoreDeps, RequestContext } from '../../lookup/index.js';
import {
  idempotencyHeaderLines,
  idempotencyKeyOf,
  REPLAYED_HEADER,
  requestIdentity,
  runIdempotent,
} from '../../lookup/idempotency.js';
import { sendError, tookMs } from '../../http/envelope.js';
import { badParam, idOf, queryOf } from '../params.js';
import { contextFor } from '../../http/request-context.js';
import { csvCell } from '../csv.js';

export const JOBS_PATH = '/v1/portal/jobs';
/** How often an events stream sends a comment line, so proxies and clients keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;

const JSON_TYPE = 'application/json; charset=utf-8';

/** One result line (the core's JSON) as a CSV row of JOB_CSV_COLUMNS; a list or object value is its JSON. Exported for its test. */
export function csvRow(line: string): string {
  const r = JSON.parse(line) as {
    index: number;
    ok: boolean;
    data?: Record<string, unknown>;
    meta?: { credits?: number; cached?: boolean };
    error?: { code: string; message: string };
  };
  const own: Record<string, unknown> = {
    index: r.index,
    ok: r.ok,
    error_code: r.error?.code,
    error_message: r.error?.message,
    credits: r.meta?.credits ?? 0,
    cached: r.meta?.cached,
  };
  return JOB_CSV_COLUMNS.map((c) => csvCell(c in own ? own[c] : r.data?.[c])).join(',') + '\r\n';
}

async function* csvLines(lines: AsyncIterable<string>): AsyncGenerator<string> {
  yield JOB_CSV_COLUMNS.join(',') + '\r\n';
  for await (const line of lines) yield csvRow(line);
}

async function* ndjsonLines(lines: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield line + '\n';
}

/** A job body as its reader left it: the reader, or why it could not be read (a content-type not served). */
class ReadBody {
  constructor(
    readonly parts: JobBodyParts | null,
    readonly error: LookupError | null,
  ) {}
}

const tooLarge = (): Error =>
  Object.assign(new Error('body too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });

/**
 * Reads a job body off its stream into its format's reader, a piece at a time, refusing (FST_ERR_CTP_BODY_TOO_LARGE)
 * past MAX_JOB_BODY_BYTES: by content-length before reading, else once the bytes read pass it. No stream: no body.
 */
function readJobBody(
  contentType: string | undefined,
  payload: (NodeJS.ReadableStream & { headers?: Record<string, unknown> }) | null,
): Promise<ReadBody> {
  let parts: JobBodyParts | null = null;
  let error: LookupError | null = null;
  try {
    parts = jobBodyReader(jobFormatOf(contentType));
  } catch (e) {
    error = e as LookupError;
  }
  if (!payload) return Promise.resolve(new ReadBody(parts, error));
  const declared = Number(payload.headers?.['content-length']);
  if (Number.isFinite(declared) && declared > MAX_JOB_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const decoder = new TextDecoder('utf-8');
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_JOB_BODY_BYTES) {
        cleanup();
        reject(tooLarge());
        return;
      }
      parts?.push(decoder.decode(chunk, { stream: true }));
    };
    const onEnd = () => {
      cleanup();
      parts?.push(decoder.decode());
      resolve(new ReadBody(parts, error));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}

const sseEvent = (event: string, view: JobView): string => `event: ${event}\ndata: ${JSON.stringify(view)}\n\n`;

export async function jobsRoute(app: FastifyInstance, deps: CoreDeps, background: Background): Promise<void> {
  // Made on first use: a service whose requests never touch jobs opens no queue connection.
  const jobs = () => background.jobs;
  /** The open event streams' ends: called when the service closes, so none holds the server open. */
  const streams = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of streams) end();
    done();
  });

  /** Runs `handle` with the request's context (the key first), answering its LookupError in the envelope. */
  const route =
    (handle: (ctx: RequestContext, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return await handle(await contextFor(deps, request, reply), request, reply);
      } catch (e) {
        return sendError(reply, e);
      }
    };

  const viewAnswer = (reply: FastifyReply, view: JobView) =>
    reply.type(JSON_TYPE).send({ data: view, meta: { took_ms: tookMs(reply) } });

  await app.register(async (scope) => {
    // The body is read as it arrives, by its content-type's reader (CSV and NDJSON parsed a line at a time as
    // each piece comes off the socket), within MAX_JOB_BODY_BYTES: never parsed whole in one go on the event
    // loop, nor held whole as text. Its refusal, like a content-type not served, is kept and thrown by the
    // route after authentication (a bad key is reported as such).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, payload, done) => {
      readJobBody(request.headers['content-type'], payload).then(
        (body) => done(null, body),
        (err: Error) => done(err, undefined),
      );
    });
    // A body past the job's limit says that limit; any other error of reading is the service's usual answer.
    scope.setErrorHandler((error: { code?: string }, _request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, bodyTooLarge(MAX_JOB_BODY_BYTES));
      throw error;
    });
    scope.post(
      JOBS_PATH,
      route(async (ctx, request, reply) => {
        const idempotencyKey = idempotencyKeyOf(idempotencyHeaderLines(request.raw.rawHeaders));
        const read =
          request.body instanceof ReadBody ? request.body : await readJobBody(request.headers['content-type'], null);
        if (read.error) throw read.error;
        const { format } = read.parts!;
        const query = request.query as Record<string, unknown>;
        const job = read.parts!.request(query);
        const create = async () => {
          const view = await jobs().create(ctx.account, job);
          const body = JSON.stringify({
            data: { id: view.id, status: 'queued', count: view.count, created_at: view.created_at },
            meta: { took_ms: tookMs(reply) },
          });
          return {
            status: 202,
            headers: { 'content-type': JSON_TYPE, location: `${JOBS_PATH}/${view.id}` },
            body,
            codes: [],
          };
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
      }),
    );
    // Here, not beside GET: a client that sends content-type: application/json on every request sends it on a
    // bodiless DELETE too, which the default JSON parser refuses (400 'the body ended early'); any body is ignored.
    scope.delete(
      `${JOBS_PATH}/:id`,
      route(async (ctx, request, reply) => {
        queryOf(request, []);
        return viewAnswer(reply, await jobs().cancel(ctx.account, idOf(request)));
      }),
    );
  });

  app.get(
    JOBS_PATH,
    route(async (ctx, request, reply) => {
      const query = queryOf(request, ['limit', 'cursor']);
      let limit = DEFAULT_JOBS_PAGE;
      if (query.limit !== undefined) {
        limit = Number(query.limit);
        if (!/^\d+$/.test(query.limit) || limit < 1 || limit > MAX_JOBS_PAGE)
          throw badParam('limit', `must be a whole number from 1 to ${MAX_JOBS_PAGE}`);
      }
      const page = await jobs().list(ctx.account, { limit, cursor: jobListCursor(query.cursor, 'cursor') });
      return reply
        .type(JSON_TYPE)
        .send({ data: page.jobs, meta: { next_cursor: page.next_cursor, took_ms: tookMs(reply) } });
    }),
  );

  app.get(
    `${JOBS_PATH}/:id`,
    route(async (ctx, request, reply) => {
      queryOf(request, []);
      return viewAnswer(reply, await jobs().get(ctx.account, idOf(request)));
    }),
  );

  app.get(
    `${JOBS_PATH}/:id/results`,
    route(async (ctx, request, reply) => {
      const { format = 'ndjson' } = queryOf(request, ['format']);
      if (format !== 'ndjson' && format !== 'csv') throw badParam('format', 'must be ndjson or csv');
      const lines = await jobs().results(ctx.account, idOf(request));
      const csv = format === 'csv';
      if (csv) reply.header('content-disposition', `attachment; filename="job-${idOf(request)}.csv"`);
      return reply
        .type(csv ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8')
        .send(Readable.from(csv ? csvLines(lines) : ndjsonLines(lines)));
    }),
  );

  app.get(
    `${JOBS_PATH}/:id/events`,
    route(async (ctx, request, reply) => {
      queryOf(request, []);
      const type = 'text/event-stream; charset=utf-8';
      const left = new AbortController();
      // Heard from the start: a client that leaves while the stream is being opened releases it too.
      const leave = () => left.abort();
      reply.raw.on('close', leave);
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
      reply.raw.off('close', leave);
      reply.raw.on('close', end);
      if (left.signal.aborted || reply.raw.destroyed) end();
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
    }),
  );
}

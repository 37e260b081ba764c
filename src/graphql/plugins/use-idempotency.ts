// An Idempotency-Key on a GraphQL request sent by POST (docs/idempotency.md): the core's rule
// (lookup/idempotency.ts) with the HTTP response as the answer. The request is the body's operation(s)
// as parsed (query or persisted hash, variables, operationName, extensions; a batched request's whole
// array). Once parsed and authenticated, the key is claimed; a retry of a request that already answered
// gets that answer (status, body, content-type) back from the parser, with `idempotent-replayed: true`,
// and nothing runs. The run's own response is what is kept, read as it leaves (onResponse). Operations
// sent without a key (introspection only, keyless) run as they are: they read and bill nothing.
import type { Plugin } from 'graphql-yoga';
import { isLookupError } from '../../contract/index.js';
import type { RequestContext } from '../../lookup/index.js';
import {
  idempotencyHeaderLines,
  idempotencyKeyOf,
  IDEMPOTENCY_HEADER,
  identityJson,
  REPLAYED_HEADER,
  requestIdentity,
  runIdempotent,
  type IdempotentAnswer,
  type RunAnswer,
} from '../../lookup/idempotency.js';
import { toGraphQLError } from '../errors.js';
import { needsApiKey } from '../lookup-count.js';
import type { OperationParams } from '../persisted.js';

export interface IdempotencyOptions<ServerContext> {
  /** The HTTP request's lookup context (authenticated once); rejects with the coded error of a failed authentication. */
  authenticate: (request: Request, serverContext: ServerContext) => Promise<RequestContext>;
}

/** A run under way: its answer, given once the response leaves, and the core's settling of the key. */
interface Run {
  answer: (a: RunAnswer) => void;
  outcome: Promise<IdempotentAnswer>;
}

/** Headers a replay repeats: what the body is, and when to come back. */
const KEPT_HEADERS = ['content-type', 'retry-after'];

/** The codes of the errors in a response (all operations of a batched one); read from the text when it is not one JSON (@defer, @stream). */
function errorCodes(text: string): string[] {
  try {
    const results = ([] as unknown[]).concat(JSON.parse(text)) as Array<{
      errors?: Array<{ extensions?: { code?: unknown } }>;
    }>;
    return results.flatMap((r) => r?.errors ?? []).map((e) => String(e.extensions?.code ?? 'internal'));
  } catch {
    return [...text.matchAll(/"code":"([a-z_]+)"/g)].map((m) => m[1]!);
  }
}

export function useIdempotency<ServerContext extends Record<string, any>>(
  opts: IdempotencyOptions<ServerContext>,
): Plugin<Record<string, unknown>, ServerContext> {
  const runs = new WeakMap<Request, Run>();
  return {
    onRequestParse({ request, requestParser, setRequestParser, serverContext, fetchAPI }) {
      const header = request.headers.get(IDEMPOTENCY_HEADER);
      if (request.method !== 'POST' || header === null || !requestParser) return;
      setRequestParser(async (req) => {
        try {
          // Node's header lines when served by Node (two lines are refused, not joined), else the one value.
          const rawHeaders = (serverContext as { req?: { raw?: { rawHeaders?: string[] } } }).req?.raw?.rawHeaders;
          const key = idempotencyKeyOf(rawHeaders ? idempotencyHeaderLines(rawHeaders) : header);
          const parsed = await requestParser(req);
          if (parsed instanceof fetchAPI.Response) return parsed;
          const operations = ([] as OperationParams[]).concat(parsed as OperationParams | OperationParams[]);
          if (!operations.some(needsApiKey)) return parsed;
          const ctx = await opts.authenticate(request, serverContext);
          let started!: () => void;
          const claimed = new Promise<null>((resolve) => (started = () => resolve(null)));
          let answer!: (a: RunAnswer) => void;
          const answered = new Promise<RunAnswer>((resolve) => (answer = resolve));
          const outcome = runIdempotent(ctx, key!, requestIdentity(['POST /graphql', identityJson(parsed)]), () => {
            started();
            return answered;
          });
          const replay = await Promise.race([claimed, outcome]);
          if (replay) {
            const headers = new fetchAPI.Headers(replay.answer.headers);
            headers.set(REPLAYED_HEADER, 'true');
            return new fetchAPI.Response(replay.answer.body, { status: replay.answer.status, headers });
          }
          runs.set(request, { answer, outcome });
          return parsed;
        } catch (e) {
          throw isLookupError(e) ? toGraphQLError(e, { http: 'response' }) : e;
        }
      });
    },
    async onResponse({ request, response }) {
      const run = runs.get(request);
      if (!run) return;
      runs.delete(request);
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      // The whole body, or null when it never comes whole: a stream whose client left (its copy then never
      // ends) or that failed. Either way the run is answered, so its key is settled and not held forever.
      const body = new Promise<string | null>((resolve) => {
        response
          .clone()
          .text()
          .then(resolve, () => resolve(null));
        if (request.signal.aborted) resolve(null);
        else request.signal.addEventListener('abort', () => resolve(null), { once: true });
      });
      const settled = body.then((text) => {
        // A cut answer is not kept (a 5xx): the client's retry runs.
        run.answer(
          text === null
            ? { status: 500, headers, body: '', codes: [] }
            : { status: response.status, headers, body: text, codes: errorCodes(text) },
        );
        return run.outcome;
      });
      // A whole answer is kept before it is sent, so a retry after it replays; a streamed one (@defer,
      // @stream) is kept once it has all gone out (a retry meanwhile waits for it).
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('multipart/') || type.startsWith('text/event-stream')) void settled.catch(() => undefined);
      else await settled.catch(() => undefined);
    },
  };
}

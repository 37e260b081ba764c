// The request body limit, enforced once. Yoga's own (maxRequestBodySize) checks content-length and
// then also re-streams every body through a counting TransformStream (a pipeline, an AbortController
// and a DOMException per request: about a tenth of a GraphQL cache hit's CPU). Node's HTTP parser
// never delivers more bytes than a valid content-length announces, so only a body without one
// (chunked) needs counting as it streams. The errors are Yoga's, so maskAsInternal (yoga.ts) codes them.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const tooLarge = () =>
  new GraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
const badLength = () =>
  new GraphQLError('Content-Length header is invalid.', { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } });

/** Only one non-negative integer is a content-length (a comma-joined pair is a smuggling attempt). */
const CONTENT_LENGTH = /^\d+$/;

/** The request with its body counted as it streams, failing past `limit` bytes. */
function counted(
  request: Request,
  limit: number,
  fetchAPI: { TransformStream: typeof TransformStream; Request: typeof Request },
): Request {
  let bytes = 0;
  // A native body stream needs the native TransformStream (graphql-yoga#4583).
  const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  const body = request.body!.pipeThrough(
    new Transform({
      transform(chunk: Uint8Array, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body,
    duplex: 'half',
  } as RequestInit);
}

/** Must come after every plugin that sets a request parser, so it guards whichever one is chosen. */
export function useBodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (!CONTENT_LENGTH.test(length)) throw badLength();
        if (Number(length) > limit) throw tooLarge();
        return;
      }
      if (requestParser == null || request.body == null) return;
      setRequestParser((req) => requestParser(counted(req, limit, fetchAPI)));
    },
  };
}

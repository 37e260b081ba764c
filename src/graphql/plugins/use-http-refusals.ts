// The refusals Yoga makes at the HTTP level, as coded GraphQL errors:
// - `variables` or `extensions` that are not JSON (GET query string, form-encoded POST) are the
//   client's mistake: 400 bad_param naming the parameter (Yoga's JSON.parse throw would be masked as a
//   500 internal and logged at error level: a log flood for anyone without a key);
// - a body a request parser cannot read (a multipart form without its JSON) is 400 bad_body;
// - Yoga's bodyless 406 (no acceptable media type) and 415 (a body type it cannot read) get a body in
//   GraphQL's format with a code, like every other answer.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LookupError, type ErrorCode } from '../../contract/index.js';
import { codeOf, graphqlErrorBody, toGraphQLError, UNREADABLE_BODY } from '../errors.js';

const BODYLESS: Readonly<Record<number, ErrorCode>> = { 406: 'not_acceptable', 415: 'unsupported_media_type' };

const notJson = (text: string | null): boolean => {
  if (!text) return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
};

/** Which parameter is not JSON, read from the query string (GET); null when it is in a body. */
function badParam(url: string): string | null {
  const query = new URL(url, 'http://localhost').searchParams;
  for (const name of ['variables', 'extensions']) if (notJson(query.get(name))) return name;
  return null;
}

function notJsonError(url: string) {
  const param = badParam(url);
  return toGraphQLError(
    new LookupError('bad_param', {
      message: `${param ?? 'variables or extensions'} must be JSON.`,
      details: { param: param ?? 'variables or extensions', reason: 'not valid JSON' },
    }),
    { http: 'response' },
  );
}

export function useHttpRefusals(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (req) => {
        try {
          return await requestParser(req);
        } catch (e) {
          if (e instanceof SyntaxError) throw notJsonError(request.url);
          // One without a code (the multipart parser's); coded ones are coded as every error is (yoga.ts).
          if (e instanceof GraphQLError && e.extensions.code === undefined) throw codeOf(e, UNREADABLE_BODY);
          throw e;
        }
      });
    },
    onResponse({ response, setResponse, fetchAPI }) {
      const code = BODYLESS[response.status];
      if (!code || response.body !== null) return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-type', 'application/json; charset=utf-8');
      const details =
        response.status === 415
          ? {
              header: 'content-type',
              supported: [
                'application/json',
                'application/graphql+json',
                'application/graphql',
                'application/x-www-form-urlencoded',
                'multipart/form-data',
              ],
            }
          : { header: 'accept' };
      const body = JSON.stringify(graphqlErrorBody(new LookupError(code, { details })));
      setResponse(new fetchAPI.Response(body, { status: response.status, headers }));
    },
  };
}

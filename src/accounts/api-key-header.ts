// The one place a request's API key is read from its headers, for every face (REST, GraphQL, MCP over
// HTTP): `x-api-key: <key>` or `Authorization: Bearer <key>`.
//   - Either alone carries the key; both with the same key are fine.
//   - Both with different keys: 400 bad_param (details.headers names both), never a guess at which is meant.
//   - An Authorization header that is no Bearer credential (`Basic …`, `Bearer` with no token) while x-api-key
//     is absent: 401 missing_api_key, its message saying to send Bearer or x-api-key (details.reason: not a
//     Bearer credential). Beside an x-api-key it is left alone (a proxy's own credentials).
//   - Neither: undefined, and authenticate answers 401 missing_api_key.
// An empty or blank header counts as absent.
import { LookupError } from '../contract/index.js';

/** Fastify's (node:http) request headers, or a fetch Request's (any Headers-like: Yoga's are a ponyfill's). */
export type RequestHeaders = Pick<Headers, 'get'> | Record<string, string | string[] | undefined>;

export const API_KEY_HEADER = 'x-api-key';
export const BEARER_USAGE = 'Send your API key in the x-api-key header or as Authorization: Bearer <key>.';

/** The scheme case-insensitive (RFC 6750), then one token; as GET /metrics reads its token. */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value =
    typeof headers.get === 'function'
      ? ((headers as Pick<Headers, 'get'>).get(name) ?? undefined)
      : (headers as Record<string, string | string[] | undefined>)[name];
  const one = (Array.isArray(value) ? value[0] : value)?.trim();
  return one ? one : undefined;
}

/**
 * The API key the request sends, or undefined when it sends none. Throws LookupError bad_param when
 * x-api-key and Authorization: Bearer carry different keys, missing_api_key when the only credential is an
 * Authorization header that is no Bearer token.
 */
export function apiKeyFrom(headers: RequestHeaders): string | undefined {
  const header = headerOf(headers, API_KEY_HEADER);
  const authorization = headerOf(headers, 'authorization');
  const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (header !== undefined && bearer !== undefined && header !== bearer)
    throw new LookupError('bad_param', {
      message: 'The x-api-key and Authorization: Bearer headers carry different keys. Send the key once.',
      details: { headers: [API_KEY_HEADER, 'authorization'], reason: 'different keys' },
    });
  if (header !== undefined) return header;
  if (bearer !== undefined) return bearer;
  if (authorization !== undefined)
    throw new LookupError('missing_api_key', {
      message: `The authorization header is not Bearer <key>. ${BEARER_USAGE}`,
      details: { header: 'authorization', reason: 'not a Bearer credential' },
    });
  return undefined;
}

/** Whether the request sends a usable API key (one apiKeyFrom returns): no refusal, no key check. */
export function sendsApiKey(headers: RequestHeaders): boolean {
  try {
    return apiKeyFrom(headers) !== undefined;
  } catch {
    return false;
  }
}

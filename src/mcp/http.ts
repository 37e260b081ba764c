// POST /mcp: the MCP server over streamable HTTP on the main port, stateless (one server and transport
// per request, no session), answering plain JSON. The caller is the API key of each request (x-api-key or
// Authorization: Bearer, read by apiKeyFrom), checked first as on every REST route: a missing or wrong key is
// the envelope's 401, not an MCP answer.
// The transport's web Response is sent through Fastify, so the v1 headers, the drain and the request
// log apply as to any route; GET and DELETE /mcp (sessions, server-sent streams) answer 405. A JSON-RPC
// batch is refused whole (400, -32600), none of its messages run.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { apiKeyFrom, authenticate } from '../accounts/index.js';
import { createRequestContext, type CoreDeps } from '../lookup/index.js';
import { requestIdOf } from '../observability/http.js';
import { sendError } from '../http/envelope.js';
import { clientGone } from '../http/request-context.js';
import type { Background } from '../background.js';
import { buildMcpServer } from './server.js';
import type { OpenContext } from './tools.js';

export const MCP_PATH = '/mcp';

/**
 * The answer to a JSON-RPC batch (a JSON array body): refused whole, none of it run. A batch would be
 * one HTTP request running any number of calls in one request context (MCP's 2025-06-18 revision
 * dropped batches); one message per request keeps one call per request, as REST's one lookup.
 */
export const BATCH_REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per HTTP request.',
  },
} as const;

/** The request as the SDK's web-standard transport reads it; the body is handed over already parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // The transport reads the method, headers and body, not the URL: a fixed one, whatever Host the client sent.
  return new Request(`http://localhost${MCP_PATH}`, { method: request.method, headers });
}

export function mcpRoute(app: FastifyInstance, deps: CoreDeps, background: Background): void {
  app.post(MCP_PATH, async (request, reply) => {
    try {
      const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKeyFrom(request.headers), deps.auth);
      if (Array.isArray(request.body)) return await reply.code(400).type('application/json').send(BATCH_REFUSED);
      const open: OpenContext = async ({ signal, deadlineMs }) =>
        createRequestContext(deps, account, {
          ...requestIdOf(request),
          // The core fills the request's stats (lookups, credits, rate window) for the log line and headers, as for REST.
          stats: request.stats,
          // The client leaving or the drain stops the call, as for REST (stateless: a notifications/cancelled
          // comes in a request of its own and cannot reach this call), or the SDK's own signal for the call.
          signal: () => AbortSignal.any([signal, clientGone(request, reply)]),
          ...(deadlineMs === undefined ? {} : { deadlineMs }),
        });
      const server = buildMcpServer(deps, open, background);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
        reply.code(response.status);
        response.headers.forEach((value, name) => void reply.header(name, value));
        return await reply.send(await response.text());
      } finally {
        await server.close();
      }
    } catch (e) {
      return sendError(reply, e);
    }
  });
}

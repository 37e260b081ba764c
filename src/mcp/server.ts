// The MCP face: one McpServer with the lookup tools, over the same core as REST and GraphQL. A face
// (stdio.ts, http.ts) gives it the way to open a tool call's request context: who is calling and
// what aborts the call; and the background beside the core (webhook_deliveries reads its delivery log).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { humanMs } from '../contract/index.js';
import type { CoreDeps } from '../lookup/index.js';
import { VERSION } from '../version.js';
import { toolDefinitions, toolError, unknownTool, type OpenContext } from './tools.js';
import type { Background } from '../background.js';
import type { ZodType } from 'zod/v4';

export const MCP_SERVER_NAME = 'portal-lookup';

const instructions = (cacheTtlMs: number): string =>
  "Property data for US homes from a listing site: price, status, beds, baths, living area, the site's value and rent " +
  'estimates. Look homes up by listing link, zpid or one-line address. Live lookups cost credits (see account_usage); ' +
  `homes read in the last ${humanMs(cacheTtlMs)} are free, and so is a home's history of reads (property_history). ` +
  'Answers are compact unless full: true is passed.';

export function buildMcpServer(deps: CoreDeps, open: OpenContext, background: Pick<Background, 'webhooks'>): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: VERSION },
    { instructions: instructions(deps.config.cacheTtlMs) },
  );
  const tools = new Map(
    Object.entries(toolDefinitions(open, deps.config, { figures: deps.figures, background })).map(([name, tool]) => [
      name,
      { ...tool, log: deps.logger.child({ tool: name }) },
    ]),
  );
  for (const [name, tool] of tools) {
    // Each tool's own input fields: the SDK's generic is given one config type for them all.
    const config = tool.config as Omit<typeof tool.config, 'inputSchema'> & { inputSchema: Record<string, ZodType> };
    server.registerTool(name, config, (args: Record<string, unknown>, extra) =>
      tool.handler(args, extra.signal, tool.log),
    );
  }
  // tools/call is answered here, not by the SDK's handler (registerTool installed it; the listing stays the
  // SDK's): an unknown tool name is then a tool error in the documented coded form (bad_param), like every
  // other failure, not the SDK's bare text. Every argument is checked by the contract's validator in the
  // tool (their schemas are all unknown to the SDK), so nothing of the SDK's checks is lost.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const tool = tools.get(name);
    if (!tool) return toolError(unknownTool(name, [...tools.keys()]), deps.logger);
    return tool.handler(request.params.arguments ?? {}, extra.signal, tool.log);
  });
  return server;
}

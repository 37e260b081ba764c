// The MCP face: one McpServer with the lookup tools, over the same core as REST and GraphQL. A face
// (stdio.ts, http.ts) gives it the way to open a tool call's request context: who is calling and
// what aborts the call.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { humanMs } from '../contract/index.js';
import { RELEASE, type CoreDeps } from '../lookup/index.js';
import { toolDefinitions, type OpenContext } from './tools.js';

export const MCP_SERVER_NAME = 'portal-lookup';

const instructions = (cacheTtlMs: number): string =>
  'Property data for US homes from a listing site: price, status, beds, baths, living area, the site\'s value and rent ' +
  'estimates. Look homes up by listing link, zpid or one-line address. Live lookups cost credits (see account_usage); ' +
  `homes read in the last ${humanMs(cacheTtlMs)} are free. Answers are compact unless full: true is passed.`;

export function buildMcpServer(deps: CoreDeps, open: OpenContext): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: RELEASE }, { instructions: instructions(deps.config.cacheTtlMs) });
  const tools = toolDefinitions(open, deps.config);
  for (const [name, tool] of Object.entries(tools)) {
    const log = deps.logger.child({ tool: name });
    server.registerTool(name, tool.config, (args: Record<string, unknown>, extra) => tool.handler(args, extra.signal, log));
  }
  return server;
}

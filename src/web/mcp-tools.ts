// The MCP server's tools as the landing page and /llms.txt list them: names, titles and descriptions
// read from the tool definitions themselves (src/mcp/tools.ts), so the lists cannot drift from them.
import type { Config } from '../config.js';
import { MCP_PATH } from '../mcp/http.js';
import { toolDefinitions } from '../mcp/tools.js';

export { MCP_PATH };

/**
 * How an agent starts the MCP server over stdio, once `npm run build` has compiled it: node itself, not
 * `npm run`, whose banners would land on stdout (the protocol's channel) and which would rebuild at every start.
 */
export const MCP_STDIO_COMMAND = 'PORTAL_API_KEY=<key> node dist/mcp/stdio.js';

export interface McpToolSummary {
  name: string;
  title: string;
  description: string;
}

/** Listing only: no tool runs here, so the context opener and the parts are never called. */
const listingOnly = (): Promise<never> => Promise.reject(new Error('tools are only listed here'));
const listingParts = {
  figures: { status: listingOnly },
  background: {
    get webhooks(): never {
      throw new Error('tools are only listed here');
    },
  },
};

export const mcpTools = (config: Pick<Config, 'batchDeadlineMs' | 'cacheTtlMs'>): McpToolSummary[] =>
  Object.entries(toolDefinitions(listingOnly, config, listingParts)).map(([name, tool]) => ({
    name,
    title: tool.config.title,
    description: tool.config.description,
  }));

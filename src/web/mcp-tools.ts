// The MCP server's tools as the landing page and /llms.txt list them: names, titles and descriptions
// read from the tool definitions themselves (src/mcp/tools.ts), so the lists cannot drift from them.
import type { Config } from '../config.js';
import { MCP_PATH } from '../mcp/http.js';
import { toolDefinitions } from '../mcp/tools.js';

export { MCP_PATH };

export interface McpToolSummary {
  name: string;
  title: string;
  description: string;
}

/** Listing only: no tool runs here, so the context opener is never called. */
const listingOnly = (): Promise<never> => Promise.reject(new Error('tools are only listed here'));

export const mcpTools = (config: Pick<Config, 'batchDeadlineMs' | 'cacheTtlMs'>): McpToolSummary[] =>
  Object.entries(toolDefinitions(listingOnly, config)).map(([name, tool]) => ({
    name,
    title: tool.config.title,
    description: tool.config.description,
  }));

// /llms.txt (llmstxt.org): a short plain-text guide for language-model agents, built from the same
// sources as the landing page (guide.ts): operations, auth, costs, every error code, links.
import type { Config } from '../config.js';
import { schema } from '../graphql/index.js';
import { LINKS, SERVICE_NAME } from '../site/brand.js';
import { costs, errorRows, operations } from './guide.js';
import { MCP_PATH, MCP_STDIO_COMMAND, mcpTools } from './mcp-tools.js';

export function llmsText(config: Pick<Config, 'cacheTtlMs' | 'batchDeadlineMs'>): string {
  const ops = operations(config).map((op) => {
    const params = op.params.length ? ` (query: ${op.params.join(', ')})` : '';
    return `- ${op.method} ${op.path}${params}: ${op.summary}.${op.description ? ` ${op.description}` : ''}`;
  });
  const errors = errorRows().map(
    (e) => `- ${e.status} ${e.code}: ${e.message}${e.retryAfter === undefined ? '' : ' (retry-after header)'}`,
  );
  const links = LINKS.filter((l) => l.href !== '/llms.txt').map((l) => `- [${l.label}](${l.href}): ${l.what}`);
  return [
    `# ${SERVICE_NAME}`,
    '',
    '> One clean, typed JSON record per US home from a listing-site link, a property ID (zpid) or a one-line address:',
    '> price and status, value and rent estimates, facts, photos, price and tax history, schools, broker and agent.',
    '> REST v1, GraphQL and MCP, served by the same core, with the same billing and error codes.',
    '',
    'Paths are relative to the origin this file was read from.',
    '',
    '## Auth',
    '',
    'Send the API key in the `x-api-key` header (or as `Authorization: Bearer <key>`) on every lookup and on GET /v1/account. Without it: 401 missing_api_key;',
    'an unknown key: 401 invalid_api_key. Never put the key in a URL.',
    '',
    '## Endpoints',
    '',
    ...ops,
    `- POST /graphql: GraphQL (query fields: ${Object.keys(schema.getQueryType()!.getFields()).join(', ')}; mutations, by POST only: ${Object.keys(schema.getMutationType()!.getFields()).join(', ')}); a failed lookup is LookupError data with the same codes. GET /graphql in a browser: GraphiQL.`,
    '',
    '## MCP',
    '',
    `An MCP server with the same lookups, billing and error codes: streamable HTTP at POST ${MCP_PATH} (send x-api-key or Authorization: Bearer), or stdio`,
    `(\`${MCP_STDIO_COMMAND}\`, after \`npm run build\`). Answers are compact unless the tool is called with full: true. Tools:`,
    '',
    ...mcpTools(config).map((t) => `- ${t.name} (${t.title}): ${t.description}`),
    '',
    '## Costs',
    '',
    ...costs(config).map((c) => `- ${c}`),
    '',
    '## Errors',
    '',
    'Every error answer is `{"error":{"code","message","details"?},"meta":{"took_ms"}}` with one of these codes; a batch',
    'item that fails carries the same error object in its result. Codes with a wait also send `retry-after` (seconds).',
    '',
    ...errors,
    '',
    '## Links',
    '',
    ...links,
    '',
  ].join('\n');
}

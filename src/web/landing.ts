// The landing page at /: what the service is, where its docs and faces are, what things cost, and a
// form that runs one lookup with your key (the same request as the curl examples).
import type { Config } from '../config.js';
import { MAX_BATCH_ITEMS } from '../contract/index.js';
import { brandBar, LINKS, SERVICE_NAME } from '../site/brand.js';
import { escapeHtml, siteAssets } from '../site/site-assets.js';
import { costs, operations } from './guide.js';
import { MCP_PATH, MCP_STDIO_COMMAND, mcpTools } from './mcp-tools.js';

/** The header shared by our pages: the logo and the links. */
export function landingPage(config: Pick<Config, 'cacheTtlMs' | 'batchDeadlineMs'>): string {
  const { site } = siteAssets();
  const cards = LINKS.map(
    (l) =>
      `<a class="card" href="${l.href}"><strong>${escapeHtml(l.href)}</strong>${escapeHtml(l.label)}: ${escapeHtml(l.what)}</a>`,
  ).join('\n        ');
  const rows = operations(config)
    .map(
      (op) =>
        `<tr><td><code>${op.method} ${escapeHtml(op.path)}</code></td><td>${escapeHtml(op.summary)}${op.params.length ? ` <small>(${op.params.map((p) => `<code>${escapeHtml(p)}</code>`).join(', ')})</small>` : ''}</td></tr>`,
    )
    .join('\n          ');
  const billing = costs(config)
    .map((c) => `<li>${escapeHtml(c)}</li>`)
    .join('\n          ');
  const tools = mcpTools(config)
    .map((t) => `<li><code>${escapeHtml(t.name)}</code>: ${escapeHtml(t.description)}</li>`)
    .join('\n          ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(SERVICE_NAME)}</title>
    <link rel="icon" type="image/svg+xml" href="${site.icon.url}" />
    <link rel="stylesheet" href="${site.css.url}" />
  </head>
  <body>
    ${brandBar('home')}
    <main class="landing">
      <h1>${escapeHtml(SERVICE_NAME)}</h1>
      <p class="lead">Give it a listing-site property link, a property ID (zpid) or a one-line US address; get back one
        clean, typed JSON record for the home: price and status, value and rent estimates, facts, photos, price and tax
        history, schools, broker and agent. One at a time or up to ${MAX_BATCH_ITEMS} in a batch, over REST, GraphQL and MCP.</p>
      <p>Service: <span id="service-status" class="status">checking…</span></p>
      <div class="cards">
        ${cards}
      </div>

      <h2>Authentication</h2>
      <p>Every lookup sends your API key in the <code>x-api-key</code> header (or as <code>Authorization: Bearer &lt;key&gt;</code>). Keys are kept only as a keyed hash.</p>

      <h2>Endpoints</h2>
      <table>
        <tbody>
          ${rows}
          <tr><td><code>POST /graphql</code></td><td>The same lookups, billing and error codes, selecting only the fields you need</td></tr>
        </tbody>
      </table>

      <h2>For AI agents: MCP</h2>
      <p>The same lookups as tools of a Model Context Protocol server, with the same billing and error codes: over
        streamable HTTP at <code>POST ${MCP_PATH}</code> with your <code>x-api-key</code> (or <code>Authorization: Bearer</code>), or over stdio with
        <code>${escapeHtml(MCP_STDIO_COMMAND)}</code> (after <code>npm run build</code>). Tools:</p>
      <ul>
          ${tools}
      </ul>

      <h2>Costs</h2>
      <ul>
          ${billing}
      </ul>

      <h2>Try a lookup</h2>
      <form id="try-form" class="try">
        <label for="try-key">API key</label><input id="try-key" name="key" autocomplete="off" required placeholder="your key" />
        <label for="try-by">Look up by</label>
        <select id="try-by" name="by"><option value="zpid">zpid</option><option value="url">url</option><option value="address">address</option></select>
        <label for="try-value">Value</label><input id="try-value" name="value" required placeholder="114303858" />
        <button type="submit">Look up</button>
      </form>
      <pre id="try-output" aria-live="polite">The answer shows here.</pre>
    </main>
    <script src="${site.landingJs.url}"></script>
  </body>
</html>
`;
}

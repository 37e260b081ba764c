// /openapi.json and the REST docs page at /docs: Swagger UI (swagger-ui-dist, installed locally, loaded
// as hashed assets so it works offline and is downloaded once) under the service's own header.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { brandBar } from '../site/brand.js';
import { escapeHtml, scriptJson, siteAssets } from '../site/site-assets.js';
import { buildOpenApi } from './openapi.js';

export const DOCS_TITLE = 'Property lookup API · REST docs';

export function docsPage(): string {
  const { site, docs } = siteAssets();
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(DOCS_TITLE)}</title>
    <link rel="stylesheet" href="${docs.swaggerCss.url}" />
    <link rel="icon" type="image/svg+xml" href="${site.icon.url}" />
    <link rel="stylesheet" href="${site.css.url}" />
  </head>
  <body class="docs">
    ${brandBar('docs')}
    <div id="swagger-ui"></div>
    <script type="application/json" id="docs-config">${scriptJson({ openapiUrl: '/openapi.json' })}</script>
    <script src="${docs.swaggerJs.url}"></script>
    <script src="${docs.initJs.url}"></script>
  </body>
</html>
`;
}

export async function docsRoutes(app: FastifyInstance, config: Pick<Config, 'cacheTtlMs'>): Promise<void> {
  const document = JSON.stringify(buildOpenApi(config));
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(docsPage()));
}

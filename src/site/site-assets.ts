// Every static file the pages load, registered once per process (the first page or asset request
// builds it: hashing the 11 MB of bundles costs a few tens of milliseconds, never paid by API calls).
import * as graphiqlBundle from '@graphql-yoga/render-graphiql/graphiql';
import { AssetRegistry, packageFile, type Asset } from './assets.js';
import { DOCS_JS, FAVICON_SVG, GRAPHIQL_JS, LANDING_JS, SITE_CSS } from './static-files.js';

export interface SiteAssets {
  registry: AssetRegistry;
  site: { css: Asset; icon: Asset; landingJs: Asset };
  docs: { swaggerCss: Asset; swaggerJs: Asset; initJs: Asset };
  graphiql: {
    css: Asset;
    js: Asset;
    initJs: Asset;
    favicon: Asset;
    workers: Record<'editorWorkerService' | 'json' | 'graphql', Asset>;
  };
}

/** A data: URL's bytes (Yoga ships GraphiQL's favicon as one). */
function dataUrlBytes(url: string): Buffer {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new Error('not a data: URL');
  const payload = url.slice(comma + 1);
  return url.slice(0, comma).endsWith(';base64')
    ? Buffer.from(payload, 'base64')
    : Buffer.from(decodeURIComponent(payload));
}

function build(): SiteAssets {
  const registry = new AssetRegistry();
  return {
    registry,
    site: {
      css: registry.add('site.css', SITE_CSS),
      icon: registry.add('icon.svg', FAVICON_SVG),
      landingJs: registry.add('landing.js', LANDING_JS),
    },
    docs: {
      swaggerCss: registry.add('swagger-ui.css', packageFile('swagger-ui-dist/swagger-ui.css')),
      swaggerJs: registry.add('swagger-ui-bundle.js', packageFile('swagger-ui-dist/swagger-ui-bundle.js')),
      initJs: registry.add('docs.js', DOCS_JS),
    },
    graphiql: {
      css: registry.add('graphiql.css', graphiqlBundle.css),
      js: registry.add('graphiql.js', graphiqlBundle.js),
      initJs: registry.add('graphiql-init.js', GRAPHIQL_JS),
      favicon: registry.add('graphiql.ico', dataUrlBytes(graphiqlBundle.favicon)),
      workers: {
        editorWorkerService: registry.add('editor.worker.js', graphiqlBundle.editorWorkerService),
        json: registry.add('json.worker.js', graphiqlBundle.jsonWorker),
        graphql: registry.add('graphql.worker.js', graphiqlBundle.graphqlWorker),
      },
    },
  };
}

let built: SiteAssets | undefined;
export const siteAssets = (): SiteAssets => (built ??= build());

/** Text for HTML: the five characters that could open markup or end an attribute. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON inside <script type="application/json">: "<" escaped so no text can close the element. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

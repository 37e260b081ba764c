// The pages for people and agents around the API: the landing page (/), /llms.txt, the public figures
// (/status) and the hashed static assets of every page (/assets/…). The REST docs (/docs) are in rest/docs.ts, GraphiQL in
// graphql/graphiql.ts; every page loads its files from the asset library (src/site).
import type { FastifyInstance } from 'fastify';
import { LookupError, toLookupError } from '../contract/index.js';
import type { CoreDeps } from '../lookup/index.js';
import { sendError } from '../http/envelope.js';
import { assetRoutes } from '../site/assets.js';
import { landingPage } from './landing.js';
import { llmsText } from './llms.js';
import { statusPage, statusUnavailablePage } from './status.js';
import { siteAssets } from '../site/site-assets.js';

/** A text made on first use, then kept: it depends only on the configuration, fixed for an app's life. */
function once(make: () => string): () => string {
  let made: string | undefined;
  return () => (made ??= make());
}

/** What makes the two texts from the configuration (tests count the calls). */
export interface PageBuilders {
  landing: (config: CoreDeps['config']) => string;
  llms: (config: CoreDeps['config']) => string;
}
const BUILDERS: PageBuilders = { landing: landingPage, llms: llmsText };

export function registerWeb(
  app: FastifyInstance,
  core: Pick<CoreDeps, 'config'> & { figures: Pick<CoreDeps['figures'], 'status'> },
  build: PageBuilders = BUILDERS,
): void {
  assetRoutes(app, () => siteAssets().registry);
  // Both read the OpenAPI document, the contract's schemas and the error table: built once per app.
  const landing = once(() => build.landing(core.config));
  const llms = once(() => build.llms(core.config));
  app.get('/', async (request, reply) =>
    // The router also hands the asterisk form (`GET *`, meant for OPTIONS) to `/`: that is no page.
    request.url.startsWith('/')
      ? reply.type('text/html; charset=utf-8').send(landing())
      : sendError(reply, new LookupError('route_not_found')),
  );
  app.get('/llms.txt', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(llms()));
  // The figures of GET /v1/status (the same read, kept a few seconds), made for every request.
  app.get('/status', async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    try {
      return reply.send(statusPage(await core.figures.status()));
    } catch (e) {
      const err = toLookupError(e);
      const wait = err.retryAfterSeconds;
      if (wait !== undefined) reply.header('retry-after', String(wait));
      return reply.code(err.status).send(statusUnavailablePage(err.message));
    }
  });
}

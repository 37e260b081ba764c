// The pages for people and agents around the API: the landing page (/), /llms.txt and the hashed
// static assets of every page (/assets/…). The REST docs (/docs) are in rest/docs.ts, GraphiQL in
// graphql/graphiql.ts; both load their files from here.
import type { FastifyInstance } from 'fastify';
import { LookupError } from '../contract/index.js';
import type { CoreDeps } from '../lookup/index.js';
import { sendError } from '../rest/envelope.js';
import { assetRoutes } from './assets.js';
import { landingPage } from './landing.js';
import { llmsText } from './llms.js';
import { siteAssets } from './site-assets.js';

/** The paths that answer a GET with a page for a person or an agent (HTML or text), not an API answer. */
export const PAGE_PATHS: readonly string[] = ['/', '/llms.txt', '/docs'];
export const isPagePath = (path: string): boolean => PAGE_PATHS.includes(path) || path.startsWith('/assets/');

export function registerWeb(app: FastifyInstance, core: CoreDeps): void {
  assetRoutes(app, () => siteAssets().registry);
  app.get('/', async (request, reply) =>
    // The router also hands the asterisk form (`GET *`, meant for OPTIONS) to `/`: that is no page.
    request.url.startsWith('/') ? reply.type('text/html; charset=utf-8').send(landingPage(core.config)) : sendError(reply, new LookupError('route_not_found')));
  app.get('/llms.txt', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(llmsText(core.config)));
}

// The pages for people and agents around the API: the landing page (/), /llms.txt and the hashed
// static assets of every page (/assets/…). The REST docs (/docs) are in rest/docs.ts, GraphiQL in
// graphql/graphiql.ts; both load their files from here.
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../lookup/index.js';
import { assetRoutes } from './assets.js';
import { landingPage } from './landing.js';
import { llmsText } from './llms.js';
import { siteAssets } from './site-assets.js';

export function registerWeb(app: FastifyInstance, core: CoreDeps): void {
  assetRoutes(app, () => siteAssets().registry);
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(landingPage(core.config)));
  app.get('/llms.txt', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(llmsText(core.config)));
}

// Each REST route describes its own operations (src/rest/routes): every route the app serves under /v1
// has its operation in the served OpenAPI document, and every operation there is a route the app serves.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createCollector } from '../../src/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/store/index.js';

let app: FastifyInstance;
let doc: { paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  app = await buildApp({ config, store: new MemoryStore(), collector: createCollector(config) });
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(() => app?.close());

/**
 * The app's routes as `METHOD /path`, read from Fastify's route tree (printRoutes without a common prefix:
 * one node a line, its depth by indent, its path its parent's plus its own piece, its methods in brackets).
 */
function appRoutes(): string[] {
  const routes: string[] = [];
  const pathAt: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!m) throw new Error(`a line of printRoutes not understood: ${JSON.stringify(line)}`);
    const depth = [...m[1]!].length / 4;
    const path = (depth === 0 ? '' : pathAt[depth - 1]!) + m[2]!;
    pathAt[depth] = path;
    pathAt.length = depth + 1;
    for (const method of m[3]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}

/** `GET /v1/portal/jobs/{id}` as Fastify writes it: `GET /v1/portal/jobs/:id`. */
const asRoute = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;

describe('REST routes and their OpenAPI operations', () => {
  it('reads the whole route tree: every route read is served, the ones beside /v1 too', () => {
    const routes = appRoutes();
    for (const route of routes) {
      const [method, url] = route.split(' ') as [string, string];
      expect(app.hasRoute({ method: method as 'GET', url }), route).toBe(true);
    }
    expect(routes).toEqual(
      expect.arrayContaining(['GET /healthz', 'GET /openapi.json', 'POST /graphql', 'GET /v1/portal/jobs/:id/events']),
    );
  });

  it('every route under /v1 has its operation, and every operation is a route the app serves', () => {
    const served = appRoutes()
      .filter((r) => r.split(' ')[1]!.startsWith('/v1/'))
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => asRoute(m, path)))
      .sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
    // The other way round without the tree: Fastify finds each operation's route.
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const [m, url] = asRoute(method, path).split(' ') as [string, string];
        expect(app.hasRoute({ method: m as 'GET', url }), `${method} ${path}`).toBe(true);
      }
    }
  });
});

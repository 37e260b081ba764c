// GraphiQL at /graphql (a browser GET asking for text/html), from the locally installed
// @graphql-yoga/render-graphiql bundle: nothing comes from a CDN, so it works offline. Yoga's own
// renderer puts the whole 9 MB bundle inline in the page, downloaded again on every visit; this one
// sends a small page that loads the bundle, its styles and its editor workers as hashed assets
// (site/assets.ts), which the browser keeps for a year.
import type { GraphiQLOptions } from 'graphql-yoga';
import { escapeHtml, scriptJson, siteAssets } from '../site/site-assets.js';

export const EXAMPLE_OPERATION = `# Property lookup API: the same lookups, billing and errors as REST /v1.
#
# Every lookup needs your API key: open the Headers tab below and put it in
# {"x-api-key": ""} (or send {"Authorization": "Bearer <your key>"}).
# The Docs panel (introspection) works without it.
#
# A live lookup costs 1 credit, a cache hit (24 h) 0; failures are LookupError data.
query Example {
  property(url: "https://www.zillow.com/homedetails/2146993218_zpid/") {
    __typename
    ... on PropertyLookup {
      data { zpid address price currency homeStatus beds baths livingArea }
      meta { credits cached cacheKey fetchedAt tookMs }
    }
    ... on LookupError { code message details }
  }
  account { plan used remaining }
}
`;

/** What GraphiQL's Headers tab holds when it opens: the API key header, to fill in. */
export const GRAPHIQL_HEADERS = JSON.stringify({ 'x-api-key': '' }, null, 2);

export const graphiqlOptions: GraphiQLOptions = {
  title: 'Property lookup API · GraphiQL',
  defaultQuery: EXAMPLE_OPERATION,
  // The header to fill in, empty: no key is prefilled (a made-up one would only be refused, a 401 in the
  // console), and an empty x-api-key counts as none (the keyless budget, missing_api_key).
  headers: GRAPHIQL_HEADERS,
  shouldPersistHeaders: false,
};

/** Yoga's `renderGraphiQL` option: the page for the options Yoga passes (endpoint, title, query, …). */
export function renderGraphiQL(options: GraphiQLOptions): string {
  const { graphiql } = siteAssets();
  const workers = Object.fromEntries(Object.entries(graphiql.workers).map(([label, asset]) => [label, asset.url]));
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${graphiql.favicon.url}" />
    <link rel="stylesheet" href="${graphiql.css.url}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${scriptJson({ workers, options })}</script>
    <script src="${graphiql.js.url}"></script>
    <script src="${graphiql.initJs.url}"></script>
  </body>
</html>
`;
}

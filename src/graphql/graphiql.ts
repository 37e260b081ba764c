// GraphiQL at /graphql (a browser GET asking for text/html), rendered from the locally installed
// @graphql-yoga/render-graphiql bundle: the page carries its scripts and styles inline and loads
// nothing from a CDN, so it works offline.
import type { GraphiQLOptions } from 'graphql-yoga';

export const EXAMPLE_OPERATION = `# Property lookup API: the same lookups, billing and errors as REST /v1.
#
# Every lookup needs your API key in the x-api-key header: open the Headers
# tab below and replace <your key>. The Docs panel (introspection) works without it.
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

export const KEY_HEADERS = JSON.stringify({ 'x-api-key': '<your key>' }, null, 2);

export const graphiqlOptions: GraphiQLOptions = {
  title: 'Property lookup API · GraphiQL',
  defaultQuery: EXAMPLE_OPERATION,
  headers: KEY_HEADERS,
  defaultHeaders: KEY_HEADERS,
  shouldPersistHeaders: false,
};

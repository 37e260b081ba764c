// Where the GraphQL face is mounted: the route (index.ts) and Yoga's endpoint (yoga.ts) agree on it.
export const GRAPHQL_PATH = '/graphql';

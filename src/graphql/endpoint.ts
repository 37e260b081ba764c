// Where the GraphQL face is mounted. Its own file, so REST (which answers errors on this path in
// GraphQL's format) can know the path without importing the Yoga setup (which imports REST's drain).
export const GRAPHQL_PATH = '/graphql';

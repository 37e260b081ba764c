// Persisted operations: a client may send `extensions.persistedQuery.sha256Hash` (version 1) instead
// of the document, for the product's operations in src/graphql/operations/ (persisted.ts).
// Arbitrary operations stay allowed, so ordinary clients and GraphiQL work unchanged.
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { requestError } from '../errors.js';
import { persistedOperation, persistedOperationId } from '../persisted.js';

export function usePersisted(): Plugin {
  return usePersistedOperations({
    // The same reading of the hash as the checks that run before this plugin (persisted.ts).
    extractPersistedOperationId: (params) => persistedOperationId(params),
    getPersistedOperation: (hash) => persistedOperation(hash),
    allowArbitraryOperations: true,
    customErrors: {
      notFound: () => requestError('persisted_query_not_found'),
      keyNotFound: () => requestError('missing_query'),
    },
  }) as Plugin;
}

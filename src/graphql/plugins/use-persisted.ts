// Persisted operations: a client may send `extensions.persistedQuery.sha256Hash` (version 1) instead
// of the document, for the documents in src/graphql/persisted-documents.json. Arbitrary operations
// stay allowed, so ordinary clients and GraphiQL work unchanged.
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { persistedOperation, persistedOperationId } from '../persisted.js';

export function usePersisted(): Plugin {
  return usePersistedOperations({
    // The same reading of the hash as the checks that run before this plugin (persisted.ts).
    extractPersistedOperationId: (params) => persistedOperationId(params),
    getPersistedOperation: (hash) => persistedOperation(hash),
    allowArbitraryOperations: true,
    customErrors: {
      notFound: { message: 'No persisted operation has this hash.', extensions: { code: 'persisted_query_not_found', http: { status: 400, spec: true } } },
      keyNotFound: { message: 'Send a query, or extensions.persistedQuery.sha256Hash.', extensions: { code: 'missing_query', http: { status: 400 } } },
    },
  }) as Plugin;
}

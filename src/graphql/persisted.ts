// The persisted operations the server knows, by sha256 hash: the product's operations in
// src/graphql/operations/, as GraphQL Code Generator's client preset writes them
// (operations/generated/persisted-documents.json, made by npm run generate). The persisted-operations
// plugin and the checks that run before it (lookup counting, the API key) read a request's document
// through here.
import persistedDocuments from './operations/generated/persisted-documents.json' with { type: 'json' };

const documents: Record<string, string> = persistedDocuments;

/** What a request carries: GraphQL-over-HTTP params (one operation of a batched array). */
export interface OperationParams {
  query?: string | undefined;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  extensions?: Record<string, unknown> | null | undefined;
}

/** The hash of `extensions.persistedQuery` (version 1, sha256Hash), or null. */
export function persistedOperationId(params: OperationParams): string | null {
  const pq = params.extensions?.persistedQuery;
  if (!pq || typeof pq !== 'object') return null;
  const { version, sha256Hash } = pq as { version?: unknown; sha256Hash?: unknown };
  return version === 1 && typeof sha256Hash === 'string' ? sha256Hash : null;
}

/** The document stored under a hash, or null. */
export function persistedOperation(hash: string): string | null {
  return Object.hasOwn(documents, hash) ? documents[hash]! : null;
}

/** The text of the document a request runs: its query, else the persisted operation its hash names. */
export function operationText(params: OperationParams): string | null {
  if (params.query) return params.query;
  const id = persistedOperationId(params);
  return id === null ? null : persistedOperation(id);
}

// The persisted operations the server knows, by sha256 hash: the documents of
// test/graphql/operations, as GraphQL Code Generator's client preset writes them
// (persisted-documents.json, copied here by codegen.ts).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const documents = require('./persisted-documents.json') as Record<string, string>;

/** The document stored under a hash, or null. */
export function persistedOperation(hash: string): string | null {
  return Object.hasOwn(documents, hash) ? documents[hash]! : null;
}

export const persistedOperationCount = (): number => Object.keys(documents).length;

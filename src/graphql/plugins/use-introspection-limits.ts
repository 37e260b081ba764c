// Introspection is public (no key) and its answer is large (the whole schema, ~40 KB), so it is bounded
// like everything else:
// - before validation runs (its rules are the costly part of a refusal), one linear walk of the
//   document checks the alias limit (armor's, counted over introspection too) and the introspection
//   cost: at most MAX_SCHEMA_FIELDS `__schema` and MAX_TYPE_FIELDS `__type` fields per document;
// - an introspection-only operation is answered from a small cache of results (the schema never
//   changes while the process runs), so GraphiQL's and codegen's repeated queries cost one execution.
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { documentFacts } from '../documents.js';
import { requestError } from '../errors.js';
import { INTROSPECTION_LIMITS, SHAPE_LIMITS } from '../limits.js';
import { isIntrospectionOnly } from '../lookup-count.js';

/** Distinct introspection results kept; documents longer than CACHEABLE_CHARS are not kept. */
const CACHE_ENTRIES = 32;
const CACHEABLE_CHARS = 16_384;

function precheck(document: DocumentNode) {
  const { aliases, schemaFields, typeFields } = documentFacts(document);
  if (aliases > SHAPE_LIMITS.maxAliases) {
    return requestError(
      'query_too_complex',
      `Aliases limit of ${SHAPE_LIMITS.maxAliases} exceeded, found ${aliases}.`,
      { limit: 'maxAliases', max: SHAPE_LIMITS.maxAliases },
    );
  }
  if (schemaFields > INTROSPECTION_LIMITS.schemaFields || typeFields > INTROSPECTION_LIMITS.typeFields) {
    return requestError(
      'query_too_complex',
      `Introspection is limited to ${INTROSPECTION_LIMITS.schemaFields} __schema and ${INTROSPECTION_LIMITS.typeFields} __type fields per document; found ${schemaFields} and ${typeFields}.`,
      { limit: 'introspection', max: { ...INTROSPECTION_LIMITS } },
    );
  }
  return null;
}

export function useIntrospectionLimits(): Plugin {
  const cache = new Map<string, ExecutionResult>();
  return {
    onValidate({ params, setResult }) {
      // The document's facts are read once per document (documents.ts), not on every request.
      const refusal = precheck(params.documentAST);
      if (refusal) setResult([refusal]);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const query = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (typeof query !== 'string' || query.length > CACHEABLE_CHARS) return;
      if (
        !getOperationAST(args.document, args.operationName ?? undefined) ||
        !isIntrospectionOnly(args.document, args.operationName)
      )
        return;
      const key = JSON.stringify([query, args.operationName ?? null, args.variableValues ?? null]);
      const hit = cache.get(key);
      if (hit) {
        setResultAndStopExecution(hit);
        return;
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result || result.errors) return;
          if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
          cache.set(key, result);
        },
      };
    },
  };
}

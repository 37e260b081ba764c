// Introspection is public (no key) and its answer is large (the whole schema, ~40 KB), so it is bounded
// like everything else:
// - before validation runs (its rules are the costly part of a refusal), one linear walk of the
//   document checks the alias limit (armor's, counted over introspection too) and the introspection
//   cost: at most MAX_SCHEMA_FIELDS `__schema` and MAX_TYPE_FIELDS `__type` fields per document;
// - an introspection-only operation is answered from a small cache of results (the schema never
//   changes while the process runs), so GraphiQL's and codegen's repeated queries cost one execution.
import { getOperationAST, visit, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isIntrospectionOnly } from '../lookup-count.js';
import { requestError } from '../errors.js';
import { SHAPE_LIMITS } from './use-armor.js';

export const INTROSPECTION_LIMITS = {
  /** `__schema` fields per document: the whole schema once. */
  schemaFields: 1,
  /** `__type(name:)` fields per document. */
  typeFields: 10,
} as const;

/** Distinct introspection results kept; documents longer than CACHEABLE_CHARS are not kept. */
const CACHE_ENTRIES = 32;
const CACHEABLE_CHARS = 16_384;

function precheck(document: DocumentNode) {
  let aliases = 0;
  let schemaFields = 0;
  let typeFields = 0;
  visit(document, {
    Field(node) {
      if (node.alias) aliases += 1;
      if (node.name.value === '__schema') schemaFields += 1;
      else if (node.name.value === '__type') typeFields += 1;
    },
  });
  if (aliases > SHAPE_LIMITS.maxAliases) {
    return requestError('query_too_complex', `Aliases limit of ${SHAPE_LIMITS.maxAliases} exceeded, found ${aliases}.`, { limit: 'maxAliases', max: SHAPE_LIMITS.maxAliases });
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
  // precheck's answer per document: Yoga's parser cache gives one document object per text, so a
  // repeated operation is walked once, not on every request.
  const prechecked = new WeakMap<DocumentNode, ReturnType<typeof precheck>>();
  return {
    onValidate({ params, setResult }) {
      let refusal = prechecked.get(params.documentAST);
      if (refusal === undefined) {
        refusal = precheck(params.documentAST);
        prechecked.set(params.documentAST, refusal);
      }
      if (refusal) setResult([refusal]);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const query = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (typeof query !== 'string' || query.length > CACHEABLE_CHARS) return;
      if (!getOperationAST(args.document, args.operationName ?? undefined) || !isIntrospectionOnly(args.document, args.operationName)) return;
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

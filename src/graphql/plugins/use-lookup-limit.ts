// The operation's lookups count together against the batch limit (50, the contract's
// MAX_BATCH_ITEMS): `property` fields plus `properties` items, with the request's variables.
// Over the limit, the operation is refused before it executes, so before any upstream call or charge.
// A batched request (an array of operations) is counted as a whole when it is parsed, before any
// of its operations runs.
import { parse, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ERROR_CODES, MAX_BATCH_ITEMS } from '../../contract/index.js';
import { requestError } from '../errors.js';
import { countLookups } from '../lookup-count.js';
import { persistedOperation } from '../persisted.js';

// The same code, message and details as REST's batch refusal (details: max and received).
const tooMany = (max: number, received: number) =>
  requestError('too_many_items', ERROR_CODES.too_many_items.message, { max, received });

interface Params {
  query?: string | undefined;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  extensions?: Record<string, unknown> | null | undefined;
}

function documentOf(params: Params): DocumentNode | null {
  let text = params.query;
  if (!text) {
    const pq = params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined;
    text = typeof pq?.sha256Hash === 'string' ? (persistedOperation(pq.sha256Hash) ?? undefined) : undefined;
  }
  if (!text) return null;
  try {
    return parse(text);
  } catch {
    return null; // reported by the operation's own parse
  }
}

export function useLookupLimit(max = MAX_BATCH_ITEMS): Plugin {
  return {
    onRequestParse() {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (!Array.isArray(requestParserResult)) return;
          let total = 0;
          for (const params of requestParserResult as Params[]) {
            const doc = documentOf(params);
            if (doc) total += countLookups(doc, params.operationName, params.variables);
          }
          if (total > max) throw tooMany(max, total);
        },
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const n = countLookups(args.document, args.operationName, args.variableValues);
      if (n > max) setResultAndStopExecution({ errors: [tooMany(max, n)] });
    },
  };
}

// A request's document, parsed once. Every check that reads a document before Yoga runs it (the API
// key, lookup counting, a batched request's checks) and Yoga's own parse share one cache of parsed
// documents by text (yoga.ts hands it to Yoga's parser cache), so an operation is parsed once
// however many checks read it, and a repeated operation not at all.
import { parse, visit, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { SHAPE_LIMITS } from './limits.js';
import { operationText, type OperationParams } from './persisted.js';

/**
 * Parsed documents by text, as many as Yoga's own cache keeps; Yoga's parse reads and fills it too
 * (its `parserAndValidationCache.documentCache`).
 */
export const documentCache = new LRUCache<string, DocumentNode>({ max: 1024 });

/**
 * `text` parsed, under the same token limit as armor's parse (so a huge document is not parsed in
 * full before armor refuses it); null when it does not parse (Yoga's own parse then reports why).
 */
export function parseDocument(text: string): DocumentNode | null {
  let document = documentCache.get(text);
  if (document) return document;
  try {
    document = parse(text, { maxTokens: SHAPE_LIMITS.maxTokens });
  } catch {
    return null;
  }
  documentCache.set(text, document);
  return document;
}

/** The document a request runs (its query, or its persisted operation); null when there is none or it does not parse. */
export function documentOf(params: OperationParams): DocumentNode | null {
  const text = operationText(params);
  return text ? parseDocument(text) : null;
}

/** What a document contains anywhere, as written (fragments not followed, directives not evaluated). */
export interface DocumentFacts {
  aliases: number;
  /** `__schema` and `__type` fields. */
  schemaFields: number;
  typeFields: number;
  /** Uses @defer or @stream. */
  incremental: boolean;
}

const facts = new WeakMap<DocumentNode, DocumentFacts>();

/** The document's facts, read in one pass and kept with the document (parsed once, read once). */
export function documentFacts(document: DocumentNode): DocumentFacts {
  let found = facts.get(document);
  if (found) return found;
  found = { aliases: 0, schemaFields: 0, typeFields: 0, incremental: false };
  const f = found;
  visit(document, {
    Field(node) {
      if (node.alias) f.aliases += 1;
      if (node.name.value === '__schema') f.schemaFields += 1;
      else if (node.name.value === '__type') f.typeFields += 1;
    },
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') f.incremental = true;
    },
  });
  facts.set(document, found);
  return found;
}

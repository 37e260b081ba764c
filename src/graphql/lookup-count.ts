// How many lookups an operation asks for: each `property` field is one, each `properties` field
// counts its items (literal lists, or list variables with their values). Counted on the executed
// document with the request's variables coerced as the executor coerces them (defaults applied), so
// it is exact per request (Yoga caches validation per document, so a validation rule could not see
// the variables).
import {
  getDirectiveValues, getOperationAST, getVariableValues, GraphQLIncludeDirective, GraphQLSkipDirective, Kind, parse,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLError, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type ValueNode,
} from 'graphql';
import { LruMap } from '../store/lru-map.js';
import { operationText, type OperationParams } from './persisted.js';
import { SHAPE_LIMITS } from './plugins/use-armor.js';

type Variables = Readonly<Record<string, unknown>>;

/**
 * The document a request runs (its query, or its persisted operation), parsed under the same token
 * limit as armor's; null when there is none or it does not parse (its own parse reports that).
 */
export function documentOf(params: OperationParams): DocumentNode | null {
  const text = operationText(params);
  if (!text) return null;
  try {
    return parse(text, { maxTokens: SHAPE_LIMITS.maxTokens });
  } catch {
    return null;
  }
}

/** The operation's variables as the executor will see them, or why they cannot be coerced. */
export function coerceVariables(
  schema: GraphQLSchema,
  op: OperationDefinitionNode,
  raw: Variables | null | undefined,
): { coerced: Record<string, unknown> } | { errors: readonly GraphQLError[] } {
  const result = getVariableValues(schema, op.variableDefinitions ?? [], raw ?? {}, { maxErrors: 50 });
  return result.errors ? { errors: result.errors } : { coerced: result.coerced };
}

const fragmentsOf = (document: DocumentNode): Map<string, FragmentDefinitionNode> =>
  new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );

function included(node: FieldNode | { directives?: FieldNode['directives'] }, variables: Variables): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    // Unreadable directive arguments (an invalid document): count the field; validation reports it.
  }
  return true;
}

/** The root fields the operation executes, by response key (merged like the executor does). */
function rootFields(document: DocumentNode, op: OperationDefinitionNode, variables: Variables): FieldNode[] {
  const fragments = fragmentsOf(document);
  const fields = new Map<string, FieldNode>();
  const visited = new Set<string>();
  const walk = (s: SelectionSetNode) => {
    for (const sel of s.selections) {
      if (!included(sel, variables)) continue;
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        if (!fields.has(key)) fields.set(key, sel);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet);
      } else if (!visited.has(sel.name.value)) {
        visited.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(op.selectionSet);
  return [...fields.values()];
}

function itemsCount(node: ValueNode | undefined, variables: Variables): number {
  if (!node || node.kind === Kind.NULL) return 0;
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.VARIABLE) {
    // Coerced values: a default is applied, a single item is already a list of one.
    const value = variables[node.name.value];
    if (value === undefined || value === null) return 0;
    return Array.isArray(value) ? value.length : 1;
  }
  return 1; // a single object is coerced to a list of one
}

/**
 * Lookups an operation asks for (0 for anything but a query), with its variables as coerced by
 * coerceVariables (raw variables would miss their defaults).
 */
export function countLookups(document: DocumentNode, op: OperationDefinitionNode, coerced: Variables): number {
  if (op.operation !== 'query') return 0;
  let n = 0;
  for (const field of rootFields(document, op, coerced)) {
    if (field.name.value === 'property') n += 1;
    else if (field.name.value === 'properties') n += itemsCount(field.arguments?.find((a) => a.name.value === 'items')?.value, coerced);
  }
  return n;
}

/**
 * Lookups the request's operation asks for: 0 when it cannot run (no document, no such operation,
 * invalid variables), since it then fails before any lookup.
 */
export function countRequestLookups(schema: GraphQLSchema, params: OperationParams): number {
  const document = documentOf(params);
  const op = document && getOperationAST(document, params.operationName ?? undefined);
  if (!document || !op) return 0;
  const vars = coerceVariables(schema, op, params.variables);
  return 'coerced' in vars ? countLookups(document, op, vars.coerced) : 0;
}

/** True when the operation selects only introspection fields (__schema, __type, __typename). */
export function isIntrospectionOnly(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return false;
  return rootFields(document, op, {}).every((f) => f.name.value.startsWith('__'));
}

/**
 * True unless the request's operation is introspection only: every other operation needs the API
 * key (as does one that cannot be read: its error is reported after the key is checked).
 */
export function needsApiKey(params: OperationParams): boolean {
  const text = operationText(params);
  const key = `${params.operationName ?? ''}\u0000${text ?? ''}`;
  let needs = keyDecisions.get(key);
  if (needs === undefined) {
    const document = documentOf(params);
    needs = document === null || !isIntrospectionOnly(document, params.operationName);
    keyDecisions.set(key, needs);
  }
  return needs;
}

/** needsApiKey's answers by operation name and document text: each document is parsed for it once. */
const keyDecisions = new LruMap<boolean>(1000);

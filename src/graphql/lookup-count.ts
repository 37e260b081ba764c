// How many lookups an operation asks for: each `property` field is one (and each `propertyHistory`), each `properties` field
// counts its items (literal lists, or list variables with their values), or one for a dry run. Counted on the executed
// document with the request's variables coerced as the executor coerces them (defaults applied, so
// @skip/@include leave out what they will leave out), so it is exact per request (Yoga caches
// validation per document, so a validation rule could not see the variables). Also: which
// operations need the API key (all but those asking only introspection and the public figures).
import {
  getOperationAST,
  getVariableValues,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
  type VariableValues,
} from 'graphql';
import { documentOf } from './documents.js';
import type { OperationParams } from './persisted.js';
import { collectFields, NO_VARIABLES } from './selection.js';

type Variables = VariableValues;

/** The operation's variables as the executor will see them, or why they cannot be coerced. */
export function coerceVariables(
  schema: GraphQLSchema,
  op: OperationDefinitionNode,
  raw: Readonly<Record<string, unknown>> | null | undefined,
): { variables: VariableValues } | { errors: readonly GraphQLError[] } {
  const result = getVariableValues(schema, op.variableDefinitions ?? [], raw ?? {}, { maxErrors: 50 });
  return result.errors ? { errors: result.errors } : { variables: result.variableValues };
}

const fragmentsOf = (document: DocumentNode): Record<string, FragmentDefinitionNode> =>
  Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );

/** The root fields the operation executes, one per response key (the executor resolves merged fields once, with the first one's arguments). */
const rootFields = (document: DocumentNode, op: OperationDefinitionNode, variables: Variables): FieldNode[] =>
  [...collectFields([op.selectionSet], { fragments: fragmentsOf(document), variables }).values()].map(
    (same) => same[0]!,
  );

function itemsCount(node: ValueNode | undefined, variables: Variables): number {
  if (!node || node.kind === Kind.NULL) return 0;
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.VARIABLE) {
    // Coerced values: a default is applied, a single item is already a list of one.
    const value = variables.coerced[node.name.value];
    if (value === undefined || value === null) return 0;
    return Array.isArray(value) ? value.length : 1;
  }
  return 1; // a single object is coerced to a list of one
}

/** A boolean argument's value: a literal, or a variable with its coerced value. */
function isTrue(node: ValueNode | undefined, variables: Variables): boolean {
  if (!node) return false;
  if (node.kind === Kind.BOOLEAN) return node.value;
  return node.kind === Kind.VARIABLE && variables.coerced[node.name.value] === true;
}

const argument = (field: FieldNode, name: string): ValueNode | undefined =>
  field.arguments?.find((a) => a.name.value === name)?.value;

/**
 * Lookups an operation asks for (0 for anything but a query), with its variables as coerced by
 * coerceVariables (raw variables would miss their defaults).
 */
export function countLookups(document: DocumentNode, op: OperationDefinitionNode, variables: Variables): number {
  if (op.operation !== 'query') return 0;
  let n = 0;
  for (const field of rootFields(document, op, variables)) {
    // A history read looks nothing up, but takes one unit as a lookup does.
    if (field.name.value === 'property' || field.name.value === 'propertyHistory') n += 1;
    // A dry run looks nothing up: it counts as one, whatever its items (the core takes one unit for it).
    else if (field.name.value === 'properties')
      n += isTrue(argument(field, 'dryRun'), variables) ? 1 : itemsCount(argument(field, 'items'), variables);
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
  return 'variables' in vars ? countLookups(document, op, vars.variables) : 0;
}

/** True when the operation selects only introspection fields (__schema, __type, __typename). */
export function isIntrospectionOnly(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return false;
  let only = introspectionOnly.get(op);
  if (only === undefined) {
    only = rootFields(document, op, NO_VARIABLES).every((f) => f.name.value.startsWith('__'));
    introspectionOnly.set(op, only);
  }
  return only;
}

/** isIntrospectionOnly's answers, kept with the (cached) document's operations: a repeated operation is walked once. */
const introspectionOnly = new WeakMap<OperationDefinitionNode, boolean>();

/** Root query fields answered without an API key, as their REST routes are (serviceStatus: GET /v1/status). */
export const KEYLESS_FIELDS: ReadonlySet<string> = new Set(['serviceStatus']);

/** True when the operation is a query selecting only introspection fields and KEYLESS_FIELDS. */
function isKeyless(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return false;
  let only = keyless.get(op);
  if (only === undefined) {
    only = rootFields(document, op, NO_VARIABLES).every(
      (f) => f.name.value.startsWith('__') || (op.operation === 'query' && KEYLESS_FIELDS.has(f.name.value)),
    );
    keyless.set(op, only);
  }
  return only;
}

const keyless = new WeakMap<OperationDefinitionNode, boolean>();

/**
 * True unless the request's operation asks only introspection and the public figures: every other
 * operation needs the API key (as does one that cannot be read: its error is reported after the key is checked).
 */
export function needsApiKey(params: OperationParams): boolean {
  const document = documentOf(params);
  return document === null || !isKeyless(document, params.operationName);
}

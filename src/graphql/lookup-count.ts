// How many lookups an operation asks for: each `property` field is one, each `properties` field
// counts its items (literal lists, or list variables with their values). Counted on the executed
// document with the request's variables, so it is exact per request (Yoga caches validation per
// document, so a validation rule could not see the variables).
import {
  getDirectiveValues, getOperationAST, GraphQLIncludeDirective, GraphQLSkipDirective, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode,
  type SelectionSetNode, type ValueNode,
} from 'graphql';

type Variables = Readonly<Record<string, unknown>>;

function included(node: FieldNode | { directives?: FieldNode['directives'] }, variables: Variables): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    // Unreadable directive arguments: count the field (validation or execution reports the rest).
  }
  return true;
}

/** The root fields the operation executes, by response key (merged like the executor does). */
function rootFields(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, variables: Variables): Map<string, FieldNode> {
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
  walk(set);
  return fields;
}

function listLength(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return Array.isArray(value) ? value.length : 1; // a single item is coerced to a list of one
}

function itemsCount(node: ValueNode | undefined, op: OperationDefinitionNode, variables: Variables): number {
  if (!node || node.kind === Kind.NULL) return 0;
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.VARIABLE) {
    const name = node.name.value;
    if (Object.hasOwn(variables, name)) return listLength(variables[name]);
    const fallback = op.variableDefinitions?.find((d) => d.variable.name.value === name)?.defaultValue;
    return fallback ? itemsCount(fallback, op, variables) : 0;
  }
  return 1;
}

/** Lookups the selected operation of `document` asks for (0 for anything but a query). */
export function countLookups(document: DocumentNode, operationName: string | null | undefined, variables: Variables | null | undefined): number {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op || op.operation !== 'query') return 0;
  const vars = variables ?? {};
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  let n = 0;
  for (const field of rootFields(op.selectionSet, fragments, vars).values()) {
    if (field.name.value === 'property') n += 1;
    else if (field.name.value === 'properties') n += itemsCount(field.arguments?.find((a) => a.name.value === 'items')?.value, op, vars);
  }
  return n;
}

/** True when the operation selects only introspection fields (__schema, __type, __typename). */
export function isIntrospectionOnly(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return false;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const fields = [...rootFields(op.selectionSet, fragments, {}).values()];
  return fields.every((f) => f.name.value.startsWith('__'));
}

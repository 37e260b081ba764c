// What an operation selects, as the executor will run it: the one walk of selection sets, used to
// count an operation's lookups before it executes (lookup-count.ts) and, in resolvers, to see whether
// `data.raw` was asked for (the core only builds `raw` then) and whether a list field is streamed.
// Fields left out by @skip/@include are not selected, wherever the walk is used.
import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionNode,
  type SelectionSetNode,
  type VariableValues,
} from 'graphql';
import type { LookupOptions } from '../contract/index.js';

/**
 * The operation's variables as graphql 17 hands them to the executor and to resolvers (info.variableValues):
 * `coerced` holds the values (defaults applied), `sources` what each was coerced from.
 */
type Variables = VariableValues;

/** No variables (a walk that reads none, e.g. whether an operation is introspection only). */
export const NO_VARIABLES: VariableValues = { sources: {}, coerced: {} };

/** What the walk needs: the operation's fragments by name, and its variables as the executor coerced them. */
export interface SelectionScope {
  fragments: Readonly<Record<string, FragmentDefinitionNode | undefined>>;
  variables: Variables;
}

/** False when @skip(if: true) or @include(if: false) leaves the selection out. */
function included(node: SelectionNode, variables: Variables): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    // Unreadable directive arguments (an invalid document): kept; validation reports it.
  }
  return true;
}

/**
 * The fields that selection sets execute, by response key, as the executor collects them: through
 * fragment spreads (each once) and inline fragments, without the selections @skip/@include leave
 * out. Fields under one response key are merged by the executor: it resolves them once.
 */
export function collectFields(sets: readonly SelectionSetNode[], scope: SelectionScope): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const spread = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (!included(s, scope.variables)) continue;
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        const same = fields.get(key);
        if (same) same.push(s);
        else fields.set(key, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (!spread.has(s.name.value)) {
        spread.add(s.name.value);
        const fragment = scope.fragments[s.name.value];
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return fields;
}

/** What a resolver's info tells the walk. */
export type ResolverSelection = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>;

/** True when the field being resolved selects `path` below it (by field name, not alias), e.g. ['data', 'raw']. */
export function selectsPath(info: ResolverSelection, path: readonly string[]): boolean {
  const scope: SelectionScope = { fragments: info.fragments, variables: info.variableValues };
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) {
    const sets = level.flatMap((f) => (f.selectionSet ? [f.selectionSet] : []));
    level = [...collectFields(sets, scope).values()].flat().filter((f) => f.name.value === name);
    if (level.length === 0) return false;
  }
  return true;
}

/** The lookup options with `raw` kept only when the field selects the record's raw at `rawPath`. */
export const rawOnlyWhenSelected = (
  options: LookupOptions,
  info: ResolverSelection,
  rawPath: readonly string[],
): LookupOptions => ({
  ...options,
  raw: options.raw && selectsPath(info, rawPath),
});

/** True when the field being resolved carries an active @stream (its `if` not false). */
export function streamRequested(info: GraphQLResolveInfo): boolean {
  const directive = info.schema.getDirective('stream');
  if (!directive) return false;
  return info.fieldNodes.some((node) => {
    if (!node.directives?.some((d) => d.name.value === 'stream')) return false;
    const values = getDirectiveValues(directive, node, info.variableValues);
    return values !== undefined && values.if !== false;
  });
}

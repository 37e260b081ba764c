// What the operation selected below a field, read from the resolver's info: whether `data.raw` was
// asked for (the core only builds `raw` then), and whether a list field is streamed.
import { getDirectiveValues, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { LookupOptions } from '../contract/index.js';

/** Sub-fields (by field name, not alias) of a selection set, through fragments and inline fragments. */
function childFields(set: SelectionSetNode | undefined, info: GraphQLResolveInfo, seen = new Set<string>()): FieldNode[] {
  if (!set) return [];
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) out.push(...childFields(s.selectionSet, info, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      out.push(...childFields(info.fragments[s.name.value]?.selectionSet, info, seen));
    }
  }
  return out;
}

/** True when the field being resolved selects `path` below it, e.g. ['data', 'raw']. */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) {
    level = level.flatMap((f) => childFields(f.selectionSet, info)).filter((f) => f.name.value === name);
    if (level.length === 0) return false;
  }
  return true;
}

/** The lookup options with `raw` kept only when the field selects the record's raw at `rawPath`. */
export const rawOnlyWhenSelected = (options: LookupOptions, info: GraphQLResolveInfo, rawPath: readonly string[]): LookupOptions => ({
  ...options,
  raw: options.raw && selectsPath(info, rawPath),
});

function streamed(nodes: readonly FieldNode[], info: GraphQLResolveInfo): boolean {
  const directive = info.schema.getDirective('stream');
  if (!directive) return false;
  return nodes.some((node) => {
    if (!node.directives?.some((d) => d.name.value === 'stream')) return false;
    const values = getDirectiveValues(directive, node, info.variableValues);
    return values !== undefined && values.if !== false;
  });
}

/** True when the field being resolved carries an active @stream (its `if` not false). */
export const streamRequested = (info: GraphQLResolveInfo): boolean => streamed(info.fieldNodes, info);

// GraphQL object fields generated from the contract's TypeBox schemas (src/contract/schema.ts), so the
// TypeScript types, the OpenAPI document and the GraphQL schema are one source and cannot drift:
// a field added, removed, renamed or re-typed in the contract changes schema.graphql (and the drift
// test fails until schema.graphql is re-printed). A TypeBox shape this file cannot map throws when
// the schema is built, never silently.
//
// Mapping: String → String, Number → Float, Integer → Int, Boolean → Boolean, Unknown → JSON (nullable),
// Array(x) → [x!]!, Ref(schema with $id) → the object type registered for that $id,
// Union(x, Null) → nullable x, Optional(x) → nullable x, a union of string literals → the enum
// registered for exactly that set of values (else String), an Object without properties whose values are
// additionalProperties (a map, e.g. errors by code) → JSON, an inline Object (no $id) → the object type
// registered for that very schema in TypeMap.inline. Names: snake_case → camelCase.
//
// Inputs (the arguments of Query.property and Query.properties, the LookupItem input) are generated
// the same way from the contract's input fields (src/contract/inputs.ts): an Optional field is a
// nullable argument, a required one non-null; Ref(x) is the input type registered for x's $id.
import { KindGuard, type TObject, type TSchema } from '@sinclair/typebox';
import type { InputFieldBuilder, InputType, ObjectFieldBuilder, OutputType } from '@pothos/core';
import type { Types } from './builder.js';

type Output = OutputType<Types>;
type Input = InputType<Types>;

/** `cache_key` → `cacheKey`; names already in camelCase are unchanged. */
export const toGraphqlName = (restName: string): string =>
  restName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** What a contract field becomes in GraphQL. */
export interface FieldPlan {
  /** The contract (REST) property name. */
  restName: string;
  /** The GraphQL field name. */
  name: string;
  /** The GraphQL type of the field, or of its items for a list. */
  type: Output;
  list: boolean;
  nullable: boolean;
  description: string | undefined;
}

export interface TypeMap {
  /** Object types by the TypeBox $id they stand for. */
  objects: Record<string, { ref: Output; name: string; description?: string | undefined }>;
  /** Enums by the exact set of string literals they stand for (an enum is an input type as well). */
  enums: Array<{ values: readonly string[]; ref: Output; name: string }>;
  /** Object types for inline object schemas (without $id), by the schema object itself. */
  inline?: ReadonlyMap<TSchema, { ref: Output; description?: string | undefined }>;
  /** Input types by the TypeBox $id they stand for. */
  inputs?: Record<string, { ref: Input; name: string }>;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function unwrapNullable(s: TSchema): { inner: TSchema; nullable: boolean } {
  if (KindGuard.IsUnion(s)) {
    const rest = s.anyOf.filter((m) => !KindGuard.IsNull(m));
    if (rest.length === 1 && rest.length < s.anyOf.length) return { inner: rest[0]!, nullable: true };
  }
  return { inner: s, nullable: false };
}

function literalStrings(s: TSchema): string[] | null {
  if (!KindGuard.IsUnion(s)) return null;
  const values: string[] = [];
  for (const m of s.anyOf) {
    if (!KindGuard.IsLiteralString(m)) return null;
    values.push(m.const);
  }
  return values;
}

/** An object schema that is a map: no properties of its own, its values typed by additionalProperties. */
const isMap = (s: TSchema): boolean =>
  KindGuard.IsObject(s) && Object.keys(s.properties).length === 0 && typeof s.additionalProperties === 'object';

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((v) => b.includes(v));

function leaf(s: TSchema, map: TypeMap, where: string): { type: Output } {
  if (KindGuard.IsString(s)) return { type: 'String' };
  if (KindGuard.IsInteger(s)) return { type: 'Int' };
  if (KindGuard.IsNumber(s)) return { type: 'Float' };
  if (KindGuard.IsBoolean(s)) return { type: 'Boolean' };
  if (KindGuard.IsUnknown(s)) return { type: 'JSON' };
  if (isMap(s)) return { type: 'JSON' };
  if (KindGuard.IsObject(s)) {
    const target = map.inline?.get(s);
    if (!target) throw new Error(`${where}: no GraphQL object type is registered for this inline object`);
    return { type: target.ref };
  }
  if (KindGuard.IsRef(s)) {
    const target = map.objects[s.$ref];
    if (!target) throw new Error(`${where}: no GraphQL object type is registered for $ref ${s.$ref}`);
    return { type: target.ref };
  }
  const literals = literalStrings(s);
  if (literals) {
    const e = map.enums.find((x) => sameSet(x.values, literals));
    return e ? { type: e.ref } : { type: 'String' };
  }
  throw new Error(`${where}: cannot map this TypeBox schema to GraphQL: ${JSON.stringify(s)}`);
}

/** The GraphQL plan of every property of a contract object schema, in the contract's order. */
export function planFields(schema: TObject, map: TypeMap, where = schema.$id ?? 'object'): FieldPlan[] {
  return Object.entries(schema.properties).map(([restName, prop]) => {
    const at = `${where}.${restName}`;
    const name = toGraphqlName(restName);
    if (!GRAPHQL_NAME.test(name)) throw new Error(`${at}: ${name} is not a valid GraphQL name`);
    const optional = KindGuard.IsOptional(prop);
    const { inner, nullable } = unwrapNullable(prop);
    const description = prop.description ?? inner.description ?? refDescription(inner, map);
    if (KindGuard.IsArray(inner)) {
      return {
        restName,
        name,
        ...leaf(inner.items, map, `${at}[]`),
        list: true,
        nullable: nullable || optional,
        description,
      };
    }
    // Unknown (JSON) is any JSON value, null among them.
    return {
      restName,
      name,
      ...leaf(inner, map, at),
      list: false,
      nullable: nullable || optional || KindGuard.IsUnknown(inner),
      description,
    };
  });
}

/** A reference field without its own description takes the referenced schema's. */
function refDescription(s: TSchema, map: TypeMap): string | undefined {
  if (KindGuard.IsObject(s)) return map.inline?.get(s)?.description;
  return KindGuard.IsRef(s) ? map.objects[s.$ref]?.description : undefined;
}

/**
 * The Pothos fields of a contract object: one per property, named in camelCase, typed and described
 * from the schema, resolving the contract (REST) property of the parent.
 */
export function contractFields<Shape extends object>(
  t: ObjectFieldBuilder<Types, Shape>,
  plans: readonly FieldPlan[],
): Record<string, ReturnType<typeof t.field>> {
  const fields: Record<string, ReturnType<typeof t.field>> = {};
  for (const p of plans) {
    fields[p.name] = t.field({
      // The type is only known at run time (it comes from the contract), so the static field type
      // is erased here; the generated schema (schema.graphql) and its drift test are the check.
      type: (p.list ? [p.type] : p.type) as never,
      nullable: (p.list ? { list: p.nullable, items: false } : p.nullable) as never,
      ...(p.description ? { description: p.description } : {}),
      resolve: (parent: Shape) => {
        const value = (parent as Record<string, unknown>)[p.restName];
        return (value === undefined ? null : value) as never;
      },
    });
  }
  return fields;
}

/** What a contract input field becomes in GraphQL: an argument, or a field of an input type. */
export interface InputPlan {
  restName: string;
  name: string;
  /** The GraphQL type of the input, or of its items for a list. */
  type: Input;
  list: boolean;
  required: boolean;
  description: string | undefined;
}

function inputLeaf(s: TSchema, map: TypeMap, where: string): Input {
  if (KindGuard.IsString(s)) return 'String';
  if (KindGuard.IsInteger(s)) return 'Int';
  if (KindGuard.IsNumber(s)) return 'Float';
  if (KindGuard.IsBoolean(s)) return 'Boolean';
  if (KindGuard.IsRef(s)) {
    const target = map.inputs?.[s.$ref];
    if (!target) throw new Error(`${where}: no GraphQL input type is registered for $ref ${s.$ref}`);
    return target.ref;
  }
  const literals = literalStrings(s);
  if (literals) {
    const e = map.enums.find((x) => sameSet(x.values, literals));
    return e ? (e.ref as Input) : 'String';
  }
  throw new Error(`${where}: cannot map this TypeBox schema to a GraphQL input: ${JSON.stringify(s)}`);
}

/**
 * The GraphQL plan of contract input fields, in their order. `optional: true` makes every one
 * nullable (the locators: which one is sent is a rule of the validator, or of @oneOf).
 */
export function planInputs(
  fields: Record<string, TSchema>,
  map: TypeMap,
  where: string,
  opts: { optional?: boolean } = {},
): InputPlan[] {
  return Object.entries(fields).map(([restName, schema]) => {
    const at = `${where}.${restName}`;
    const name = toGraphqlName(restName);
    if (!GRAPHQL_NAME.test(name)) throw new Error(`${at}: ${name} is not a valid GraphQL name`);
    const required = !opts.optional && !KindGuard.IsOptional(schema);
    const list = KindGuard.IsArray(schema);
    const type = inputLeaf(list ? schema.items : schema, map, list ? `${at}[]` : at);
    return { restName, name, type, list, required, description: schema.description };
  });
}

type InputOptions = { type: Input | [Input]; required: boolean; description?: string };

/** The Pothos inputs of a plan; `make` is `t.arg` for arguments or `t.field` of an input type. */
function contractInputs<Ref>(plans: readonly InputPlan[], make: (options: InputOptions) => Ref): Record<string, Ref> {
  return Object.fromEntries(
    plans.map((p) => [
      p.name,
      make({
        type: p.list ? [p.type] : p.type,
        required: p.required,
        ...(p.description ? { description: p.description } : {}),
      }),
    ]),
  );
}

/** Field arguments from contract input fields. The types are only known at run time: the validator reads the values. */
export function contractArgs(t: { arg: (options: never) => unknown }, plans: readonly InputPlan[]) {
  return contractInputs(plans, (o) => t.arg(o as never)) as Record<
    string,
    ReturnType<ObjectFieldBuilder<Types, unknown>['arg']>
  >;
}

/** The fields of an input type from contract input fields. */
export function contractInputFields(t: InputFieldBuilder<Types, 'InputObject'>, plans: readonly InputPlan[]) {
  return contractInputs(plans, (o) => t.field(o as never));
}

/** `maxAge` → `max_age`: toGraphqlName undone (the contract's input names are all snake_case). */
export const toRestName = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Input values keyed by their GraphQL names (`maxAge`), keyed again by the contract's (`max_age`): what the validator reads. */
export function restNamed(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [toRestName(k), v]));
}

// The GraphQL schema against its sources: every contract field is there under its camelCase name with
// the contract's type and nullability, and the committed codegen artefacts and docs agree with it.
// Whether schema.graphql is what the code prints is generate.test.ts's job (npm run generate's check,
// run there on the tree's outputs and shown answering both ways).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KindGuard, type TObject, type TSchema } from '@sinclair/typebox';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
  Kind,
  parse,
  validate,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AccountUsage,
  AddressDifference,
  AddressMatch,
  BatchTotals,
  FieldChange,
  BatchResult,
  HistoryEvent,
  HOME_STATUSES,
  LookupMeta,
  LookupSource,
  PortalPriceEvent,
  PortalProperty,
  PortalSchool,
  PortalTaxEvent,
  PROPERTY_FIELDS,
  PropertyResponse,
  STATUS_HINTS,
  LookupSections,
  SECTION_STATES,
  WatchView,
} from '../../src/contract/index.js';
import { DIFFERENCE_FIELDS, DIFFERENCE_KINDS } from '../../src/address/index.js';
import { printSchemaSdl, schema } from '../../src/graphql/index.js';
import { persistedOperation } from '../../src/graphql/persisted.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

// The contract schema each GraphQL object type is generated from.
const GENERATED: Array<[string, TObject]> = [
  ['PortalProperty', PortalProperty],
  ['PortalPriceEvent', PortalPriceEvent],
  ['PortalTaxEvent', PortalTaxEvent],
  ['PortalSchool', PortalSchool],
  ['LookupMeta', LookupMeta],
  ['LookupSource', LookupSource],
  ['LookupSections', LookupSections],
  ['FieldChange', FieldChange],
  ['AddressMatch', AddressMatch],
  ['AddressDifference', AddressDifference],
  ['PropertyLookup', PropertyResponse],
  ['BatchItemResult', BatchResult],
  ['BatchMeta', BatchTotals],
  ['AccountUsage', AccountUsage],
  ['Watch', WatchView],
  ['HistoryEvent', HistoryEvent],
];

const REF_TYPES: Record<string, string> = {
  PortalPriceEvent: 'PortalPriceEvent',
  PortalTaxEvent: 'PortalTaxEvent',
  PortalSchool: 'PortalSchool',
  PortalProperty: 'PortalProperty',
  LookupSource: 'LookupSource',
  LookupMeta: 'LookupMeta',
  ErrorBody: 'LookupError',
  AddressMatch: 'AddressMatch',
  AddressDifference: 'AddressDifference',
  FieldChange: 'FieldChange',
  LookupSections: 'LookupSections',
};

const literalSet = (s: TSchema): string =>
  KindGuard.IsUnion(s)
    ? s.anyOf
        .map((m) => String(m.const))
        .sort()
        .join()
    : '';

/** The GraphQL type the test expects for a contract property, written independently of src/graphql/typebox.ts. */
function expected(prop: TSchema): { name: string; list: boolean; nullable: boolean } {
  let s = prop;
  let nullable = KindGuard.IsOptional(prop);
  if (KindGuard.IsUnion(s) && s.anyOf.some((m) => KindGuard.IsNull(m))) {
    nullable = true;
    s = s.anyOf.find((m) => !KindGuard.IsNull(m))!;
  }
  // A JSON value may be null.
  if (KindGuard.IsUnknown(s)) nullable = true;
  const list = KindGuard.IsArray(s);
  const item: TSchema = KindGuard.IsArray(s) ? s.items : s;
  const name = KindGuard.IsString(item)
    ? 'String'
    : KindGuard.IsInteger(item)
      ? 'Int'
      : KindGuard.IsNumber(item)
        ? 'Float'
        : KindGuard.IsBoolean(item)
          ? 'Boolean'
          : KindGuard.IsUnknown(item)
            ? 'JSON'
            : KindGuard.IsRef(item)
              ? REF_TYPES[item.$ref]!
              : literalSet(item) === [...HOME_STATUSES].sort().join()
                ? 'HomeStatus'
                : literalSet(item) === [...DIFFERENCE_FIELDS].sort().join()
                  ? 'AddressDifferenceField'
                  : literalSet(item) === [...DIFFERENCE_KINDS].sort().join()
                    ? 'AddressDifferenceKind'
                    : literalSet(item) === [...SECTION_STATES].sort().join()
                      ? 'SectionState'
                      : 'String';
  return { name, list, nullable };
}

function actual(type: GraphQLOutputType): { name: string; list: boolean; nullable: boolean } {
  const nullable = !isNonNullType(type);
  const inner = getNullableType(type);
  const list = isListType(inner);
  if (list) expect(isNonNullType(inner.ofType), 'list items are never null').toBe(true);
  return { name: getNamedType(type).name, list, nullable };
}

describe('descriptions', () => {
  /** Every schema element of ours (not introspection's or the built-in scalars') without a description. */
  function undescribed(): string[] {
    const missing: string[] = [];
    const need = (description: string | null | undefined, where: string) => {
      if (!description?.trim()) missing.push(where);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      need(type.description, type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          need(field.description, `${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : [])
            need(arg.description, `${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) need(value.description, `${type.name}.${value.name}`);
    }
    for (const directive of schema.getDirectives()) {
      need(directive.description, `@${directive.name}`);
      for (const arg of directive.args) need(arg.description, `@${directive.name}(${arg.name})`);
    }
    return missing;
  }

  it('every type, field, argument, enum value and directive has one', () => {
    expect(undescribed()).toEqual([]);
  });
});

describe('object types generated from the contract (TypeBox) schemas', () => {
  it.each(GENERATED)(
    '%s has every contract field, camelCased, with its type, nullability and description',
    (typeName, contract) => {
      const type = schema.getType(typeName) as GraphQLObjectType;
      expect(isObjectType(type)).toBe(true);
      const fields = type.getFields();
      for (const [restName, prop] of Object.entries(contract.properties)) {
        const field: GraphQLField<unknown, unknown> | undefined = fields[camel(restName)];
        expect(Object.keys(fields), `${typeName}.${camel(restName)} (REST ${restName})`).toContain(camel(restName));
        expect(actual(field!.type), `${typeName}.${camel(restName)}`).toEqual(expected(prop));
        if (prop.description) expect(field!.description).toBe(prop.description);
      }
      const extra = Object.keys(fields).filter((f) => !Object.keys(contract.properties).map(camel).includes(f));
      // The only fields not in the contract: LookupSource's provider-specific descriptors (additionalProperties),
      // a home's history (a page of its timeline, read apart from its record), and the account's own record,
      // beside its usage (REST: routes of their own, /v1/account/usage and /charges).
      const own: Record<string, string[]> = {
        LookupSource: ['descriptors'],
        PortalProperty: ['history'],
        AccountUsage: ['charges', 'usage'],
      };
      expect(extra.sort()).toEqual(own[typeName] ?? []);
    },
  );

  it('enums carry the contract values', () => {
    const homeStatus = schema.getType('HomeStatus') as unknown as {
      getValues(): Array<{ name: string; value: unknown }>;
    };
    expect(
      homeStatus
        .getValues()
        .map((v) => v.value)
        .sort(),
    ).toEqual([...HOME_STATUSES].sort());
    const hint = schema.getType('StatusHint') as unknown as { getValues(): Array<{ name: string; value: unknown }> };
    expect(
      hint
        .getValues()
        .map((v) => [v.name, v.value])
        .sort(),
    ).toEqual(STATUS_HINTS.map((h) => [h.toUpperCase(), h]).sort());
    for (const [name, values] of [
      ['AddressDifferenceField', DIFFERENCE_FIELDS],
      ['AddressDifferenceKind', DIFFERENCE_KINDS],
      ['SectionState', SECTION_STATES],
    ] as const) {
      const e = schema.getType(name) as unknown as { getValues(): Array<{ name: string; value: unknown }> };
      expect(
        e
          .getValues()
          .map((v) => [v.name, v.value])
          .sort(),
      ).toEqual(values.map((v) => [v.toUpperCase(), v]).sort());
    }
  });

  it("LookupItem is an input of url, address, zpid and the item's maxAge (not @oneOf: one locator is the validator's rule)", () => {
    expect(printSchemaSdl()).toMatch(
      /input LookupItem \{[^}]*address: String[^}]*maxAge: Int[^}]*url: String[^}]*zpid: String\s*\}/,
    );
  });
});

describe('committed artefacts', () => {
  it('the test fragment PropertyFields selects every PortalProperty field but raw', () => {
    const doc = parse(read('src/graphql/operations/fragments.graphql'));
    const fragment = doc.definitions.find(
      (d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === 'PropertyFields',
    );
    const names = fragment!.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : s.kind));
    expect([...names].sort()).toEqual([...PROPERTY_FIELDS].sort());
  });

  it("the server serves codegen's persisted documents, each under its sha256 and valid against the schema", () => {
    const generated = JSON.parse(read('src/graphql/operations/generated/persisted-documents.json')) as Record<
      string,
      string
    >;
    expect(Object.keys(generated).length).toBeGreaterThan(3);
    for (const [hash, text] of Object.entries(generated)) {
      expect(persistedOperation(hash)).toBe(text);
      expect(createHash('sha256').update(text).digest('hex'), text).toBe(hash);
      expect(
        validate(schema, parse(text)).map((e) => e.message),
        text,
      ).toEqual([]);
    }
  });

  it('docs/graphql.md maps every REST field name to its GraphQL name', () => {
    const docs = read('docs/graphql.md');
    for (const [, contract] of GENERATED) {
      for (const restName of Object.keys(contract.properties)) {
        if (restName === camel(restName)) continue;
        expect(docs, `${restName} → ${camel(restName)}`).toContain(`| \`${restName}\` | \`${camel(restName)}\` |`);
      }
    }
  });
});

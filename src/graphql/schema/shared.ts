// What every schema file uses: the enums and object refs the contract's types map to, the request's
// lookup context, and how a resolver turns a LookupError that is not data into a coded GraphQL error.
// Refs are declared here and implemented in the file that owns the type (property.ts, batch.ts, …),
// so no schema file imports another for its shared parts.
import type { ImplementableObjectRef } from '@pothos/core';
import type { TObject } from '@sinclair/typebox';
import {
  FieldChange,
  HOME_STATUS_DESCRIPTIONS,
  HOME_STATUSES,
  isLookupError,
  LookupSections,
  LookupSource,
  PortalPriceEvent,
  PortalProperty,
  PortalSchool,
  STATUS_HINTS,
  SECTION_STATE_DESCRIPTIONS,
  SECTION_STATES,
  type Sections as SectionsShape,
  AddressDifference,
  AddressMatch,
  type AddressDifference as AddressDifferenceShape,
  type AddressMatch as AddressMatchShape,
  type FieldChange as FieldChangeShape,
  type LookupMeta as LookupMetaShape,
  type LookupSource as LookupSourceShape,
  type PortalPriceEvent as PriceEventShape,
  type PortalProperty as PropertyShape,
  type PortalSchool as SchoolShape,
  type PortalTaxEvent as TaxEventShape,
  PortalTaxEvent,
} from '../../contract/index.js';
import { DIFFERENCE_FIELDS, DIFFERENCE_KINDS } from '../../address/index.js';
import type { RequestContext } from '../../lookup/index.js';
import { builder, type GraphqlContext, type Types } from '../builder.js';
import { toGraphQLError, type CodedErrorOptions } from '../errors.js';
import { contractFields, planFields, type TypeMap } from '../typebox.js';

export const HomeStatusEnum = builder.enumType('HomeStatus', {
  description:
    'The listing status of a home (PortalProperty.homeStatus). Homes that are not listed usually come back as OTHER.',
  values: Object.fromEntries(HOME_STATUSES.map((s) => [s, { value: s, description: HOME_STATUS_DESCRIPTIONS[s] }])),
});

/** GraphQL enum values are upper case; their values are the contract's hints (for_sale, sold, for_rent). */
export const StatusHintEnum = builder.enumType('StatusHint', {
  description:
    'Hint for which listing to read (REST: status=for_sale|sold|for_rent). If omitted, detected automatically.',
  values: Object.fromEntries(STATUS_HINTS.map((h) => [h.toUpperCase(), { value: h, description: `REST: ${h}` }])),
});

/** Upper-case GraphQL enum values standing for the contract's lower-case ones (as StatusHint). */
const upperCaseEnum = (values: readonly string[]) =>
  Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v, description: `REST: ${v}` }]));

export const DifferenceFieldEnum = builder.enumType('AddressDifferenceField', {
  description: 'The part of an address a match difference is in (AddressDifference.field).',
  values: upperCaseEnum(DIFFERENCE_FIELDS),
});

export const DifferenceKindEnum = builder.enumType('AddressDifferenceKind', {
  description: 'How a part of an address differs in a match (AddressDifference.kind).',
  values: upperCaseEnum(DIFFERENCE_KINDS),
});

/** meta.sections' states; values are the contract's (present, not_published, …). */
export const SectionStateEnum = builder.enumType('SectionState', {
  description: 'What the page held of a section (LookupSections).',
  values: Object.fromEntries(
    SECTION_STATES.map((s) => [
      s.toUpperCase(),
      { value: s, description: `${SECTION_STATE_DESCRIPTIONS[s]} (REST: ${s})` },
    ]),
  ),
});

export const PriceEventType = builder.objectRef<PriceEventShape>('PortalPriceEvent');
export const TaxEventType = builder.objectRef<TaxEventShape>('PortalTaxEvent');
export const SchoolType = builder.objectRef<SchoolShape>('PortalSchool');
export const PropertyType = builder.objectRef<PropertyShape>('PortalProperty');
export const LookupSourceType = builder.objectRef<LookupSourceShape>('LookupSource');
export const LookupMetaType = builder.objectRef<LookupMetaShape>('LookupMeta');
export const LookupSectionsType = builder.objectRef<SectionsShape>('LookupSections');
export const FieldChangeType = builder.objectRef<FieldChangeShape>('FieldChange');
export const AddressMatchType = builder.objectRef<AddressMatchShape>('AddressMatch');
export const AddressDifferenceType = builder.objectRef<AddressDifferenceShape>('AddressDifference');

/** Which GraphQL type stands for each contract schema and enum. */
export const contractTypes: TypeMap = {
  objects: {
    PortalPriceEvent: { ref: PriceEventType, name: 'PortalPriceEvent', description: PortalPriceEvent.description },
    PortalTaxEvent: { ref: TaxEventType, name: 'PortalTaxEvent', description: PortalTaxEvent.description },
    PortalSchool: { ref: SchoolType, name: 'PortalSchool', description: PortalSchool.description },
    PortalProperty: { ref: PropertyType, name: 'PortalProperty', description: PortalProperty.description },
    LookupSource: { ref: LookupSourceType, name: 'LookupSource', description: LookupSource.description },
    LookupMeta: { ref: LookupMetaType, name: 'LookupMeta', description: 'How the lookup was served and billed' },
    LookupSections: { ref: LookupSectionsType, name: 'LookupSections', description: LookupSections.description },
    FieldChange: { ref: FieldChangeType, name: 'FieldChange', description: FieldChange.description },
    AddressMatch: { ref: AddressMatchType, name: 'AddressMatch', description: AddressMatch.description },
    AddressDifference: {
      ref: AddressDifferenceType,
      name: 'AddressDifference',
      description: AddressDifference.description,
    },
  },
  enums: [
    { values: HOME_STATUSES, ref: HomeStatusEnum, name: 'HomeStatus' },
    { values: SECTION_STATES, ref: SectionStateEnum, name: 'SectionState' },
    { values: STATUS_HINTS, ref: StatusHintEnum, name: 'StatusHint' },
    { values: DIFFERENCE_FIELDS, ref: DifferenceFieldEnum, name: 'AddressDifferenceField' },
    { values: DIFFERENCE_KINDS, ref: DifferenceKindEnum, name: 'AddressDifferenceKind' },
  ],
};

/**
 * A GraphQL object type whose fields are exactly a contract schema's (generated from TypeBox), with
 * the contract's description unless another is given.
 */
export function implementFromContract<Shape extends object>(
  ref: ImplementableObjectRef<Types, Shape>,
  contract: TObject,
  opts: { description?: string; types?: TypeMap } = {},
): void {
  ref.implement({
    description: opts.description ?? contract.description,
    fields: (t) => contractFields(t, planFields(contract, opts.types ?? contractTypes)),
  });
}

/** The request's lookup context; only operations asking introspection and the public figures run without one. */
export function requireLookup(ctx: GraphqlContext): RequestContext {
  if (!ctx.lookup) throw new Error('no lookup context: the operation was taken for a keyless one');
  return ctx.lookup;
}

/**
 * A failure that is not data (a refused batch, the account store down) as a coded GraphQL error;
 * anything else is rethrown as is (masked as `internal` by yoga.ts).
 */
export function rethrowCoded(e: unknown, opts?: CodedErrorOptions): never {
  if (isLookupError(e)) throw toGraphQLError(e, opts);
  throw e;
}

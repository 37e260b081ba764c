// One home: the contract's record types (generated from the TypeBox schemas) and
// Query.property, which calls the same core function as GET /v1/portal/property.
import { ENV } from '../../config.js';
import {
  AddressDifference,
  AddressMatch,
  FieldChange,
  humanMs,
  LOCATOR_FIELDS,
  lookupDescription,
  LookupMeta,
  LookupSections,
  LookupSource,
  OPTION_FIELDS,
  PortalPriceEvent,
  PortalProperty,
  PortalSchool,
  PortalTaxEvent,
  PropertyResponse,
  parseLocator,
  parseLookupOptions,
} from '../../contract/index.js';
import { lookupOne, parsedLookup, type LookupOutcome } from '../../lookup/index.js';
import { builder } from '../builder.js';
import { rawOnlyWhenSelected } from '../selection.js';
import { contractArgs, contractFields, planFields, planInputs, restNamed } from '../typebox.js';
import { failureValue, LookupErrorType } from './errors.js';
import { JsonScalar } from './scalars.js';
import {
  AddressDifferenceType,
  AddressMatchType,
  contractTypes,
  FieldChangeType,
  implementFromContract,
  LookupMetaType,
  LookupSectionsType,
  LookupSourceType,
  PriceEventType,
  PropertyType,
  requireLookup,
  SchoolType,
  TaxEventType,
} from './shared.js';

export const PropertyLookupType = builder.objectRef<LookupOutcome>('PropertyLookup');

implementFromContract(PriceEventType, PortalPriceEvent);
implementFromContract(TaxEventType, PortalTaxEvent);
implementFromContract(SchoolType, PortalSchool);
implementFromContract(PropertyType, PortalProperty);

const declaredSourceKeys = new Set(Object.keys(LookupSource.properties));
LookupSourceType.implement({
  description: LookupSource.description,
  fields: (t) => ({
    ...contractFields(t, planFields(LookupSource, contractTypes)),
    // The contract allows provider-specific descriptor fields beyond the declared ones.
    descriptors: t.field({
      type: JsonScalar,
      nullable: true,
      description:
        'Provider-specific descriptor fields (e.g. page_generation), under their REST names; null when there are none',
      resolve: (s) => {
        const extra = Object.entries(s).filter(([k]) => !declaredSourceKeys.has(k));
        return extra.length > 0 ? Object.fromEntries(extra) : null;
      },
    }),
  }),
});
implementFromContract(FieldChangeType, FieldChange);
implementFromContract(AddressDifferenceType, AddressDifference);
implementFromContract(AddressMatchType, AddressMatch);
implementFromContract(LookupSectionsType, LookupSections);
implementFromContract(LookupMetaType, LookupMeta, {
  description: 'How the lookup was served and billed (REST: meta).',
});
implementFromContract(PropertyLookupType, PropertyResponse, {
  description: 'A home that was found (REST: the 200 body of GET /v1/portal/property).',
});

/** The home, or why not: a LookupError is data here, like REST's error envelope. */
export const PropertyResultType = builder.unionType('PropertyResult', {
  description: 'The home (PropertyLookup), or why not (LookupError).',
  types: [PropertyLookupType, LookupErrorType],
  resolveType: (value) => ('code' in value ? LookupErrorType : PropertyLookupType),
});

builder.queryField('property', (t) =>
  t.field({
    type: PropertyResultType,
    description:
      // The schema is printed once (schema.graphql), so the cache lifetime is named, not the figure.
      `One home by link, zpid or address (REST: GET /v1/portal/property). ${lookupDescription(`the cache lifetime, CACHE_TTL_MS: ${humanMs(ENV.properties.CACHE_TTL_MS.default)} by default`)} ` +
      'Failures, including invalid input, come back as LookupError.',
    // The contract's query parameters (REST's url, zpid, address, status, raw), each nullable: the
    // validator answers for the values, as it does for REST.
    args: contractArgs(t, [
      ...planInputs(LOCATOR_FIELDS, contractTypes, 'property', { optional: true }),
      ...planInputs(OPTION_FIELDS, contractTypes, 'property'),
    ]),
    resolve: async (_root, args, ctx, info) => {
      const lookup = requireLookup(ctx);
      try {
        // `raw` is only built when the operation selects data.raw.
        // Parsed through the core, which counts invalid input as this lookup's outcome.
        const { locator, options } = parsedLookup(lookup, () => ({
          options: rawOnlyWhenSelected(parseLookupOptions(restNamed(args)), info, ['data', 'raw']),
          locator: parseLocator(args),
        }));
        return await lookupOne(lookup, locator, options, ctx.admission);
      } catch (e) {
        // Every failure is the answer, never a thrown field error (the field is non-null: a throw
        // would null the whole operation, whose other lookups may already be billed). A LookupError
        // (invalid input included) as is; anything else masked as `internal` and logged.
        return failureValue(e, lookup);
      }
    },
  }),
);

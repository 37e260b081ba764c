// The JSON scalar: `PortalProperty.raw` (the unmapped source record, no stable shape),
// `LookupError.details` and `LookupSource.descriptors` carry JSON as is.
import { valueFromASTUntyped } from 'graphql';
import { builder } from '../builder.js';

export const JsonScalar = builder.scalarType('JSON', {
  description: 'Any JSON value, passed through unchanged (objects keep their REST key names).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables ?? undefined),
});

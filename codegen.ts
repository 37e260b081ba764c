// GraphQL Code Generator's configuration: typed documents (client preset) and the persisted
// documents (sha256 → document, which the server serves: graphql/persisted.ts) from the operations
// in src/graphql/operations/ and the schema printed from the code. Run by `npm run generate`
// (scripts/generate.ts), after the schema is printed; the output is committed and `npm test` checks
// that it is current.
import { createHash } from 'node:crypto';
import type { CodegenConfig } from '@graphql-codegen/cli';

export const OPERATIONS = 'src/graphql/operations/';
export const GENERATED = `${OPERATIONS}generated/`;

const config: CodegenConfig = {
  schema: './schema.graphql',
  documents: [`${OPERATIONS}*.graphql`],
  ignoreNoDocuments: false,
  silent: true,
  generates: {
    [GENERATED]: {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: {
          mode: 'embedHashInDocument',
          // The bare hex digest, as clients send it in extensions.persistedQuery.sha256Hash (the preset's
          // own 'sha256' writes `sha256:<hex>` since client-preset 6).
          hashAlgorithm: (operation: string) => createHash('sha256').update(operation).digest('hex'),
        },
      },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        emitLegacyCommonJSImports: false,
        scalars: { JSON: 'unknown' },
      },
    },
  },
};

export default config;

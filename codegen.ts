// GraphQL Code Generator: typed documents for clients (and our tests) from the committed SDL.
// `npm run codegen` after changing schema.graphql (npm run schema:print) or an operation.
// Output is committed; CI does not run codegen. The client preset's persisted-documents.json
// (sha256 → document) is also copied to src/graphql/, where the server's persisted-operation
// store reads it.
import { copyFileSync } from 'node:fs';
import type { CodegenConfig } from '@graphql-codegen/cli';

const OUT = 'test/graphql/gql/';

const config: CodegenConfig = {
  schema: './schema.graphql',
  documents: ['test/graphql/operations/**/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    [OUT]: {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        emitLegacyCommonJSImports: false,
        scalars: { JSON: 'unknown' },
      },
    },
  },
  hooks: {
    afterAllFileWrite: [() => copyFileSync(`${OUT}persisted-documents.json`, 'src/graphql/persisted-documents.json')],
  },
};

export default config;

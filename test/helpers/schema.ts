// Checks a response body against the contract's schemas (the same ones the OpenAPI document is made of).
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'vitest';
import { CONTRACT_SCHEMAS } from '../../src/contract/index.js';

if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => URL.canParse(v));
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v));

const refs = [...CONTRACT_SCHEMAS] as TSchema[];

export function expectSchema(schema: TSchema, value: unknown): void {
  const errors = [...Value.Errors(schema, refs, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
}

// Checks a response body against the contract's schemas (the same ones the OpenAPI document is made of).
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { expect } from 'vitest';
import { CONTRACT_SCHEMAS } from '../../src/contract/index.js';

const refs = [...CONTRACT_SCHEMAS] as TSchema[];

export function expectSchema(schema: TSchema, value: unknown): void {
  const errors = [...Value.Errors(schema, refs, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
}

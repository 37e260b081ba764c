// The error a lookup fails with, for tests of the collector's failure paths.
import { expect } from 'vitest';
import { LookupError } from '../../src/contract/index.js';

/** The LookupError a promise rejects with (fails the test when it resolves or rejects with something else). */
export async function failure(p: Promise<unknown>): Promise<LookupError> {
  const e = await p.then(
    () => {
      throw new Error('expected a LookupError, the call succeeded');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(LookupError);
  return e as LookupError;
}

// failureOf: what every face answers a throw with. A LookupError is the answer as is and logs
// nothing; anything else is the masked `internal` and is logged once, with what was really thrown.
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { failureOf } from '../../src/lookup/index.js';

function log() {
  const lines: Array<{ obj: object; msg: string }> = [];
  return { lines, error: (obj: object, msg: string) => void lines.push({ obj, msg }) };
}

describe('failureOf', () => {
  it("answers a LookupError with itself and logs nothing (the client's or the upstream's, not ours)", () => {
    const l = log();
    const refused = new LookupError('credits_exhausted');
    expect(failureOf(refused, l)).toBe(refused);
    expect(l.lines).toEqual([]);
  });

  it('masks anything else as internal and logs the thrown value once, with the given message and bindings', () => {
    const l = log();
    const bug = new TypeError("Cannot read properties of undefined (reading 'zpid')");
    const err = failureOf(bug, l, 'batch item failed', { index: 3 });
    expect(err.code).toBe('internal');
    expect(err.message).not.toContain('zpid'); // the client never sees the bug's text
    expect(l.lines).toEqual([{ obj: { err: bug, index: 3 }, msg: 'batch item failed' }]);
  });
});

// An MCP tool's failures go through the core's failureOf, as REST's and GraphQL's do: an unexpected
// throw is answered `internal` (nothing of it shown) and logged once with what was really thrown; a
// client's error is answered with its code and logged nothing.
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { toolDefinitions, type OpenContext } from '../../src/mcp/tools.js';

const config = { batchDeadlineMs: 25_000, cacheTtlMs: 3_600_000 };
/** Neither tool below reads the figures or the delivery log. */
const parts = { figures: { status: () => Promise.reject(new Error('unused')) }, background: { webhooks: {} as never } };

function capturingLog() {
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return { lines, error: (obj: object, msg: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }) };
}

describe('MCP tool errors', () => {
  it('an unexpected throw: a tool error with code internal, logged once with the thrown error', async () => {
    const bug = new TypeError('cannot read x of undefined');
    const open: OpenContext = () => Promise.reject(bug);
    const log = capturingLog();
    const result = await toolDefinitions(open, config, parts).account_usage.handler(
      {},
      new AbortController().signal,
      log,
    );
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('internal');
    const text = (result.content[0] as { text: string }).text;
    expect(text).not.toContain('cannot read x');
    expect(log.lines).toEqual([{ obj: { err: bug }, msg: 'internal error in an MCP tool' }]);
  });

  it("a client's error: its code, nothing logged", async () => {
    const open: OpenContext = () => Promise.reject(new LookupError('invalid_api_key'));
    const log = capturingLog();
    const result = await toolDefinitions(open, config, parts).lookup_property.handler(
      { zpid: 1 },
      new AbortController().signal,
      log,
    );
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(log.lines).toEqual([]);
  });
});

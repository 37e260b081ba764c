// The suite can run as on a later day (scripts/test-shifted.sh, TEST_DATE_SHIFT in .ci/run): the preload
// moves a Node process's calendar and nothing else about Date, and a run asked to be shifted really is,
// in this worker and in the processes tests spawn (a shift silently not applied would prove nothing).
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs preload (it runs before any loader), without types
import { parseShift } from '../helpers/shift-date.mjs';

const preload = new URL('../helpers/shift-date.mjs', import.meta.url).pathname;
const DAY = 86_400_000;
/** The real time, whether or not this run is shifted itself. */
const realNow = () => Date.now() - ((globalThis as { __dateShifted?: number }).__dateShifted ?? 0);

/** What a fresh Node process with the preload and TEST_DATE_SHIFT=shift prints for `script`. */
function shifted(shift: string, script: string): unknown {
  const env = { ...process.env, TEST_DATE_SHIFT: shift, NODE_OPTIONS: `--import=${preload}` };
  const r = spawnSync(process.execPath, ['-e', `console.log(JSON.stringify(${script}))`], { env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the date-shift preload', () => {
  it('reads durations, and refuses what is not one', () => {
    expect(parseShift('30d')).toBe(30 * DAY);
    expect(parseShift('+365d')).toBe(365 * DAY);
    expect(parseShift('-2h')).toBe(-2 * 3_600_000);
    expect(parseShift('1.5s')).toBe(1_500);
    expect(() => parseShift('a month')).toThrow(/not a duration/);
  });

  it('moves Date.now, new Date() and Date(), and leaves the rest of Date as it is', () => {
    const before = realNow();
    const out = shifted(
      '365d',
      `{ now: Date.now(), made: new Date().getTime(), text: Date(), epoch: new Date(0).toISOString(),
      parsed: Date.parse('2020-01-01T00:00:00Z'), utc: Date.UTC(2020, 0, 1), isDate: new Date() instanceof Date,
      native: require('node:fs').statSync('.').mtime instanceof Date, ctor: new Date().constructor === Date, name: Date.name,
      sub: (() => { class D extends Date {} return new D(5).getTime(); })(), mono: performance.timeOrigin < Date.now() - 300 * 86400000 }`,
    ) as Record<string, unknown>;
    const after = realNow();
    for (const k of ['now', 'made'] as const) {
      expect(out[k]).toBeGreaterThanOrEqual(before + 365 * DAY);
      expect(out[k]).toBeLessThanOrEqual(after + 365 * DAY);
    }
    expect(new Date(out.text as string).getUTCFullYear()).toBe(new Date(before + 365 * DAY).getUTCFullYear());
    expect(out).toMatchObject({
      epoch: '1970-01-01T00:00:00.000Z',
      parsed: 1577836800000,
      utc: 1577836800000,
      isDate: true,
      native: true,
      ctor: true,
      name: 'Date',
      sub: 5,
      // Monotonic time is not moved: timers and durations stay true.
      mono: true,
    });
    expect(statSync('.').mtime instanceof Date).toBe(true);
  });

  it('a run asked to be shifted is shifted, here and in the processes it starts', () => {
    const asked = process.env.TEST_DATE_SHIFT;
    if (!asked) {
      expect((globalThis as { __dateShifted?: number }).__dateShifted).toBeUndefined();
      return;
    }
    const shift = parseShift(asked) as number;
    expect((globalThis as { __dateShifted?: number }).__dateShifted).toBe(shift);
    const child = spawnSync(process.execPath, ['-p', 'globalThis.__dateShifted'], { encoding: 'utf8' });
    expect(Number(child.stdout.trim())).toBe(shift);
  });
});

// Moves this Node process's calendar by TEST_DATE_SHIFT (`1d`, `30d`, `365d`, `-2h`, `90m`, …): Date.now(),
// `new Date()` and `Date()` read the real time plus the shift; everything else about Date is unchanged, and
// monotonic clocks (performance.now, timers) are not touched. Loaded with
// NODE_OPTIONS=--import=<this file>, so every Node process of a test run (vitest's workers, the services and
// workers tests spawn) moves together, while redis-server and Chromium keep the real time: the suite then
// runs as it will on a later day, against a store whose clock is not the service's. `npm run test:shifted`.
const UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseShift(text) {
  const m = /^([+-]?\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(String(text).trim());
  if (!m) throw new Error(`TEST_DATE_SHIFT: "${text}" is not a duration like 30d, 12h, -90m or 500ms`);
  return Math.round(Number(m[1]) * UNITS[m[2]]);
}

const raw = process.env.TEST_DATE_SHIFT;
const shift = raw ? parseShift(raw) : 0;

if (shift !== 0 && !globalThis.__dateShifted) {
  const RealDate = Date;
  const realNow = RealDate.now;
  // A function, not a subclass: Dates made anywhere (native code too) stay `instanceof Date`.
  function ShiftedDate(...args) {
    if (!new.target) return new RealDate(realNow() + shift).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [realNow() + shift] : args, new.target);
  }
  Object.setPrototypeOf(ShiftedDate, RealDate);
  ShiftedDate.prototype = RealDate.prototype;
  RealDate.prototype.constructor = ShiftedDate;
  ShiftedDate.now = () => realNow() + shift;
  Object.defineProperty(ShiftedDate, 'name', { value: 'Date' });
  Object.defineProperty(ShiftedDate, 'length', { value: 7 });
  globalThis.Date = ShiftedDate;
  Object.defineProperty(globalThis, '__dateShifted', { value: shift });
}

export const BENCH_KEY = 'bench_key_000001';
/** Ten-digit zpids, like the recorded page's, so the fake site can write them into it in place. */
export const zpids = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(3_000_000_000 + from + i));

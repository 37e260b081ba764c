export const BENCH_KEY = 'bench_key_000001';
/** Homes of the recorded pages, read once before measuring so every lookup is a cache hit. */
export const ZPIDS = ['2146993218', '114303858', '15192198'];

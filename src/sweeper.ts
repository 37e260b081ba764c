// The sweep of reservations a crashed lookup left held (their lease lapsed): every process that runs
// lookups runs it, the service and `npm run worker` alike (a deployment may run workers only beside
// WORK_IN_SERVICE=false instances, whose chunks' reservations must still come back).
import type { Logger } from 'pino';
import type { Store } from './store/index.js';

/** At most this long between sweeps; with leases, a crashed process's reservations are swept within about a lease. */
const SWEEP_EVERY_MS = 60_000;

/** Sweeps every lease (at most every minute) until the returned stop is called; never keeps the process alive. */
export function startSweeper(store: Pick<Store, 'sweep'>, leaseTtlMs: number, logger: Logger): () => void {
  const sweeper = setInterval(
    () => {
      store.sweep().then(
        (n) => n > 0 && logger.warn({ released: n }, 'released reservations left by a crashed lookup'),
        () => undefined,
      );
    },
    Math.min(SWEEP_EVERY_MS, leaseTtlMs),
  );
  sweeper.unref();
  return () => clearInterval(sweeper);
}

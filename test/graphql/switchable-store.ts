// A store that counts calls and whose methods can be made to fail on demand, to show how each face reports a store that is
// down (LookupError store_unavailable, as the Redis store reports it) or a bug (any other error). The store behind it
// can be replaced, so a test can start from an empty store without a new service.
import type { Store } from '../../src/store/index.js';

export interface Switch {
  /** Methods that fail, and how; empty: everything works. */
  failing: Map<keyof Store, () => unknown>;
  /** How many times each method was called. */
  calls: Map<keyof Store, number>;
  /** Sends every later call to `next` instead. */
  replace(next: Store): void;
}

export function switchableStore(inner: Store): { store: Store; sw: Switch } {
  let current = inner;
  const sw: Switch = { failing: new Map(), calls: new Map(), replace: (next) => void (current = next) };
  const store = new Proxy(inner, {
    get(_target, prop) {
      if (typeof Reflect.get(current, prop, current) !== 'function') return Reflect.get(current, prop, current);
      // The store is looked up at each call: a method taken once (wrapped, bound) follows a replace().
      return (...args: unknown[]) => {
        sw.calls.set(prop as keyof Store, (sw.calls.get(prop as keyof Store) ?? 0) + 1);
        const fail = sw.failing.get(prop as keyof Store);
        if (fail) return Promise.reject(fail());
        return (Reflect.get(current, prop, current) as (...a: unknown[]) => unknown).apply(current, args);
      };
    },
  });
  return { store, sw };
}

// A store that counts calls and whose methods can be made to fail on demand, to show how each face reports a store that is
// down (LookupError store_unavailable, as the Redis store reports it) or a bug (any other error).
import type { Store } from '../../src/store/index.js';

export interface Switch {
  /** Methods that fail, and how; empty: everything works. */
  failing: Map<keyof Store, () => unknown>;
  /** How many times each method was called. */
  calls: Map<keyof Store, number>;
}

export function switchableStore(inner: Store): { store: Store; sw: Switch } {
  const sw: Switch = { failing: new Map(), calls: new Map() };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        sw.calls.set(prop as keyof Store, (sw.calls.get(prop as keyof Store) ?? 0) + 1);
        const fail = sw.failing.get(prop as keyof Store);
        if (fail) return Promise.reject(fail());
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, sw };
}

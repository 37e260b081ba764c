// A Map that forgets its least recently used keys once their total size passes a bound. Reading a
// key (get) makes it the most recent. Used for the memory store's cache and the API-key cache.

export class LruMap<V> extends Map<string, V> {
  #total = 0;
  readonly #max: number;
  readonly #sizeOf: (value: V) => number;

  /** `sizeOf` of every value must not change while it is held. */
  constructor(max: number, sizeOf: (value: V) => number = () => 1) {
    super();
    this.#max = max;
    this.#sizeOf = sizeOf;
  }

  /** The sum of the held values' sizes. */
  get total(): number {
    return this.#total;
  }

  override get(key: string): V | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      super.delete(key);
      super.set(key, value);
    }
    return value;
  }

  override set(key: string, value: V): this {
    this.delete(key);
    super.set(key, value);
    this.#total += this.#sizeOf(value);
    // Oldest first (a Map iterates in insertion order, and get() re-inserts); the newest always stays.
    for (const oldest of super.keys()) {
      if (this.#total <= this.#max || oldest === key) break;
      this.delete(oldest);
    }
    return this;
  }

  override delete(key: string): boolean {
    const value = super.get(key);
    if (value === undefined) return false;
    this.#total -= this.#sizeOf(value);
    return super.delete(key);
  }

  override clear(): void {
    super.clear();
    this.#total = 0;
  }
}

// The memory store's figures (FiguresStore): the buckets and instance states in this process, expiring as
// Redis keys do (read as absent once expired, dropped by sweep).
import type { FigureAdd, FigureCounts, FiguresStore } from './figures-store.js';

interface Held<T> {
  value: T;
  expiresAt: number;
}

export class MemoryFigures implements FiguresStore {
  private readonly buckets = new Map<string, Held<FigureCounts>>();
  private readonly states = new Map<string, Held<string>>();

  constructor(private readonly clock: () => number) {}

  async addFigures(adds: readonly FigureAdd[]): Promise<void> {
    const now = this.clock();
    for (const { bucket, counts, ttlMs } of adds) {
      const held = this.buckets.get(bucket);
      const value = held && held.expiresAt > now ? held.value : {};
      for (const [field, n] of Object.entries(counts)) value[field] = (value[field] ?? 0) + n;
      this.buckets.set(bucket, { value, expiresAt: now + ttlMs });
    }
  }

  async readFigures(buckets: readonly string[]): Promise<FigureCounts[]> {
    const now = this.clock();
    return buckets.map((name) => {
      const held = this.buckets.get(name);
      return held && held.expiresAt > now ? { ...held.value } : {};
    });
  }

  async putInstanceState(instance: string, state: string, ttlMs: number): Promise<void> {
    this.states.set(instance, { value: state, expiresAt: this.clock() + ttlMs });
  }

  async instanceStates(): Promise<string[]> {
    const now = this.clock();
    return [...this.states.values()].filter((s) => s.expiresAt > now).map((s) => s.value);
  }

  /** Drops what has expired (the memory store's sweep). */
  sweep(now: number): void {
    for (const map of [this.buckets, this.states] as Map<string, Held<unknown>>[]) {
      for (const [key, held] of [...map]) if (held.expiresAt <= now) map.delete(key);
    }
  }
}

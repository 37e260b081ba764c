// The wrappers that measure the store and the collector without the core knowing (issue 12).
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { instrumentStore, underlyingStore } from '../../src/observability/instrument.js';
import { holdingsOf, pendingVoidsIn } from '../../src/lookup/holdings.js';
import pino from 'pino';
import { ServiceMetrics } from '../../src/observability/metrics.js';
import { MemoryStore } from '../../src/store/index.js';
import { parseMetrics, valueOf } from './prometheus.js';

describe('instrumentStore', () => {
  it('times each call by method, counts failures by code, and passes everything else through', async () => {
    const metrics = new ServiceMetrics();
    try {
      const store = new MemoryStore();
      const failing = Object.assign(Object.create(store) as MemoryStore, {
        getMemo: () => Promise.reject(new LookupError('store_unavailable')),
        sweep: () => Promise.reject(new Error('a bug')),
      });
      const measured = instrumentStore(failing, metrics);
      expect(measured.kind).toBe('memory');
      await measured.putMemo('addr:1 main st', { code: 'address_ambiguous', message: 'x' }, 60_000);
      await expect(measured.getMemo('addr:1 main st')).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(measured.sweep()).rejects.toThrow('a bug');
      const samples = parseMetrics(await metrics.registry.metrics());
      expect(valueOf(samples, 'store_command_seconds_count', { command: 'putMemo' })).toBe(1);
      expect(valueOf(samples, 'store_command_seconds_count', { command: 'getMemo' })).toBe(1);
      expect(valueOf(samples, 'store_errors_total', { command: 'getMemo', code: 'store_unavailable' })).toBe(1);
      expect(valueOf(samples, 'store_errors_total', { command: 'sweep', code: 'internal' })).toBe(1);
      expect(valueOf(samples, 'store_errors_total', { command: 'putMemo', code: 'internal' })).toBe(0);
    } finally {
      metrics.close();
    }
  });
});

describe('a measured store and what is kept per store', () => {
  it('shares the leases and unanswered commits of the store it wraps (shutdown settles them by the store itself)', () => {
    const metrics = new ServiceMetrics();
    try {
      const store = new MemoryStore();
      const measured = instrumentStore(store, metrics);
      expect(underlyingStore(measured)).toBe(store);
      expect(underlyingStore(store)).toBe(store);
      const logger = pino({ level: 'silent' });
      expect(holdingsOf(measured, 5_000, logger)).toBe(holdingsOf(store, 5_000, logger));
      expect(pendingVoidsIn(measured)).toBe(pendingVoidsIn(store));
    } finally {
      metrics.close();
    }
  });
});

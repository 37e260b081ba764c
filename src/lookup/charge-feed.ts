// Tells what is built on the core (the usage alerts, background.ts) that a charge was recorded, without
// the core knowing who listens: one feed per core, listeners called at once after each commit that
// charged. A listener must not throw or block: it runs after the charge, on the lookup's path.
import type { Logger } from 'pino';
import type { Account } from '../store/index.js';

export interface Charged {
  account: Account;
  /** The usage bucket charged: `lifetime` (free plan) or YYYY-MM. */
  period: string;
  at: string;
}

export class ChargeFeed {
  private readonly listeners = new Set<(c: Charged) => void>();

  constructor(private readonly logger: Logger) {}

  /** Calls `listener` after each charge; returns how to stop. */
  on(listener: (c: Charged) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(c: Charged): void {
    for (const listener of this.listeners) {
      try {
        listener(c);
      } catch (err) {
        this.logger.warn({ err, account: c.account.id }, 'a charge listener failed');
      }
    }
  }
}

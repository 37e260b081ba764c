// The cost cap sent with each run (`maxTotalChargeUsd`). Pay-per-event actors may refuse a cap below
// their own minimum (`400 max-total-charge-usd-below-minimum`), so the minimum is read from the actor
// at start-up and again after such a refusal, and the larger of the two is used, up to a ceiling the
// operator sets. A minimum above the ceiling stops fallback lookups (no run is started) and says why.
import type { Logger } from 'pino';
import { LookupError } from '../../contract/index.js';

export class CostCap {
  private minimum: number | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly configuredUsd: number,
    private readonly ceilingUsd: number,
    /** Reads the actor's current minimum (null: none). */
    private readonly readMinimum: () => Promise<number | null>,
    private readonly logger: Logger,
  ) {}

  /** The cap for the next run, USD. */
  current(): number {
    const min = this.minimum;
    if (min === null || min <= this.configuredUsd) return this.configuredUsd;
    if (min <= this.ceilingUsd) return min;
    throw new LookupError('upstream_misconfigured', {
      details: { reason: 'actor_minimum_cost_cap_above_ceiling', minimum_usd: min, ceiling_usd: this.ceilingUsd },
    });
  }

  /** Reads the actor's minimum again; concurrent callers share one read, which no caller cancels (an abandoned lookup stops waiting for it: run.ts). Never throws. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    try {
      const min = await this.readMinimum();
      this.minimum = min;
      if (min === null || min <= this.configuredUsd) return;
      const log = { minimumUsd: min, configuredUsd: this.configuredUsd, ceilingUsd: this.ceilingUsd };
      if (min <= this.ceilingUsd) {
        this.logger.warn(
          log,
          `The fallback actor refuses cost caps below $${min}: FALLBACK_MAX_COST_USD ($${this.configuredUsd}) is raised to $${min} for every run (ceiling FALLBACK_MAX_COST_CEILING_USD $${this.ceilingUsd})`,
        );
      } else {
        this.logger.error(
          log,
          `The fallback actor refuses cost caps below $${min}, above FALLBACK_MAX_COST_CEILING_USD ($${this.ceilingUsd}): fallback lookups fail with upstream_misconfigured until the ceiling is raised or another actor is configured`,
        );
      }
    } catch (err) {
      this.logger.warn(
        { err },
        `Could not read the fallback actor's minimum cost cap; using FALLBACK_MAX_COST_USD ($${this.configuredUsd})`,
      );
    }
  }
}

// Requests to /graphql without an API key (introspection, GraphiQL) draw on a per-address token
// bucket: KEYLESS_BURST requests at once, refilled at KEYLESS_PER_SECOND. Past it: 429 rate_limited
// with retry-after, in GraphQL's format, before anything is parsed. In-process and bounded (the least
// recently seen addresses are forgotten past MAX_ADDRESSES), so each instance budgets on its own;
// requests with a key are bounded by their account instead.
import type { FastifyRequest } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import { sendsApiKey } from '../../accounts/index.js';
import { LookupError } from '../../contract/index.js';
import { graphqlErrorBody } from '../errors.js';

const MAX_ADDRESSES = 10_000;

export interface KeylessBudgetOptions {
  burst: number;
  perSecond: number;
  now: () => number;
}

export class KeylessBudget {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly opts: KeylessBudgetOptions) {}

  /** Takes one request from the address's budget: 0 when allowed, else the seconds until one is. */
  take(address: string): number {
    const now = this.opts.now();
    const prev = this.#buckets.get(address);
    const refilled = prev
      ? Math.min(this.opts.burst, prev.tokens + ((now - prev.at) / 1000) * this.opts.perSecond)
      : this.opts.burst;
    this.#buckets.delete(address);
    if (this.#buckets.size >= MAX_ADDRESSES) this.#buckets.delete(this.#buckets.keys().next().value!);
    if (refilled < 1) {
      this.#buckets.set(address, { tokens: refilled, at: now });
      return Math.max(1, Math.ceil((1 - refilled) / this.opts.perSecond));
    }
    this.#buckets.set(address, { tokens: refilled - 1, at: now });
    return 0;
  }
}

export function useKeylessBudget(
  opts: KeylessBudgetOptions,
): Plugin<Record<string, unknown>, { req?: FastifyRequest }> {
  const budget = new KeylessBudget(opts);
  return {
    onRequest({ request, serverContext, endResponse, fetchAPI }) {
      if (sendsApiKey(request.headers)) return;
      const wait = budget.take(serverContext.req?.ip ?? 'unknown');
      if (wait === 0) return;
      const err = new LookupError('rate_limited', {
        message: 'Too many requests without an API key from this address. Retry after the retry-after header.',
        retryAfter: wait,
        details: { scope: 'keyless requests per client address', burst: opts.burst, per_second: opts.perSecond },
      });
      endResponse(
        new fetchAPI.Response(JSON.stringify(graphqlErrorBody(err)), {
          status: err.status,
          headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(wait) },
        }),
      );
    },
  };
}

// Per-key protection of the shared collector, as one rule below both faces:
// - a window of RATE_LIMIT_PER_MINUTE units per account and minute: a lookup is a unit (a batch takes
//   one per valid item, a GraphQL operation one per lookup it asks for, all or none); what does not fit
//   is refused (429 rate_limited) and takes nothing; requests without lookups take nothing;
// - at most MAX_LIVE_PER_KEY live lookups of one account at once (cache hits never count); the core
//   (src/lookup/live-slot.ts) decides who waits for a slot and who is refused;
// - the account's background work (job items, watch checks) has slots of its own
//   (BACKGROUND_MAX_LIVE_PER_KEY) and takes no unit of the window, so a job never turns the key's
//   interactive lookups into 429s (docs/jobs.md, "Budgets").
// With Redis (REDIS_URL, or a cluster: REDIS_CLUSTER_NODES) both are kept in Redis, so every instance
// shares them; else in this process (src/backend.ts makes the one the configuration names).
// Fixed windows on Redis' own clock (TIME in the scripts), so instances with skewed clocks agree.
// A limiter that cannot reach Redis lets the request through: the store it also needs answers for
// itself (store_unavailable), and a limit must never be the reason a healthy store's home is refused.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { LookupError } from '../contract/index.js';
import { WINDOW_SECONDS, type RateWindow } from '../contract/rate-limit.js';
import { lua } from '../store/lua.js';
import { createRedisClient, type RedisClient } from '../store/redis-connection.js';

export { WINDOW_SECONDS, type RateWindow } from '../contract/rate-limit.js';
const WINDOW_MS = WINDOW_SECONDS * 1000;

export interface RateLimitSettings {
  /** Units per account and minute; 0: no limit. */
  perMinute: number;
  /** Live lookups of one account's interactive requests at once; 0: no cap. */
  maxLive: number;
  /** Live lookups of one account's background work (job items, watch checks) at once; 0: no cap. Default: maxLive. */
  maxBackgroundLive?: number;
}

/** Whose live slots: the key's requests (single, batch, GraphQL, MCP) or its background work (jobs, watches). */
export type SlotPool = 'interactive' | 'background';

/** The cap of a pool's live slots. */
export const maxLiveOf = (settings: RateLimitSettings, pool: SlotPool): number =>
  pool === 'background' ? (settings.maxBackgroundLive ?? settings.maxLive) : settings.maxLive;

export interface RateLimiter {
  readonly settings: RateLimitSettings;
  /**
   * Takes `cost` units from the account's window when they fit; otherwise takes nothing. The window
   * is null when there is no limit, or it could not be read (Redis unreachable: let through).
   */
  take(accountId: string, cost: number): Promise<{ allowed: boolean; window: RateWindow | null }>;
  /** Gives `cost` units back to the account's current window (a lookup refused after its take). */
  give(accountId: string, cost: number): Promise<void>;
  /**
   * Holds one of the account's live-lookup slots of `pool`: its release, or null when all are held.
   * Given `wait`, waits for a slot to come free until that signal aborts (then null).
   */
  holdLive(accountId: string, wait?: AbortSignal, pool?: SlotPool): Promise<(() => void) | null>;
  close(): Promise<void>;
}

/** The refusal of a request whose units do not fit in its window. */
export function rateLimitedError(window: RateWindow, cost: number): LookupError {
  return new LookupError('rate_limited', {
    message: `This API key is over its limit of ${window.limit} lookups per minute. Retry after the retry-after header.`,
    retryAfter: Math.max(1, window.resetSeconds),
    details: { limit: 'lookups_per_minute', per_minute: window.limit, remaining: window.remaining, requested: cost },
  });
}

/** The refusal of a live lookup while the account's live slots are all held. */
export function liveCapError(maxLive: number): LookupError {
  return new LookupError('rate_limited', {
    message: `This API key already has ${maxLive} live lookups running. Retry when one has finished.`,
    retryAfter: 1,
    details: { limit: 'live_lookups', max_live: maxLive },
  });
}

const noRelease = (): void => {};

// ---------------------------------------------------------------------------------------------

const MAX_ACCOUNTS = 100_000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();
  private readonly live = new Map<string, number>();
  /** Per account, in arrival order: who waits for a slot; a release hands its slot to the first. */
  private readonly waiters = new Map<string, Array<() => void>>();

  constructor(
    readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async take(accountId: string, cost: number): Promise<{ allowed: boolean; window: RateWindow | null }> {
    const limit = this.settings.perMinute;
    if (limit === 0) return { allowed: true, window: null };
    const now = this.now();
    const start = now - (now % WINDOW_MS);
    let w = this.windows.get(accountId);
    if (!w || w.start !== start) {
      if (!w && this.windows.size >= MAX_ACCOUNTS) this.forgetPast(start);
      w = { start, used: 0 };
      this.windows.set(accountId, w);
    }
    const resetSeconds = Math.ceil((start + WINDOW_MS - now) / 1000);
    if (w.used + cost > limit) return { allowed: false, window: { limit, remaining: limit - w.used, resetSeconds } };
    w.used += cost;
    return { allowed: true, window: { limit, remaining: limit - w.used, resetSeconds } };
  }

  async give(accountId: string, cost: number): Promise<void> {
    const now = this.now();
    const w = this.windows.get(accountId);
    if (w && w.start === now - (now % WINDOW_MS)) w.used = Math.max(0, w.used - cost);
  }

  async holdLive(accountId: string, wait?: AbortSignal, pool: SlotPool = 'interactive'): Promise<(() => void) | null> {
    const max = maxLiveOf(this.settings, pool);
    if (max === 0) return noRelease;
    // The background pool's slots are counted apart (a name no account id contains).
    const slots = pool === 'background' ? `${accountId}\0bg` : accountId;
    const n = this.live.get(slots) ?? 0;
    if (n < max) {
      this.live.set(slots, n + 1);
      return this.releaser(slots);
    }
    if (!wait || wait.aborted) return null;
    return new Promise((resolve) => {
      const grant = () => {
        wait.removeEventListener('abort', giveUp);
        resolve(this.releaser(slots));
      };
      const giveUp = () => {
        const queue = this.waiters.get(slots);
        const i = queue?.indexOf(grant) ?? -1;
        if (i >= 0) queue!.splice(i, 1);
        if (queue?.length === 0) this.waiters.delete(slots);
        resolve(null);
      };
      const queue = this.waiters.get(slots);
      if (queue) queue.push(grant);
      else this.waiters.set(slots, [grant]);
      wait.addEventListener('abort', giveUp, { once: true });
    });
  }

  private releaser(accountId: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Handed over, the slot stays counted: no one arriving meanwhile can take it from the waiter.
      const queue = this.waiters.get(accountId);
      const next = queue?.shift();
      if (queue?.length === 0) this.waiters.delete(accountId);
      if (next) return next();
      const left = (this.live.get(accountId) ?? 1) - 1;
      if (left <= 0) this.live.delete(accountId);
      else this.live.set(accountId, left);
    };
  }

  async close(): Promise<void> {}

  private forgetPast(start: number): void {
    for (const [id, w] of this.windows) if (w.start !== start) this.windows.delete(id);
  }
}

// ---------------------------------------------------------------------------------------------

// The scripts: their KEYS, ARGV and reply in each file's header (src/accounts/lua/).
const LUA_TAKE = lua(new URL('./lua/rate-take.lua', import.meta.url));
const LUA_GIVE = lua(new URL('./lua/rate-give.lua', import.meta.url));
const LUA_HOLD_LIVE = lua(new URL('./lua/live-hold.lua', import.meta.url));
const LUA_RENEW_LIVE = lua(new URL('./lua/live-renew.lua', import.meta.url));

interface RateScripts {
  plRateTake(key: string, cost: number, limit: number, windowMs: number): Promise<[number, number, number]>;
  plRateGive(key: string, cost: number, windowMs: number): Promise<number>;
  plLiveHold(key: string, id: string, max: number, ttlMs: number): Promise<number>;
  plLiveRenew(key: string, ttlMs: number, ...ids: string[]): Promise<number>;
}

export interface RedisRateLimiterOptions {
  /** The server's URL; null when on a cluster. */
  url: string | null;
  /** The cluster's seed nodes (host:port) instead of a server. */
  clusterNodes?: string[] | null;
  prefix: string;
  /** A command unanswered this long lets the request through. */
  commandTimeoutMs: number;
  /**
   * Lifetime of a live slot unless renewed (every third of it while its lookup runs): a crashed
   * instance's slots are free again within about this time.
   */
  leaseTtlMs: number;
  logger: Logger;
}

const UNREACHABLE_WARN_EVERY_MS = 60_000;
/** Between two tries of a full key's live slots on Redis (a release on this instance tries at once). */
const LIVE_RETRY_FIRST_MS = 20;
const LIVE_RETRY_MAX_MS = 250;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisClient;
  private readonly scripts: RateScripts;
  /** Live slots this process holds, by slot key (account and pool): renewed together, so a running lookup keeps its slot. */
  private readonly held = new Map<string, Set<string>>();
  private renewer: NodeJS.Timeout | null = null;
  private lastWarn = 0;
  /** The first connection, settled: requests before it wait for it (bounded) rather than pass unlimited. */
  private readonly firstConnect: Promise<void>;
  private connected = false;
  /** Per slot key: waiters for a live slot on this instance, woken when one of its slots is released. */
  private readonly liveWaiters = new Map<string, Set<() => void>>();

  constructor(
    readonly settings: RateLimitSettings,
    private readonly opts: RedisRateLimiterOptions,
  ) {
    this.redis = createRedisClient(
      { redisUrl: opts.url, redisClusterNodes: opts.clusterNodes ?? null },
      {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        commandTimeout: opts.commandTimeoutMs,
        connectTimeout: 1000,
        retryStrategy: (times: number) => Math.min(times * 100, 1000),
        lazyConnect: true,
      },
    );
    this.redis.on('error', () => undefined); // it reconnects by itself; a failed call lets the request through
    this.redis.defineCommand('plRateTake', { numberOfKeys: 1, lua: LUA_TAKE });
    this.redis.defineCommand('plRateGive', { numberOfKeys: 1, lua: LUA_GIVE });
    this.redis.defineCommand('plLiveHold', { numberOfKeys: 1, lua: LUA_HOLD_LIVE });
    this.redis.defineCommand('plLiveRenew', { numberOfKeys: 1, lua: LUA_RENEW_LIVE });
    this.scripts = this.redis as unknown as RateScripts;
    this.firstConnect = this.redis
      .connect()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.connected = true;
      });
  }

  /** Before the first connection has settled: wait for it, at most a command's timeout. */
  private async untilConnected(): Promise<void> {
    if (this.connected) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.firstConnect,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.opts.commandTimeoutMs))),
    ]);
    clearTimeout(timer);
  }

  // Hash tags keep an account's keys in one slot of a Redis Cluster.
  private windowKey = (accountId: string) => `${this.opts.prefix}rl:{${accountId}}:window`;
  private liveKey = (accountId: string, pool: SlotPool) =>
    `${this.opts.prefix}rl:{${accountId}}:${pool === 'background' ? 'live-bg' : 'live'}`;

  async take(accountId: string, cost: number): Promise<{ allowed: boolean; window: RateWindow | null }> {
    const limit = this.settings.perMinute;
    if (limit === 0) return { allowed: true, window: null };
    await this.untilConnected();
    try {
      const [ok, used, resetMs] = await this.scripts.plRateTake(this.windowKey(accountId), cost, limit, WINDOW_MS);
      return {
        allowed: ok === 1,
        window: {
          limit,
          remaining: Math.max(0, limit - Number(used)),
          resetSeconds: Math.ceil(Number(resetMs) / 1000),
        },
      };
    } catch (err) {
      this.unreachable(err);
      return { allowed: true, window: null };
    }
  }

  async give(accountId: string, cost: number): Promise<void> {
    if (this.settings.perMinute === 0) return;
    await this.scripts
      .plRateGive(this.windowKey(accountId), cost, WINDOW_MS)
      .catch((err: unknown) => this.unreachable(err));
  }

  async holdLive(accountId: string, wait?: AbortSignal, pool: SlotPool = 'interactive'): Promise<(() => void) | null> {
    const max = maxLiveOf(this.settings, pool);
    if (max === 0) return noRelease;
    const id = randomUUID();
    const key = this.liveKey(accountId, pool);
    await this.untilConnected();
    // Slots held on other instances free up unseen: tried again with a growing pause, or at once
    // when this instance releases one of the account's.
    for (let pause = LIVE_RETRY_FIRST_MS; ; pause = Math.min(pause * 2, LIVE_RETRY_MAX_MS)) {
      try {
        if ((await this.scripts.plLiveHold(key, id, max, this.opts.leaseTtlMs)) === 1) break;
      } catch (err) {
        this.unreachable(err);
        return noRelease;
      }
      if (!wait || wait.aborted || !(await this.released(key, wait, pause))) return null;
    }
    this.hold(key, id);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.drop(key, id);
      // A release that does not arrive is undone by the slot's expiry.
      void this.redis
        .zrem(key, id)
        .catch(() => undefined)
        .finally(() => {
          for (const wake of this.liveWaiters.get(key) ?? []) wake();
        });
    };
  }

  /** After `pause` ms or a release of the slots of `key` here: true; false when `wait` aborts first. */
  private released(key: string, wait: AbortSignal, pause: number): Promise<boolean> {
    return new Promise((resolve) => {
      let waiters = this.liveWaiters.get(key);
      if (!waiters) this.liveWaiters.set(key, (waiters = new Set()));
      const done = (again: boolean) => {
        clearTimeout(timer);
        wait.removeEventListener('abort', giveUp);
        waiters.delete(wake);
        if (waiters.size === 0 && this.liveWaiters.get(key) === waiters) this.liveWaiters.delete(key);
        resolve(again);
      };
      const wake = () => done(true);
      const giveUp = () => done(false);
      const timer = setTimeout(wake, pause);
      waiters.add(wake);
      wait.addEventListener('abort', giveUp, { once: true });
    });
  }

  async close(): Promise<void> {
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = null;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect(false));
    else this.redis.disconnect(false);
  }

  private hold(key: string, id: string): void {
    let ids = this.held.get(key);
    if (!ids) this.held.set(key, (ids = new Set()));
    ids.add(id);
    if (!this.renewer) {
      this.renewer = setInterval(() => this.renew(), Math.max(50, Math.floor(this.opts.leaseTtlMs / 3)));
      this.renewer.unref();
    }
  }

  private drop(key: string, id: string): void {
    const ids = this.held.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.held.delete(key);
    if (this.held.size === 0 && this.renewer) {
      clearInterval(this.renewer);
      this.renewer = null;
    }
  }

  private renew(): void {
    for (const [key, ids] of this.held) {
      this.scripts.plLiveRenew(key, this.opts.leaseTtlMs, ...ids).catch((err: unknown) => this.unreachable(err));
    }
  }

  private unreachable(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarn < UNREACHABLE_WARN_EVERY_MS) return;
    this.lastWarn = now;
    this.opts.logger.warn({ err }, 'rate limits: Redis did not answer; requests are let through until it does');
  }
}

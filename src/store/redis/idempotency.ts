// Idempotency keys on Redis (IdempotencyStore): one HASH per account and key, `Pidem:<slot>`, claimed
// under a token for a lease, then holding the packed answer for replays. Every step is one script.
import { storeUnavailable as unavailable } from '../fail-fast.js';
import { packAnswer, unpackAnswer } from '../idempotency-store.js';
import { lua } from '../lua.js';
import type { ClaimRef, ClaimResult, IdempotencyStore, StoredAnswer } from '../types.js';
import { KEY_READ_ATTEMPTS, ms, type RedisConnection, type RenewalPipeline } from './connection.js';
import type { RedisKeys } from './keys.js';

const LUA_IDEM_CLAIM = lua(new URL('./lua/idem-claim.lua', import.meta.url));
const LUA_IDEM_COMPLETE = lua(new URL('./lua/idem-complete.lua', import.meta.url));
const LUA_IDEM_RELEASE = lua(new URL('./lua/idem-release.lua', import.meta.url));
const LUA_IDEM_RENEW = lua(new URL('./lua/idem-renew.lua', import.meta.url));

interface IdempotencyScripts {
  /** plIdemClaim with Buffer replies (ioredis adds the Buffer form of each command). */
  plIdemClaimBuffer(...args: (string | Buffer)[]): Promise<Buffer[]>;
  plIdemComplete(...args: (string | Buffer)[]): Promise<number>;
  plIdemRelease(...args: string[]): Promise<number>;
}

interface IdempotencyPipeline extends RenewalPipeline {
  plIdemRenew(...args: string[]): IdempotencyPipeline;
}

export class RedisIdempotency implements IdempotencyStore {
  private readonly k: RedisKeys;
  private readonly scripts: IdempotencyScripts;

  constructor(private readonly c: RedisConnection) {
    this.k = c.k;
    c.redis.defineCommand('plIdemClaim', { numberOfKeys: 1, lua: LUA_IDEM_CLAIM });
    c.redis.defineCommand('plIdemComplete', { numberOfKeys: 1, lua: LUA_IDEM_COMPLETE });
    c.redis.defineCommand('plIdemRelease', { numberOfKeys: 1, lua: LUA_IDEM_RELEASE });
    c.redis.defineCommand('plIdemRenew', { numberOfKeys: 1, lua: LUA_IDEM_RENEW });
    this.scripts = c.redis as unknown as IdempotencyScripts;
  }

  async claimIdempotency(ref: ClaimRef, bodyHash: string, leaseMs: number): Promise<ClaimResult> {
    const key = this.k.idempotency(ref.accountId, ref.key);
    let damaged: Buffer | string = '';
    for (let attempt = 0; attempt < KEY_READ_ATTEMPTS; attempt++) {
      const startedAt = ref.startedAt === undefined ? '' : String(Math.floor(ref.startedAt));
      const [state, hash, packed] = await this.run(() =>
        this.scripts.plIdemClaimBuffer(key, ref.token, bodyHash, ms(leaseMs), damaged, startedAt),
      );
      const what = state!.toString();
      if (what === 'claimed')
        return hash && hash.length > 0 ? { state: 'claimed', since: Number(hash.toString()) } : { state: 'claimed' };
      if (what === 'running') return { state: 'running', bodyHash: hash!.toString() };
      const answer = await unpackAnswer(packed!);
      if (answer) return { state: 'done', bodyHash: hash!.toString(), answer };
      // A damaged answer reads as absent: dropped (if still the one read) and the key claimed.
      damaged = packed!;
    }
    throw unavailable(new Error(`idempotency key of ${ref.accountId} kept changing while being claimed`));
  }

  async completeIdempotency(ref: ClaimRef, answer: StoredAnswer, ttlMs: number): Promise<boolean> {
    const packed = await packAnswer(answer);
    const n = await this.run(() =>
      this.scripts.plIdemComplete(this.k.idempotency(ref.accountId, ref.key), ref.token, packed, ms(ttlMs)),
    );
    return Number(n) === 1;
  }

  async releaseIdempotency(ref: ClaimRef, keepMs?: number): Promise<void> {
    await this.run(() =>
      this.scripts.plIdemRelease(this.k.idempotency(ref.accountId, ref.key), ref.token, keepMs ? ms(keepMs) : '0'),
    );
  }

  async renewIdempotency(refs: readonly ClaimRef[], leaseMs: number): Promise<string[]> {
    if (refs.length === 0) return [];
    const replies = await this.c.runRenewal(() =>
      this.c.renewEach(refs, (p: IdempotencyPipeline, r) =>
        p.plIdemRenew(this.k.idempotency(r.accountId, r.key), r.token, ms(leaseMs)),
      ),
    );
    return refs.filter((_, i) => Number(replies?.[i]?.[1]) !== 1).map((r) => r.token);
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.c.run(call);
  }
}

// The attempt log: every delivery attempt, as the runner records it after the attempt (runAttempt in
// index.ts, the one place, for both runners), kept a week and at most WEBHOOK_DELIVERIES_KEPT per account,
// with each attempt's event, so the account can list its attempts (newest first) and have one's event sent
// again. In this process (memory), or in Redis under the account's hash tag, `<REDIS_PREFIX>{whd:<account>}`
// (one slot, also on a cluster):
//   <prefix>{whd:<account>}:log            STREAM of the attempts (field r: the attempt's JSON); the entry id
//                                           is the attempt's id after `dlv_`; trimmed by MINID (a week, the
//                                           server's time) and MAXLEN at each add; expires a week after the last
//   <prefix>{whd:<account>}:e:<webhook-id>  STRING the event as queued (its exact body), kept a week
import {
  isDeliveryId,
  WEBHOOK_DELIVERIES_KEEP_MS,
  WEBHOOK_DELIVERIES_KEPT,
  type WebhookDeliveryShape,
} from '../contract/webhook-deliveries.js';
import { classifiedCall, type StoreCall } from '../store/fail-fast.js';
import { lua } from '../store/lua.js';
import type { RedisClient } from '../store/redis-connection.js';
import type { Delivery } from './deliver.js';

/** An attempt as recorded: the view without its id (the log gives it). */
export type DeliveryRecord = Omit<WebhookDeliveryShape, 'id'>;

export interface DeliveryPage {
  deliveries: WebhookDeliveryShape[];
  next_cursor: string | null;
}

export interface DeliveryLog {
  /** Records one attempt of `event` (its account's). */
  record(event: Delivery, attempt: DeliveryRecord): Promise<void>;
  /** The account's attempts, newest first, `limit` of them after `cursor` (an attempt id; null: from the newest). */
  list(account: string, page: { limit: number; cursor: string | null }): Promise<DeliveryPage>;
  /** One of the account's attempts and its event; null when it is not the account's, unknown or gone. */
  get(account: string, id: string): Promise<{ delivery: WebhookDeliveryShape; event: Delivery } | null>;
  close(): Promise<void>;
}

const fresh = (r: DeliveryRecord, now: number) => Date.parse(r.at) >= now - WEBHOOK_DELIVERIES_KEEP_MS;

/** The stream id of an attempt id (`dlv_<ms>-<seq>` → `<ms>-<seq>`), and back. */
const streamId = (id: string): string => id.slice('dlv_'.length);
const attemptId = (streamId: string): string => `dlv_${streamId}`;

interface MemoryRow {
  ms: number;
  seq: number;
  record: DeliveryRecord;
  event: Delivery;
}

/** In this process: a bounded list per account, oldest first. */
export class MemoryDeliveryLog implements DeliveryLog {
  readonly #accounts = new Map<string, MemoryRow[]>();

  constructor(private readonly now: () => number) {}

  async record(event: Delivery, record: DeliveryRecord): Promise<void> {
    const now = this.now();
    let rows = this.#accounts.get(event.accountId);
    if (!rows) this.#accounts.set(event.accountId, (rows = []));
    // Ordered ids as a stream's: the same or an earlier millisecond takes the next sequence number.
    const last = rows.at(-1);
    const ms = last && last.ms >= now ? last.ms : now;
    const seq = last && last.ms === ms ? last.seq + 1 : 0;
    rows.push({ ms, seq, record: structuredClone(record), event: { ...event } });
    const cutoff = now - WEBHOOK_DELIVERIES_KEEP_MS;
    let drop = Math.max(0, rows.length - WEBHOOK_DELIVERIES_KEPT);
    while (drop < rows.length && rows[drop]!.ms < cutoff) drop++;
    if (drop > 0) rows.splice(0, drop);
  }

  async list(account: string, page: { limit: number; cursor: string | null }): Promise<DeliveryPage> {
    const now = this.now();
    const rows = this.#accounts.get(account) ?? [];
    const before = page.cursor === null ? null : parseStreamId(streamId(page.cursor));
    const out: WebhookDeliveryShape[] = [];
    let more = false;
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i]!;
      if (before && (row.ms > before.ms || (row.ms === before.ms && row.seq >= before.seq))) continue;
      if (!fresh(row.record, now)) break;
      if (out.length === page.limit) {
        more = true;
        break;
      }
      out.push(viewOf(row));
    }
    return { deliveries: out, next_cursor: more ? out.at(-1)!.id : null };
  }

  async get(account: string, id: string): Promise<{ delivery: WebhookDeliveryShape; event: Delivery } | null> {
    if (!isDeliveryId(id)) return null;
    const row = this.#accounts.get(account)?.find((r) => attemptId(`${r.ms}-${r.seq}`) === id);
    if (!row || !fresh(row.record, this.now())) return null;
    return { delivery: viewOf(row), event: { ...row.event } };
  }

  async close(): Promise<void> {}
}

const parseStreamId = (id: string): { ms: number; seq: number } => {
  const [ms, seq] = id.split('-');
  return { ms: Number(ms), seq: Number(seq) };
};
const viewOf = (row: MemoryRow): WebhookDeliveryShape => ({
  id: attemptId(`${row.ms}-${row.seq}`),
  ...structuredClone(row.record),
});

const RECORD = lua(new URL('./lua/record.lua', import.meta.url));

type StreamEntry = [id: string, fields: string[]];

/** In Redis: a stream per account, its events beside it (the header above). */
export class RedisDeliveryLog implements DeliveryLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly now: () => number,
    /** Every Redis call goes through it: bounded and classified (store/fail-fast.ts), as the job and watch stores'. */
    private readonly run: StoreCall = classifiedCall,
  ) {}

  #tag = (account: string): string => `${this.prefix}{whd:${account}}`;
  #log = (account: string): string => `${this.#tag(account)}:log`;
  #event = (account: string, webhookId: string): string => `${this.#tag(account)}:e:${webhookId}`;

  async record(event: Delivery, record: DeliveryRecord): Promise<void> {
    const { redelivery: _r, ...kept } = event;
    await this.run(() =>
      this.redis.eval(
        RECORD,
        2,
        this.#log(event.accountId),
        this.#event(event.accountId, event.id),
        JSON.stringify(record),
        JSON.stringify(kept),
        WEBHOOK_DELIVERIES_KEEP_MS,
        WEBHOOK_DELIVERIES_KEPT,
      ),
    );
  }

  async list(account: string, page: { limit: number; cursor: string | null }): Promise<DeliveryPage> {
    const start = page.cursor === null ? '+' : `(${streamId(page.cursor)}`;
    const entries = (await this.run(() =>
      this.redis.xrevrange(this.#log(account), start, '-', 'COUNT', page.limit + 1),
    )) as StreamEntry[];
    const now = this.now();
    const rows = entries.flatMap((e) => {
      const view = this.#viewOf(e);
      return view && fresh(view, now) ? [view] : [];
    });
    const deliveries = rows.slice(0, page.limit);
    return { deliveries, next_cursor: rows.length > page.limit ? deliveries.at(-1)!.id : null };
  }

  async get(account: string, id: string): Promise<{ delivery: WebhookDeliveryShape; event: Delivery } | null> {
    if (!isDeliveryId(id)) return null;
    const at = streamId(id);
    const entries = (await this.run(() => this.redis.xrange(this.#log(account), at, at))) as StreamEntry[];
    const delivery = entries[0] ? this.#viewOf(entries[0]) : null;
    if (!delivery || !fresh(delivery, this.now())) return null;
    const json = await this.run(() => this.redis.get(this.#event(account, delivery.webhook_id)));
    if (json === null) return null;
    const event = JSON.parse(json) as Delivery;
    // Only the account's own event: the key is under its tag, this is a second guard.
    return event.accountId === account ? { delivery, event } : null;
  }

  #viewOf([id, fields]: StreamEntry): WebhookDeliveryShape | null {
    const json = fields[fields.indexOf('r') + 1];
    if (fields.indexOf('r') < 0 || json === undefined) return null;
    return { id: attemptId(id), ...(JSON.parse(json) as DeliveryRecord) };
  }

  async close(): Promise<void> {
    // Bounded as any call (a frozen Redis never answers a QUIT): then the connection is dropped.
    await this.run(() => this.redis.quit()).catch(() => this.redis.disconnect());
  }
}

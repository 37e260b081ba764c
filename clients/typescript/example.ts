// The typed client in use: one home, a batch with a bad item, the account's usage, an error caught
// by its code, a lookup job followed to its end (events, then its results) and a watch made, read and
// ended. Run against `npm run demo` (its key is the default; it lets webhook URLs name loopback):
//   PORTAL_URL=http://127.0.0.1:4000 npx tsx clients/typescript/example.ts
// Prints one JSON line per step, so a test (or a shell) can read what happened.
import { PortalApiError, PortalClient, type JobView } from './client.js';

const client = new PortalClient({
  baseUrl: process.env.PORTAL_URL ?? 'http://127.0.0.1:4000',
  apiKey: process.env.PORTAL_API_KEY ?? 'demo_key_local_only',
});
const print = (step: string, value: unknown) =>
  process.stdout.write(`${JSON.stringify({ step, ...(value as object) })}\n`);

// One home: the typed record and how it was served.
const { data: home, meta } = await client.property({ zpid: '114303858' });
print('property', {
  zpid: home.zpid,
  price: home.price,
  homeStatus: home.homeStatus,
  credits: meta.credits,
  cached: meta.cached,
});

// A batch: each result is a success or a failure, told apart by `ok`.
const batch = await client.batch([
  { zpid: '114303858' },
  '661 Lakeview Ave, San Francisco, CA 94112',
  { zpid: 'not-a-zpid' },
]);
print('batch', {
  results: batch.data.map((r) =>
    r.ok ? { ok: true, zpid: r.data.zpid, credits: r.meta.credits } : { ok: false, code: r.error.code },
  ),
  credits: batch.meta.credits,
});

// The account: what the lookups above cost.
const usage = await client.usage();
print('usage', { plan: usage.plan, used: usage.used, remaining: usage.remaining });

// An error is thrown with the spec's code.
try {
  await client.property({ zpid: '999999999' });
} catch (e) {
  if (!(e instanceof PortalApiError)) throw e;
  print('error', { code: e.code, status: e.status, message: e.message });
}

// A lookup job: made (with an Idempotency-Key of its own), followed through its events to the end, its
// results read as they stream.
const created = await client.createJob([{ zpid: '114303858' }, '661 Lakeview Ave, San Francisco, CA 94112', 'nope']);
const events: string[] = [];
let final: JobView | undefined;
for await (const { event, job } of client.jobEvents(created.id)) {
  events.push(event);
  if (event === 'done') final = job;
}
const results: unknown[] = [];
for await (const r of client.jobResults(created.id))
  results.push(r.ok ? { ok: true, zpid: r.data.zpid } : { ok: false, code: r.error.code });
print('job', {
  status: final?.status,
  count: final?.count,
  succeeded: final?.succeeded,
  failed: final?.failed,
  credits: final?.credits,
  lastEvent: events.at(-1),
  results,
});

// A watch: the home read live every 24 hours, a property.changed event to the webhook when it changes.
const webhook = process.env.PORTAL_WEBHOOK_URL ?? 'http://127.0.0.1:9/hooks';
const watch = await client.createWatch({ zpid: '15192198' }, { webhook_url: webhook, interval_hours: 24 });
const listed = (await client.watches()).some((w) => w.id === watch.id);
const read = await client.watch(watch.id);
await client.deleteWatch(watch.id);
const gone = await client.watch(watch.id).catch((e: unknown) => (e instanceof PortalApiError ? e.code : e));
print('watch', { zpid: read.zpid, interval_hours: read.interval_hours, listed, afterDelete: gone });

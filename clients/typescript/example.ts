// The typed client in use: one home, a batch with a bad item, the account's usage, and an error
// caught by its code. Run against `npm run demo` (its key is the default):
//   PORTAL_URL=http://127.0.0.1:4000 npx tsx clients/typescript/example.ts
// Prints one JSON line per step, so a test (or a shell) can read what happened.
import { PortalApiError, PortalClient } from './client.js';

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

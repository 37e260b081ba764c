// `npm run demo`: the whole service offline. A local replay of recorded listing pages stands in
// for the listing site, the store is in memory, and a demo key is printed with curl examples. A local
// webhook receiver (demo-receiver.ts) verifies the signed job.completed of a lookup job made with the
// printed curl, and prints it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfigOrExit } from './config.js';
import { startDemoReceiver } from './demo-receiver.js';
import { startReplayServer } from './replay/server.js';
import { startService, stopOnSignals } from './server.js';
import { newWebhookSecret } from './contract/webhook-signature.js';

const DEMO_KEY = 'demo_key_local_only';

const replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
const dir = await mkdtemp(join(tmpdir(), 'portal-demo-'));
const accountsFile = join(dir, 'accounts.json');
// The demo account's webhook signing secret, known to the receiver: a new one each run.
const webhookSecret = newWebhookSecret();
await writeFile(
  accountsFile,
  JSON.stringify([{ key: DEMO_KEY, plan: 'free', allotment: 50, label: 'demo', webhook_secret: webhookSecret }]),
);
const receiver = await startDemoReceiver(webhookSecret, (line) => process.stdout.write(`${line}\n`));

const config = loadConfigOrExit({
  ...process.env,
  REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  PORTAL_ORIGIN: replay.origin,
  PORTAL_SUGGEST_URL: replay.suggestUrl,
  ACCOUNTS_FILE: accountsFile,
  // The receiver is on loopback, which webhook URLs may not name unless this is set.
  WEBHOOK_ALLOW_PRIVATE: 'true',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  // Readable lines for a person at a terminal; LOG_PRETTY=false gives JSON.
  LOG_PRETTY: process.env.LOG_PRETTY ?? 'true',
});
const service = await startService(config);
stopOnSignals(service, config.shutdownGraceMs, () =>
  Promise.all([replay.close(), receiver.close()]).then(() => undefined),
);

const base = service.url;
const q = (s: string) => encodeURIComponent(s);
process.stdout.write(`
Property lookup API demo: ${base}
  (listing pages replayed offline from ${replay.origin}; in-memory store)

Demo API key: ${DEMO_KEY}

Try:
  curl -s -H 'x-api-key: ${DEMO_KEY}' '${base}/v1/portal/property?url=${q('https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/')}'
  curl -s -H 'x-api-key: ${DEMO_KEY}' '${base}/v1/portal/property?zpid=114303858'
  curl -s -H 'x-api-key: ${DEMO_KEY}' '${base}/v1/portal/property?address=${q('710 E Dean Keeton St #111, Austin, TX 78705')}'
  curl -s -H 'x-api-key: ${DEMO_KEY}' -H 'content-type: application/json' -X POST '${base}/v1/portal/batch' \\
       -d '{"items":["https://www.zillow.com/homedetails/2146993218_zpid/",{"zpid":"15192198"},{"url":"https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/"}]}'
  curl -s -H 'x-api-key: ${DEMO_KEY}' '${base}/v1/account'

A lookup job (runs in the background; its signed job.completed webhook is verified and printed here by
the demo's receiver at ${receiver.url}):
  curl -si -H 'x-api-key: ${DEMO_KEY}' -H 'content-type: application/json' -X POST '${base}/v1/portal/jobs' \\
       -d '{"items":[{"zpid":"2146993218"},{"zpid":"114303858"},"661 Lakeview Ave, San Francisco, CA 94112",{"zpid":"nope"}],"webhook_url":"${receiver.url}"}'
  then, with the id it answers: curl -s -H 'x-api-key: ${DEMO_KEY}' '${base}/v1/portal/jobs/<id>/results'

GraphQL (GraphiQL in a browser): ${base}/graphql    API docs: ${base}/docs
MCP (streamable HTTP, header x-api-key): ${base}/mcp    over stdio: PORTAL_API_KEY=${DEMO_KEY} node dist/mcp/stdio.js --demo
Stop with Ctrl-C.
`);

// `npm run accounts -- <create|list|show|set-plan|rotate-key|rotate-webhook-secret|set-usage-alert|clear-usage-alert|revoke>`
// against the configured store.
// The actions live in accounts/admin.ts; this file only wires the process: env, store, output, exit code.
import { EXIT, USAGE, runAdmin } from './accounts/admin.js';
import { backendFor } from './backend.js';
import { ConfigError, loadConfig, usesDevSecret } from './config.js';
import { describeRedisTarget } from './store/redis-connection.js';
import { checkWebhookUrl } from './webhooks/url-guard.js';

async function main(argv: string[]): Promise<number> {
  const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help')
    return runAdmin(argv, { store: null as never, secret: '' }, io);

  let config;
  try {
    config = loadConfig();
  } catch (e) {
    // A refused environment: every problem, one line each.
    for (const problem of e instanceof ConfigError ? e.problems : [(e as Error).message]) io.err(`Error: ${problem}`);
    return EXIT.usage;
  }
  const backend = backendFor(config);
  if (!backend.shared) {
    io.err(
      'Error: REDIS_URL is not set. Without Redis, accounts live only inside a running service (see ACCOUNTS_FILE);',
    );
    io.err(
      'set REDIS_URL or REDIS_CLUSTER_NODES (and the same API_KEY_SECRET and REDIS_PREFIX as the service) to manage accounts.',
    );
    io.err(USAGE.split('\n')[0]!);
    return EXIT.usage;
  }
  if (usesDevSecret(config)) {
    io.err(
      'Warning: API_KEY_SECRET is not set or is the development default; keys are hashed with the development secret and work only with a service that also uses it.',
    );
  }
  const store = await backend.store();
  try {
    try {
      await store.ping();
    } catch {
      io.err(`Error: cannot reach Redis at ${describeRedisTarget(config)}.`);
      return EXIT.storeUnavailable;
    }
    // A usage alert's URL passes the same guard as every webhook URL (its host resolved now).
    const checkUrl = async (url: string) =>
      (
        await checkWebhookUrl(url, 'url', {
          allowPrivate: config.webhookAllowPrivate,
          timeoutMs: config.webhookTimeoutMs,
        })
      ).url.href;
    return await runAdmin(argv, { store, secret: config.apiKeySecret, checkUrl }, io);
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`Error: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = EXIT.failure;
  },
);

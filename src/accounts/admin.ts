// Account administration: the actions behind `npm run accounts -- <command>`, kept apart from the
// process (argv, env, exit) so they can be tested against any store. Past 500 lines: one action per
// subcommand with its usage text and checks, read as a list.
//
// Keys are shown once, on create and rotate-key, and never again: list and show print only the
// key's prefix, never the key or its hash. The webhook signing secret likewise: shown on create and
// rotate-webhook-secret only.
import { randomBytes } from 'node:crypto';
import { parseArgs as splitArgs } from 'node:util';
import { isLookupError } from '../contract/errors.js';
import type { Account, AccountStore, BillingStore, Plan } from '../store/index.js';
import { isWebhookSecret, newWebhookSecret, WEBHOOK_SECRET_GRACE_MS } from '../contract/webhook-signature.js';
import { generateApiKey, hashApiKey, visiblePrefix } from './keys.js';
import { FREE_ALLOTMENT, includedOf, periodOf, usageAlertBasis } from './plans.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, storeUnavailable: 4 } as const;

export const USAGE = `Usage: npm run accounts -- <command> [args]

Commands:
  create [plan flags] [--label TEXT]     Create an account; prints its id, its API key and its webhook
                                         signing secret (each shown once)
  list [--json]                          List accounts (never keys)
  show <account-id> [--json]             One account and its usage this period (never its key)
  set-plan <account-id> <plan flags>     Change the plan of an account
  rotate-key <account-id>                Issue a new key (shown once); the old key stops working at once
  rotate-webhook-secret <account-id>     Issue a new webhook signing secret (shown once); webhooks are signed
                                         with it from now on, retries of earlier ones included (for 24 hours
                                         with the previous one too)
  revoke <account-id>                    Disable the account's key for good
  set-usage-alert <account-id> --url URL [--thresholds 50,80,100]
                                         Send a signed account.usage_threshold webhook to URL once per
                                         period as the lookups used reach each threshold (whole percents
                                         of the allotment, the included lookups, or with overage and a spend
                                         limit, the lookups that limit allows)
  clear-usage-alert <account-id>         No more usage alerts
  help                                   This text

Plan flags:
  --plan free|paid          free: a one-time allotment; paid: lookups included per calendar month (UTC)
  --allotment N             free plan: one-time lookups (default ${FREE_ALLOTMENT})
  --included N              paid plan: lookups included per month (required to create a paid account)
  --overage true|false      paid plan: allow lookups past the included ones
  --rate USD                paid plan: price of one lookup past the included ones (> 0 when overage is on)
  --spend-limit USD|none    paid plan: monthly cap on overage spend
  --payment-failing true|false   pauses overage while a payment is failing
  --label TEXT              a name for the account (--label none clears it)

Exit codes: 0 ok, 1 failure, 2 bad input, 3 no such account, 4 store unreachable.`;

/** Bad input: the message is shown with the usage hint, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

class NotFoundError extends Error {
  override name = 'NotFoundError';
}

export interface ParsedArgs {
  command: string | null;
  positional: string[];
  flags: Map<string, string>;
}

/**
 * `cmd pos --flag value --flag=value --json`, split into words by node:util's parseArgs (not strict, so
 * every problem gets this command's own message): an unknown or short flag, a flag given twice, or one
 * without its value is an error. Which flags a command accepts is checked by the command.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const { tokens } = splitArgs({
    args: [...argv],
    options: FLAG_OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind === 'positional') positional.push(t.value);
    if (t.kind !== 'option') continue;
    const type = FLAG_OPTIONS[t.name]?.type;
    if (type === undefined || !t.rawName.startsWith('--')) throw new UsageError(`Bad flag "${t.rawName}"`);
    if (flags.has(t.name)) throw new UsageError(`--${t.name} given twice`);
    if (type === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`--${t.name} takes no value`);
      flags.set(t.name, 'true');
    } else {
      // `--plan --label x`: the next word is a flag, not --plan's value.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--')))
        throw new UsageError(`--${t.name} needs a value`);
      flags.set(t.name, t.value);
    }
  }
  return { command: positional.shift() ?? null, positional, flags };
}

export type AccountPatch = Partial<
  Pick<
    Account,
    'plan' | 'allotment' | 'included' | 'overage' | 'overageRateUsd' | 'spendLimitUsd' | 'paymentFailing' | 'label'
  >
>;

const PLAN_FLAGS = ['plan', 'allotment', 'included', 'overage', 'rate', 'spend-limit', 'payment-failing', 'label'];

/** Every flag of any command, with its kind: a value, or a switch. */
const FLAG_OPTIONS: Record<string, { type: 'string' | 'boolean' }> = {
  ...Object.fromEntries([...PLAN_FLAGS, 'url', 'thresholds'].map((name) => [name, { type: 'string' as const }])),
  json: { type: 'boolean' },
};

export const DEFAULT_ALERT_THRESHOLDS = [50, 80, 100];
const MAX_ALERT_THRESHOLDS = 10;

/** `50,80,100`: whole percents 1 to 1000, at most 10, in ascending order without repeats. */
export function parseThresholds(v: string): number[] {
  const parts = v.split(',').map((p) => p.trim().replace(/%$/, ''));
  if (parts.some((p) => !/^\d{1,4}$/.test(p) || Number(p) < 1 || Number(p) > 1000))
    throw new UsageError(`--thresholds must be whole percents from 1 to 1000, comma-separated (got "${v}")`);
  const thresholds = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  if (thresholds.length > MAX_ALERT_THRESHOLDS)
    throw new UsageError(`--thresholds takes at most ${MAX_ALERT_THRESHOLDS} percents (got ${thresholds.length})`);
  return thresholds;
}

function wholeNumber(v: string, flag: string): number {
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`--${flag} must be a whole number >= 0 (got "${v}")`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${flag} is too large (got "${v}")`);
  return n;
}

function usd(v: string, flag: string): number {
  const n = Number(v.trim().replace(/^\$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`--${flag} must be an amount in USD >= 0 (got "${v}")`);
  return n;
}

function bool(v: string, flag: string): boolean {
  const s = v.trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new UsageError(`--${flag} must be true or false (got "${v}")`);
}

/** Reads the plan flags; rejects any other flag (except those in `also`). */
export function parsePlanFlags(flags: Map<string, string>, also: readonly string[] = []): AccountPatch {
  for (const name of flags.keys()) {
    if (!PLAN_FLAGS.includes(name) && !also.includes(name)) throw new UsageError(`Unknown flag --${name}`);
  }
  const patch: AccountPatch = {};
  const get = (name: string) => flags.get(name);
  const plan = get('plan');
  if (plan !== undefined) {
    if (plan !== 'free' && plan !== 'paid') throw new UsageError(`--plan must be free or paid (got "${plan}")`);
    patch.plan = plan as Plan;
  }
  const allotment = get('allotment');
  if (allotment !== undefined) patch.allotment = wholeNumber(allotment, 'allotment');
  const included = get('included');
  if (included !== undefined) patch.included = wholeNumber(included, 'included');
  const overage = get('overage');
  if (overage !== undefined) patch.overage = bool(overage, 'overage');
  const rate = get('rate');
  if (rate !== undefined) patch.overageRateUsd = usd(rate, 'rate');
  const limit = get('spend-limit');
  if (limit !== undefined)
    patch.spendLimitUsd = limit.trim().toLowerCase() === 'none' ? null : usd(limit, 'spend-limit');
  const failing = get('payment-failing');
  if (failing !== undefined) patch.paymentFailing = bool(failing, 'payment-failing');
  const label = get('label');
  if (label !== undefined)
    patch.label = label.trim() === '' || label.trim().toLowerCase() === 'none' ? null : label.trim();
  return patch;
}

/** Rules that hold for the account as a whole, after a patch. */
export function checkAccount(a: Account): void {
  if (a.plan === 'paid' && a.overage && !(a.overageRateUsd > 0)) {
    throw new UsageError('A paid plan with overage on needs --rate USD greater than 0');
  }
}

export const newAccountId = (): string => `acct_${randomBytes(8).toString('hex')}`;

export async function createAccount(
  store: AccountStore,
  secret: string,
  patch: AccountPatch,
  now: Date = new Date(),
): Promise<{ account: Account; key: string }> {
  const plan = patch.plan ?? 'free';
  if (plan === 'paid' && patch.included === undefined) throw new UsageError('A paid account needs --included N');
  const key = generateApiKey();
  const account: Account = {
    id: newAccountId(),
    keyHash: hashApiKey(key, secret),
    keyPrefix: visiblePrefix(key),
    plan,
    allotment: patch.allotment ?? FREE_ALLOTMENT,
    included: patch.included ?? 0,
    overage: patch.overage ?? false,
    overageRateUsd: patch.overageRateUsd ?? 0,
    spendLimitUsd: patch.spendLimitUsd ?? null,
    paymentFailing: patch.paymentFailing ?? false,
    revoked: false,
    createdAt: now.toISOString(),
    label: patch.label ?? null,
    webhookSecret: newWebhookSecret(),
  };
  checkAccount(account);
  await store.putAccount(account);
  return { account, key };
}

async function mustGet(store: AccountStore, id: string | undefined): Promise<Account> {
  if (!id) throw new UsageError('Give the account id');
  const account = await store.getAccount(id);
  if (!account) throw new NotFoundError(`No account ${id}`);
  return account;
}

export async function setPlan(store: AccountStore, id: string, patch: AccountPatch): Promise<Account> {
  if (Object.keys(patch).length === 0) throw new UsageError('set-plan needs at least one plan flag');
  const account = { ...(await mustGet(store, id)), ...patch };
  checkAccount(account);
  await store.putAccount(account);
  return account;
}

export async function rotateKey(
  store: AccountStore,
  secret: string,
  id: string,
): Promise<{ account: Account; key: string }> {
  const current = await mustGet(store, id);
  if (current.revoked) throw new UsageError(`Account ${id} is revoked; create a new account instead`);
  const key = generateApiKey();
  const account = { ...current, keyHash: hashApiKey(key, secret), keyPrefix: visiblePrefix(key) };
  await store.putAccount(account);
  return { account, key };
}

/**
 * A new webhook signing secret. Attempts read the secrets when they sign: from now on they carry the new
 * one's signature and, for WEBHOOK_SECRET_GRACE_MS, the previous one's too (Standard Webhooks' several
 * signatures), so a receiver still on the previous secret verifies until it is updated.
 */
export async function rotateWebhookSecret(
  store: AccountStore,
  id: string,
  now = new Date(),
): Promise<{ account: Account; secret: string }> {
  const current = await mustGet(store, id);
  if (current.revoked) throw new UsageError(`Account ${id} is revoked; create a new account instead`);
  const secret = newWebhookSecret();
  const { previousWebhookSecret: _replaced, ...rest } = current;
  const account: Account = isWebhookSecret(current.webhookSecret)
    ? {
        ...rest,
        webhookSecret: secret,
        previousWebhookSecret: {
          secret: current.webhookSecret,
          until: new Date(now.getTime() + WEBHOOK_SECRET_GRACE_MS).toISOString(),
        },
      }
    : { ...rest, webhookSecret: secret };
  await store.putAccount(account);
  return { account, secret };
}

/**
 * Sets the account's usage alerts: `url` checked by `checkUrl` (the webhooks' URL guard: http(s), a public
 * host unless WEBHOOK_ALLOW_PRIVATE) and kept as it returns it.
 */
export async function setUsageAlert(
  store: AccountStore,
  id: string,
  raw: { url: string | undefined; thresholds: string | undefined },
  checkUrl: (url: string) => Promise<string>,
): Promise<Account> {
  const current = await mustGet(store, id);
  if (raw.url === undefined) throw new UsageError('set-usage-alert needs --url URL');
  const thresholds = raw.thresholds === undefined ? DEFAULT_ALERT_THRESHOLDS : parseThresholds(raw.thresholds);
  let url: string;
  try {
    url = await checkUrl(raw.url);
  } catch (e) {
    const reason = (e as { details?: { reason?: string } }).details?.reason ?? (e as Error).message;
    throw new UsageError(`--url is refused: ${reason}`);
  }
  const account: Account = { ...current, usageAlert: { url, thresholds } };
  await store.putAccount(account);
  return account;
}

export async function clearUsageAlert(store: AccountStore, id: string): Promise<{ account: Account; had: boolean }> {
  const current = await mustGet(store, id);
  const { usageAlert, ...account } = current;
  if (usageAlert) await store.putAccount(account);
  return { account, had: usageAlert !== undefined };
}

function alertLine(a: Account): string {
  if (!a.usageAlert) return 'none';
  const basis = usageAlertBasis(a);
  const of = basis === null ? 'no limit: never sent' : `${basis.basis.replace('_', ' ')} (${basis.lookups} lookups)`;
  return `${a.usageAlert.thresholds.map((t) => `${t}%`).join(', ')} of ${of} → ${a.usageAlert.url}`;
}

export async function revokeAccount(store: AccountStore, id: string): Promise<{ account: Account; already: boolean }> {
  const current = await mustGet(store, id);
  if (current.revoked) return { account: current, already: true };
  const account = { ...current, revoked: true };
  await store.putAccount(account);
  return { account, already: false };
}

/** What may be shown of an account: everything but the key hash. */
export function publicView(a: Account, used?: { period: string; used: number; reserved: number; overageUsed: number }) {
  return {
    id: a.id,
    label: a.label,
    plan: a.plan,
    keyPrefix: a.keyPrefix,
    revoked: a.revoked,
    createdAt: a.createdAt,
    ...(a.plan === 'free'
      ? { allotment: a.allotment }
      : {
          included: a.included,
          overage: a.overage,
          overageRateUsd: a.overageRateUsd,
          spendLimitUsd: a.spendLimitUsd,
          paymentFailing: a.paymentFailing,
        }),
    ...(a.usageAlert ? { usageAlert: a.usageAlert } : {}),
    ...(used ? { usage: used } : {}),
  };
}

function planLine(a: Account): string {
  if (a.plan === 'free') return `free, ${a.allotment} one-time lookups`;
  const over = a.overage
    ? `overage on at $${a.overageRateUsd}/lookup, spend limit ${a.spendLimitUsd === null ? 'none' : `$${a.spendLimitUsd}`}`
    : 'overage off';
  return `paid, ${a.included} included/month, ${over}${a.paymentFailing ? ', PAYMENT FAILING (overage paused)' : ''}`;
}

export interface AdminIO {
  out(line: string): void;
  err(line: string): void;
}

export interface AdminDeps {
  store: AccountStore & BillingStore;
  secret: string;
  now?: () => Date;
  /** The webhooks' URL guard (set-usage-alert): the URL normalised, or a throw saying why not. */
  checkUrl?: (url: string) => Promise<string>;
}

/** Without the guard (a test's deps): an http(s) URL, as written. */
const plainUrl = async (url: string): Promise<string> => {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new Error('must be an http or https URL');
  return new URL(url).href;
};

/**
 * Runs one command; returns the exit code. Never prints a key except the new one on create/rotate-key,
 * nor a webhook secret except the new one on create/rotate-webhook-secret.
 */
export async function runAdmin(argv: readonly string[], deps: AdminDeps, io: AdminIO): Promise<number> {
  const now = deps.now ?? (() => new Date());
  const { store } = deps;
  try {
    const { command, positional, flags } = parseArgs(argv);
    const noPositional = (n: number) => {
      if (positional.length > n) throw new UsageError(`Unexpected argument "${positional[n]}"`);
    };
    const onlyFlags = (allowed: string[]) => {
      for (const name of flags.keys())
        if (!allowed.includes(name)) throw new UsageError(`Unknown flag --${name} for ${command}`);
    };
    switch (command) {
      case null:
        io.err(USAGE);
        return EXIT.usage;
      case 'help':
      case '--help':
        io.out(USAGE);
        return EXIT.ok;
      case 'create': {
        noPositional(0);
        const { account, key } = await createAccount(store, deps.secret, parsePlanFlags(flags), now());
        io.out(`Created account ${account.id} (${planLine(account)})`);
        io.out(`API key: ${key}`);
        io.out(`Webhook signing secret: ${account.webhookSecret}`);
        io.out('Store both now: they are shown only this once.');
        return EXIT.ok;
      }
      case 'list': {
        noPositional(0);
        onlyFlags(['json']);
        const accounts = (await store.listAccounts()).sort(
          (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
        );
        const rows = [];
        for (const a of accounts) {
          const period = periodOf(a, now());
          const u = await store.usage(a.id, period);
          rows.push({ a, period, u });
        }
        if (flags.has('json')) {
          io.out(
            JSON.stringify(
              rows.map(({ a, period, u }) => publicView(a, { period, ...u })),
              null,
              2,
            ),
          );
          return EXIT.ok;
        }
        if (rows.length === 0) {
          io.out('No accounts.');
          return EXIT.ok;
        }
        for (const { a, period, u } of rows) {
          const status = a.revoked ? 'REVOKED' : 'active';
          io.out(
            [a.id, a.plan, `${a.keyPrefix}…`, status, `${u.used}/${includedOf(a)} used (${period})`, a.label ?? '']
              .join('\t')
              .trimEnd(),
          );
        }
        return EXIT.ok;
      }
      case 'show': {
        noPositional(1);
        onlyFlags(['json']);
        const a = await mustGet(store, positional[0]);
        const period = periodOf(a, now());
        const u = await store.usage(a.id, period);
        if (flags.has('json')) {
          io.out(JSON.stringify(publicView(a, { period, ...u }), null, 2));
          return EXIT.ok;
        }
        io.out(`Account   ${a.id}${a.label ? ` (${a.label})` : ''}`);
        io.out(`Status    ${a.revoked ? 'REVOKED' : 'active'}`);
        io.out(`Key       ${a.keyPrefix}… (prefix only)`);
        io.out(`Plan      ${planLine(a)}`);
        io.out(`Created   ${a.createdAt}`);
        io.out(`Alerts    ${alertLine(a)}`);
        io.out(
          `Usage     ${u.used} used of ${includedOf(a)} included in ${period}` +
            `${u.overageUsed > 0 ? `, ${u.overageUsed} past the plan` : ''}${u.reserved > 0 ? `, ${u.reserved} in flight` : ''}`,
        );
        return EXIT.ok;
      }
      case 'set-plan': {
        noPositional(1);
        const a = await setPlan(store, positional[0] ?? '', parsePlanFlags(flags));
        io.out(`Account ${a.id}: ${planLine(a)}`);
        return EXIT.ok;
      }
      case 'rotate-key': {
        noPositional(1);
        onlyFlags([]);
        const { account, key } = await rotateKey(store, deps.secret, positional[0] ?? '');
        io.out(`New API key for ${account.id}: ${key}`);
        io.out('The previous key no longer works. Store the new key now: it is shown only this once.');
        return EXIT.ok;
      }
      case 'rotate-webhook-secret': {
        noPositional(1);
        onlyFlags([]);
        const { account, secret } = await rotateWebhookSecret(store, positional[0] ?? '', now());
        io.out(`New webhook signing secret for ${account.id}: ${secret}`);
        io.out(
          'Webhooks are signed with it from now on (retries of earlier ones too), and for 24 hours with the previous secret as well: update your receiver within that time. Store it now: it is shown only this once.',
        );
        return EXIT.ok;
      }
      case 'set-usage-alert': {
        noPositional(1);
        onlyFlags(['url', 'thresholds']);
        const a = await setUsageAlert(
          store,
          positional[0] ?? '',
          { url: flags.get('url'), thresholds: flags.get('thresholds') },
          deps.checkUrl ?? plainUrl,
        );
        io.out(`Account ${a.id}: usage alerts ${alertLine(a)}`);
        return EXIT.ok;
      }
      case 'clear-usage-alert': {
        noPositional(1);
        onlyFlags([]);
        const { account, had } = await clearUsageAlert(store, positional[0] ?? '');
        io.out(had ? `Account ${account.id}: usage alerts cleared.` : `Account ${account.id} had no usage alerts.`);
        return EXIT.ok;
      }
      case 'revoke': {
        noPositional(1);
        onlyFlags([]);
        const { account, already } = await revokeAccount(store, positional[0] ?? '');
        io.out(
          already
            ? `Account ${account.id} was already revoked.`
            : `Revoked account ${account.id}: its key no longer works.`,
        );
        return EXIT.ok;
      }
      default:
        throw new UsageError(`Unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`Error: ${e.message}`);
      io.err('Run `npm run accounts -- help` for usage.');
      return EXIT.usage;
    }
    if (e instanceof NotFoundError) {
      io.err(`Error: ${e.message}`);
      return EXIT.notFound;
    }
    if (isLookupError(e) && e.code === 'store_unavailable') {
      io.err(
        'Error: the account store (Redis) cannot be reached. Check REDIS_URL and try again (for create, rotate-key and rotate-webhook-secret, check with list whether the account changed).',
      );
      return EXIT.storeUnavailable;
    }
    io.err(`Error: ${(e as Error)?.message ?? String(e)}`);
    return EXIT.failure;
  }
}

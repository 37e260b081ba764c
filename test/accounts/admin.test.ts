import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, parseArgs, parsePlanFlags, runAdmin, UsageError } from '../../src/accounts/admin.js';
import { authenticate } from '../../src/accounts/authenticate.js';
import { hashApiKey } from '../../src/accounts/keys.js';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Store } from '../../src/store/types.js';
import { entryArgs } from '../helpers/compiled-src.js';
import { disposeRedisServer, freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const SECRET = 'test-secret-for-admin';
const KEY_RE = /pl_live_[0-9A-Za-z]{32}/g;

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(server);
});

interface Run {
  code: number;
  out: string;
  err: string;
}

async function run(store: Store, ...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(
    argv,
    { store, secret: SECRET, now: () => new Date('2026-03-15T10:00:00Z') },
    {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function keyOf(r: Run): string {
  const keys = r.out.match(KEY_RE) ?? [];
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

function idOf(r: Run): string {
  const m = /acct_[0-9a-f]{16}/.exec(r.out);
  expect(m).not.toBeNull();
  return m![0];
}

describe('parseArgs / parsePlanFlags', () => {
  it('reads commands, positionals, --flag value, --flag=value and switches', () => {
    const p = parseArgs(['set-plan', 'acct_1', '--plan', 'paid', '--included=100', '--json']);
    expect(p.command).toBe('set-plan');
    expect(p.positional).toEqual(['acct_1']);
    expect(Object.fromEntries(p.flags)).toEqual({ plan: 'paid', included: '100', json: 'true' });
    expect(parseArgs([]).command).toBeNull();
  });

  it('rejects a flag without value, twice, or malformed', () => {
    expect(() => parseArgs(['create', '--plan'])).toThrow(UsageError);
    expect(() => parseArgs(['create', '--plan', '--label', 'x'])).toThrow(/needs a value/);
    expect(() => parseArgs(['create', '--plan', 'free', '--plan', 'paid'])).toThrow(/twice/);
    expect(() => parseArgs(['create', '--Plan=x'])).toThrow(/Bad flag/);
  });

  it('parses plan flags strictly', () => {
    const f = (o: Record<string, string>) => parsePlanFlags(new Map(Object.entries(o)));
    expect(
      f({
        plan: 'paid',
        included: '100',
        overage: 'true',
        rate: '0.05',
        'spend-limit': 'none',
        'payment-failing': 'false',
      }),
    ).toEqual({
      plan: 'paid',
      included: 100,
      overage: true,
      overageRateUsd: 0.05,
      spendLimitUsd: null,
      paymentFailing: false,
    });
    expect(f({ 'spend-limit': '$25.50', allotment: '10' })).toEqual({ spendLimitUsd: 25.5, allotment: 10 });
    expect(() => f({ plan: 'gold' })).toThrow(/free or paid/);
    expect(() => f({ allotment: '-1' })).toThrow(/whole number/);
    expect(() => f({ included: '1.5' })).toThrow(/whole number/);
    expect(() => f({ overage: 'yes' })).toThrow(/true or false/);
    expect(() => f({ rate: 'abc' })).toThrow(/USD/);
    expect(() => f({ 'spend-limit': '-3' })).toThrow(/USD/);
    expect(() => f({ colour: 'red' })).toThrow(/Unknown flag --colour/);
  });
});

const factories: [string, () => Promise<Store>][] = [
  ['memory', async () => new MemoryStore()],
  ['redis', () => RedisStore.connect(server.url, { prefix: `adm${randomUUID().slice(0, 8)}:` })],
];

for (const [label, factory] of factories) {
  describe(`accounts admin on the ${label} store`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('create prints the id and the key once; the key authenticates', async () => {
      const r = await run(store, 'create', '--label', 'Acme Realty');
      expect(r.code).toBe(EXIT.ok);
      const key = keyOf(r);
      const id = idOf(r);
      expect(r.out).toContain('shown only this once');
      const account = await authenticate(store, SECRET, key);
      expect(account).toMatchObject({
        id,
        plan: 'free',
        allotment: 50,
        label: 'Acme Realty',
        revoked: false,
        keyPrefix: key.slice(0, 12),
      });
      expect(account.keyHash).toBe(hashApiKey(key, SECRET));
    });

    it('creates a paid account with every plan flag', async () => {
      const r = await run(
        store,
        'create',
        '--plan',
        'paid',
        '--included',
        '1000',
        '--overage',
        'true',
        '--rate',
        '0.04',
        '--spend-limit',
        '25',
        '--payment-failing',
        'false',
      );
      expect(r.code).toBe(EXIT.ok);
      expect(await store.getAccount(idOf(r))).toMatchObject({
        plan: 'paid',
        included: 1000,
        overage: true,
        overageRateUsd: 0.04,
        spendLimitUsd: 25,
        paymentFailing: false,
      });
    });

    it('list and show never print a key or a key hash, only the prefix', async () => {
      const created = await run(store, 'create', '--plan', 'paid', '--included', '5');
      const key = keyOf(created);
      const id = idOf(created);
      const account = (await store.getAccount(id))!;
      await run(store, 'create');
      for (const argv of [['list'], ['list', '--json'], ['show', id], ['show', id, '--json']]) {
        const r = await run(store, ...argv);
        expect(r.code).toBe(EXIT.ok);
        expect(r.out).not.toContain(key);
        expect(r.out).not.toContain(account.keyHash);
        expect(r.out).not.toMatch(KEY_RE);
        expect(r.out).toContain(account.keyPrefix);
        expect(r.out).toContain(id);
      }
      const listed = JSON.parse((await run(store, 'list', '--json')).out) as { id: string }[];
      expect(listed).toHaveLength(2);
      const shown = JSON.parse((await run(store, 'show', id, '--json')).out) as Record<string, unknown>;
      expect(shown).toMatchObject({ id, plan: 'paid', included: 5, usage: { period: '2026-03', used: 0 } });
      expect(shown).not.toHaveProperty('keyHash');
    });

    it('set-plan changes the plan and validates it', async () => {
      const id = idOf(await run(store, 'create'));
      let r = await run(
        store,
        'set-plan',
        id,
        '--plan',
        'paid',
        '--included',
        '200',
        '--overage',
        'true',
        '--rate',
        '0.05',
        '--spend-limit',
        '10',
      );
      expect(r.code).toBe(EXIT.ok);
      expect(await store.getAccount(id)).toMatchObject({
        plan: 'paid',
        included: 200,
        overage: true,
        overageRateUsd: 0.05,
        spendLimitUsd: 10,
      });
      r = await run(store, 'set-plan', id, '--spend-limit', 'none', '--payment-failing', 'true');
      expect(r.code).toBe(EXIT.ok);
      expect(await store.getAccount(id)).toMatchObject({ spendLimitUsd: null, paymentFailing: true, included: 200 });
      r = await run(store, 'set-plan', id, '--rate', '0');
      expect(r.code).toBe(EXIT.usage);
      expect(r.err).toMatch(/--rate/);
      expect((await store.getAccount(id))?.overageRateUsd).toBe(0.05);
      r = await run(store, 'set-plan', id);
      expect(r.code).toBe(EXIT.usage);
      r = await run(store, 'set-plan', 'acct_nope', '--plan', 'free');
      expect(r.code).toBe(EXIT.notFound);
      expect(r.err).toContain('acct_nope');
    });

    it('rotate-key prints a new key once; the old key stops working', async () => {
      const created = await run(store, 'create');
      const oldKey = keyOf(created);
      const id = idOf(created);
      const r = await run(store, 'rotate-key', id);
      expect(r.code).toBe(EXIT.ok);
      const newKey = keyOf(r);
      expect(newKey).not.toBe(oldKey);
      await expect(authenticate(store, SECRET, oldKey)).rejects.toMatchObject({ code: 'invalid_api_key' });
      expect((await authenticate(store, SECRET, newKey)).id).toBe(id);
      expect((await run(store, 'rotate-key', 'acct_nope')).code).toBe(EXIT.notFound);
    });

    it('revoke disables the key', async () => {
      const created = await run(store, 'create');
      const key = keyOf(created);
      const id = idOf(created);
      expect((await run(store, 'revoke', id)).code).toBe(EXIT.ok);
      await expect(authenticate(store, SECRET, key)).rejects.toMatchObject({ code: 'invalid_api_key' });
      const again = await run(store, 'revoke', id);
      expect(again.code).toBe(EXIT.ok);
      expect(again.out).toMatch(/already revoked/);
      expect((await run(store, 'rotate-key', id)).code).toBe(EXIT.usage);
      expect((await run(store, 'show', id)).out).toMatch(/REVOKED/);
    });

    it('bad input: clear errors and exit code 2', async () => {
      const cases: string[][] = [
        ['frobnicate'],
        ['create', '--plan', 'paid'],
        ['create', '--allotment', 'many'],
        ['create', '--overage', 'maybe'],
        ['create', 'extra'],
        ['create', '--unknown', '1'],
        ['show'],
        ['list', '--plan', 'free'],
        ['revoke', 'a', 'b'],
      ];
      for (const argv of cases) {
        const r = await run(store, ...argv);
        expect(r.code, argv.join(' ')).toBe(EXIT.usage);
        expect(r.err, argv.join(' ')).toMatch(/^Error: /);
        expect(r.out).toBe('');
      }
      expect((await run(store)).code).toBe(EXIT.usage);
      expect((await run(store, 'help')).code).toBe(EXIT.ok);
      expect(await store.listAccounts()).toEqual([]);
    });
  });
}

describe('accounts admin when Redis is unreachable', () => {
  it('exits 4 with a clear message', async () => {
    const store = await RedisStore.connect(`redis://127.0.0.1:${await freePort()}`, {
      prefix: 'x:',
      startupWaitMs: 200,
    });
    try {
      const r = await run(store, 'list');
      expect(r.code).toBe(EXIT.storeUnavailable);
      expect(r.err).toMatch(/cannot be reached/);
    } finally {
      await store.close();
    }
  });
});

describe('the accounts CLI process', () => {
  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<Run>((resolve) => {
      const child = spawn(process.execPath, [...entryArgs('accounts-cli.ts'), ...args], {
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '', API_KEY_SECRET: SECRET, ...env },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    });

  it('creates against REDIS_URL, then lists without the key; refuses without REDIS_URL', async () => {
    const env = { REDIS_URL: server.url, REDIS_PREFIX: `cli${randomUUID().slice(0, 6)}:` };
    const created = await cli(['create', '--plan', 'paid', '--included', '10'], env);
    expect(created.err).toBe('');
    expect(created.code).toBe(0);
    const key = keyOf(created);
    const id = idOf(created);
    const listed = await cli(['list'], env);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(id);
    expect(listed.out).not.toContain(key);
    const store = await RedisStore.connect(server.url, { prefix: env.REDIS_PREFIX });
    try {
      expect((await authenticate(store, SECRET, key)).id).toBe(id);
    } finally {
      await store.close();
    }
    const bad = await cli(['set-plan', id, '--included', 'lots'], env);
    expect(bad.code).toBe(2);
    const noRedis = await cli(['list'], {});
    expect(noRedis.code).toBe(2);
    expect(noRedis.err).toMatch(/REDIS_URL is not set/);
  }, 60_000);
});

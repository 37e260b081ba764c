// The accounts command's words, split by node:util's parseArgs (issue 13 §5), and its process
// refusing a bad environment line by line (issue 12).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/accounts/admin.js';
import { entryArgs } from '../helpers/compiled-src.js';

describe('accounts command: parseArgs', () => {
  it('a value may start with a single dash or be empty when given inline; `--` ends the flags', () => {
    expect(Object.fromEntries(parseArgs(['set-plan', 'a', '--rate', '-1', '--label=']).flags)).toEqual({
      rate: '-1',
      label: '',
    });
    const p = parseArgs(['show', '--', '--plan']);
    expect(p).toMatchObject({ command: 'show', positional: ['--plan'] });
    expect(p.flags.size).toBe(0);
  });

  it('refuses short flags, unknown flags, a switch with a value, and a value-less flag at the end', () => {
    expect(() => parseArgs(['create', '-p', 'free'])).toThrow(/Bad flag "-p"/);
    expect(() => parseArgs(['create', '--colour', 'red'])).toThrow(/Bad flag "--colour"/);
    expect(() => parseArgs(['list', '--json=1'])).toThrow(/--json takes no value/);
    expect(() => parseArgs(['list', '--json', '--json'])).toThrow(/--json given twice/);
    expect(() => parseArgs(['create', '--label'])).toThrow(/--label needs a value/);
    expect(() => parseArgs(['create', '--label'])).toThrow(UsageError);
  });
});

describe('the accounts process with a bad environment', () => {
  it('prints each problem on its own Error line and exits 2, before touching any store', async () => {
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [...entryArgs('accounts-cli.ts'), 'list'], {
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '', REDIS_URL: 'http://cache:6379', REDIS_COMMAND_TIMEOUT_MS: 'soon' },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => resolve({ code, out, err }));
    });
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trimEnd().split('\n')).toEqual([
      'Error: REDIS_URL must be a redis:// or rediss:// URL',
      'Error: REDIS_COMMAND_TIMEOUT_MS must be an integer >= 50 and <= 2147483647 (got "soon")',
    ]);
  });
});

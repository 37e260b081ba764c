// `npm start` with a bad environment (issue 12): the process refuses to start, before it listens, with
// every problem on its own stderr line, no stack trace, and exit code 78 (EX_CONFIG).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT_CONFIG } from '../../src/config.js';
import { entryArgs } from '../helpers/compiled-src.js';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(env: Record<string, string>): Promise<Exit> {
  const proc = spawn(process.execPath, entryArgs('index.ts'), {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += String(d)));
  proc.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('a bad environment stops the process', () => {
  it('every problem listed at once, one line each, no stack, exit 78, nothing served', async () => {
    const r = await start({
      PORT: 'http',
      FALLBACK_URL: 'not a url',
      BATCH_CONCURRENCY: '-3',
      LEASE_TTL_MS: '400',
      REDIS_COMMAND_TIMEOUT_MS: '200',
      NODE_ENV: 'production',
      FALLBACK_ACTOR: 'me/actor',
    });
    expect(r.code).toBe(EXIT_CONFIG);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'Configuration refused (5 problems; see docs/configuration.md):',
      '  PORT must be an integer >= 0 and <= 65535 (got "http")',
      '  FALLBACK_URL must be an http:// or https:// URL (got "not a url")',
      '  BATCH_CONCURRENCY must be an integer >= 1 (got "-3")',
      '  LEASE_TTL_MS (400) must be at least 3 × REDIS_COMMAND_TIMEOUT_MS (200)',
      '  API_KEY_SECRET must be set when NODE_ENV is production (without it API keys are hashed with the public development secret)',
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a fallback URL without its token, in production with a secret: the one problem', async () => {
    const r = await start({
      NODE_ENV: 'production',
      API_KEY_SECRET: 'a-real-secret-0001',
      FALLBACK_URL: 'https://api.example.com',
      FALLBACK_ACTOR: 'me/actor',
    });
    expect(r.code).toBe(EXIT_CONFIG);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'Configuration refused (1 problem; see docs/configuration.md):',
      '  FALLBACK_URL, FALLBACK_TOKEN and FALLBACK_ACTOR are set together or not at all: FALLBACK_TOKEN missing',
    ]);
  });
});

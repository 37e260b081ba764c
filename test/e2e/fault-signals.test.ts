// A fault signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT) is no stop request: `npm start`
// leaves it its default action (the process dies by that signal) instead of a graceful stop of a broken
// process; SIGTERM stays graceful (shutdown.test.ts, stop-signals.test.ts).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FAULT_SIGNALS } from '../../src/server.js';
import { entryArgs } from '../helpers/compiled-src.js';

describe('a fault signal', () => {
  it('every fault signal is left out of the graceful stop', () => {
    expect([...FAULT_SIGNALS].sort()).toEqual(['SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGSEGV', 'SIGTRAP']);
  });

  it('SIGTRAP kills the process by that signal, without a "stopping" line', async () => {
    const proc = spawn(process.execPath, entryArgs('index.ts'), {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const msgs: string[] = [];
    let buffered = '';
    const listening = new Promise<void>((resolve) => {
      proc.stdout.on('data', (d) => {
        buffered += String(d);
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const l of lines) msgs.push((JSON.parse(l) as { msg: string }).msg);
        if (msgs.some((m) => m.startsWith('Server listening'))) resolve();
      });
    });
    proc.stderr.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.on('exit', (code, signal) => resolve({ code, signal })),
    );
    await listening;
    proc.kill('SIGTRAP');
    expect(await exited).toEqual({ code: null, signal: 'SIGTRAP' });
    expect(msgs).not.toContain('stopping');
  });
});

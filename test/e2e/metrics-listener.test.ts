// The METRICS_PORT listener as the service starts it (issue 12 review): it is up, on METRICS_HOST, when
// the start-up resolves; a port it cannot bind stops the start-up (startService rejects, `npm start` exits 1
// with one line saying why) instead of a logged error and a service without metrics.
import { spawn } from 'node:child_process';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/server.js';
import { entryArgs } from '../helpers/compiled-src.js';

/** A port some other listener holds on 127.0.0.1. */
let taken: net.Server;
let takenPort: number;
beforeAll(async () => {
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

const config = (env: Record<string, string>) =>
  loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });

describe('the METRICS_PORT listener', () => {
  it('is listening, on loopback by default, when the start-up resolves, and stops with the service', async () => {
    const service = await startService(config({ METRICS_PORT: '0' }));
    const server = service.app.metricsServer;
    try {
      expect(server?.listening).toBe(true);
      expect((server!.address() as AddressInfo).address).toBe('127.0.0.1');
      const r = await fetch(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/metrics`);
      expect(r.status).toBe(200);
    } finally {
      await service.close();
    }
    expect(server!.listening).toBe(false);
  });

  it('binds METRICS_HOST, not HOST', async () => {
    const service = await startService(config({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.2' }));
    try {
      expect((service.app.metricsServer!.address() as AddressInfo).address).toBe('127.0.0.2');
      expect((service.app.server.address() as AddressInfo).address).toBe('127.0.0.1');
    } finally {
      await service.close();
    }
  });

  it('on a port in use: startService rejects saying which address and why', async () => {
    await expect(startService(config({ METRICS_PORT: String(takenPort) }))).rejects.toThrow(
      `METRICS_PORT: cannot listen on 127.0.0.1:${takenPort} (EADDRINUSE)`,
    );
  });

  it('on a port in use: `npm start` exits 1 with one fatal line giving the reason', async () => {
    const proc = spawn(process.execPath, entryArgs('index.ts'), {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        METRICS_PORT: String(takenPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    proc.stdout.on('data', (d) => (stdout += String(d)));
    proc.stderr.resume();
    const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
    expect(code).toBe(1);
    const fatal = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level === 60);
    expect(fatal.map((l) => l.msg)).toEqual([
      `start-up failed: METRICS_PORT: cannot listen on 127.0.0.1:${takenPort} (EADDRINUSE)`,
    ]);
  });
});

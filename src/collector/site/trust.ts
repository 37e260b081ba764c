// Which certificate authorities the site's client trusts, as a Node operator expects: impit (rustls)
// reads SSL_CERT_FILE itself (once per process and browser profile: before its first client is made);
// NODE_EXTRA_CA_CERTS adds certificates to the roots in Node, so when only it is set, impit is given a
// bundle of Node's roots plus those certificates. Node's own clients (the fallback platform, webhooks) read NODE_EXTRA_CA_CERTS
// at start; SSL_CERT_FILE's certificates are added to theirs where Node can (24: setDefaultCACertificates).
// Verification is never switched off (that would also change the site client's TLS fingerprint).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

/** SSL_CERT_FILEs whose certificates Node's own clients already trust (each added once per process). */
const added = new Set<string>();

/** Idempotent: the bundle is made once (it sets SSL_CERT_FILE), each file added to Node's roots once. */
export function trustExtraCertificates(env: NodeJS.ProcessEnv = process.env): void {
  const extra = env.NODE_EXTRA_CA_CERTS;
  const file = env.SSL_CERT_FILE;
  if (extra && !file) {
    const bundle = join(mkdtempSync(join(tmpdir(), 'portal-ca-')), 'bundle.pem');
    writeFileSync(bundle, `${tls.rootCertificates.join('\n')}\n${readFileSync(extra, 'utf8')}`);
    env.SSL_CERT_FILE = bundle;
  }
  const setDefault = (tls as { setDefaultCACertificates?: (certs: string[]) => void }).setDefaultCACertificates;
  const getCurrent = (tls as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  if (file && setDefault && getCurrent && !added.has(file)) {
    added.add(file);
    setDefault([...getCurrent('default'), ...pemBlocks(readFileSync(file, 'utf8'))]);
  }
}

const pemBlocks = (text: string): string[] => text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

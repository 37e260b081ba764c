// A test CA for the whole run, minted before any test process starts, and trusted the way production
// trusts a private CA: SSL_CERT_FILE (impit, the site's client, reads it once per process and browser
// profile, so it must be set before the first one is made) and NODE_EXTRA_CA_CERTS (Node's own clients
// read it at start). The fake listing-site edge serves its certificate (runCertificate in
// test/fakes/edge/test-ca.ts). Verification is never switched off.
import { makeTestCa } from '../fakes/edge/test-ca.js';

export default async function setup(): Promise<() => void> {
  const ca = await makeTestCa();
  Object.assign(process.env, {
    SSL_CERT_FILE: ca.caFile,
    NODE_EXTRA_CA_CERTS: ca.caFile,
    TEST_TLS_CERT: ca.certFile,
    TEST_TLS_KEY: ca.keyFile,
  });
  return () => ca.remove();
}

// Writes openapi.json at the repository's root: the OpenAPI document exactly as the service serves it
// at GET /openapi.json (the app built in process on an in-memory store and the default configuration),
// pretty-printed, committed so the contract of a release can be read, diffed and fed to generators
// without running the service. With --check, writes nothing and exits 1 when the committed file differs
// (test/release.test.ts checks the same).
// Usage: tsx scripts/openapi.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { servedOpenApi } from './client-types.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../openapi.json', import.meta.url));

/** The committed file's text: the served document, two-space indented, with a final newline. */
export async function openApiText(): Promise<string> {
  return `${JSON.stringify(await servedOpenApi(), null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await openApiText();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error('openapi.json is stale: run npm run openapi');
      process.exit(1);
    }
    console.log('openapi.json is current');
  } else {
    writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote ${OPENAPI_FILE}`);
  }
}

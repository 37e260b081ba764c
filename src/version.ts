// The release, read once from package.json (the one place it is written): the OpenAPI document's
// info.version, the MCP server's version and the clients' versions all equal it (test/release.test.ts).
// The API's own version (v1: the path prefix, the x-api-version header, meta.release) is another thing.
// package.json sits one folder above this module both as source (src/) and as the build (dist/: the
// Dockerfile copies package.json beside it).
import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
  license?: string;
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;

/** The release, e.g. 0.1.0 (package.json `version`). */
export const VERSION: string = pkg.version;
/** package.json `license`. */
export const LICENSE: string = pkg.license ?? 'UNLICENSED';

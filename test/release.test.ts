// One release version everywhere: the root package.json's version is the OpenAPI document's info.version
// (served and committed), src/version.ts's (the MCP server's; test/mcp/mcp-http.test.ts reads it back from
// initialize), and the clients' (their package.json, pyproject.toml and generated types.py); no source file
// writes a version of its own. CHANGELOG.md names the release and links the deprecation policy; the
// committed openapi.json is what the service serves now (npm run openapi), with a license, a contact and no
// internal source paths in its text.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { servedOpenApi } from '../scripts/client-types.js';
import { OPENAPI_FILE, openApiText } from '../scripts/openapi.js';
import { LICENSE, VERSION } from '../src/version.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; license: string };

describe('one version string, from package.json', () => {
  it('src/version.ts reads package.json', () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(VERSION).toBe(pkg.version);
    expect(LICENSE).toBe(pkg.license);
  });

  it("the OpenAPI document's info.version is the release (the API's version stays the path's v1)", async () => {
    const doc = (await servedOpenApi()) as { info: { version: string }; paths: Record<string, unknown> };
    expect(doc.info.version).toBe(pkg.version);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/')).length).toBeGreaterThan(0);
  });

  it("the clients' versions are the release", () => {
    expect(JSON.parse(read('clients/typescript/package.json')).version).toBe(pkg.version);
    expect(/^version = "([^"]+)"$/m.exec(read('clients/python/pyproject.toml'))?.[1]).toBe(pkg.version);
    expect(/^VERSION = "([^"]+)"$/m.exec(read('clients/python/portal_lookup/types.py'))?.[1]).toBe(pkg.version);
    expect(JSON.parse(read('clients/typescript/package.json')).license).toBe(pkg.license);
  });

  it('no source file of src/ or the clients writes the release itself, nor the old preview version', () => {
    const files = ['src', 'clients']
      .flatMap((dir) =>
        readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && /\.(ts|py)$/.test(e.name))
          .map((e) => relative(ROOT, join(e.parentPath, e.name))),
      )
      // Generated from the document (checked current by the clients' tests).
      .filter((f) => f !== 'clients/python/portal_lookup/types.py' && !f.includes('/dist/'));
    const offenders = files.filter((f) => {
      const text = read(f);
      return text.includes(`'${pkg.version}'`) || text.includes(`"${pkg.version}"`) || text.includes('1.0.0-preview');
    });
    expect(offenders).toEqual([]);
  });
});

describe('openapi.json', () => {
  it('is the document the service serves now (npm run openapi)', async () => {
    expect(read('openapi.json')).toBe(await openApiText());
    expect(OPENAPI_FILE).toBe(join(ROOT, 'openapi.json'));
  });

  it('has a license (package.json) and a contact, and names no internal source file', () => {
    const doc = JSON.parse(read('openapi.json'));
    expect(doc.info.license).toEqual({ name: pkg.license });
    expect(doc.info.contact.name).toMatch(/\S/);
    const text = read('openapi.json');
    expect(text.match(/[\w/.-]*\bsrc\/[\w/.-]*/g) ?? []).toEqual([]);
    expect(text.match(/[\w/-]+\.ts\b/g) ?? []).toEqual([]);
  });
});

describe('CHANGELOG.md', () => {
  const changelog = read('CHANGELOG.md');

  it('has a section for the current release, dated, and an Unreleased one above it', () => {
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => [m[1], m[2]]);
    expect(headings[0]).toEqual(['Unreleased', undefined]);
    expect(headings).toContainEqual([pkg.version, expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)]);
    // Newest first: the current release is the first versioned section.
    expect(headings[1]![0]).toBe(pkg.version);
  });

  it('uses the Keep a Changelog sections and links the deprecation policy', () => {
    const sections = [...changelog.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(sections.every((s) => ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(s!))).toBe(
      true,
    );
    expect(changelog).toContain('(docs/deprecation.md)');
    const policy = read('docs/deprecation.md');
    for (const words of ['6 months', 'Deprecation', 'Sunset', 'RFC 9745', 'RFC 8594', 'CHANGELOG.md']) {
      expect(policy).toContain(words);
    }
  });
});

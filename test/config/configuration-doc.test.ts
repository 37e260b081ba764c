// docs/configuration.md is generated from the environment schema (ENV in src/config.ts) and the texts
// beside it (src/config/env-docs.ts) by scripts/config-doc.ts (npm run docs:config). The checked-in page
// is the generated one, and its table names the schema's variables with the schema's defaults (issue 12):
// a variable added to the schema, or a default changed, without regenerating the page fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_PAGE, configurationPage } from '../../scripts/config-doc.js';
import { ENV } from '../../src/config.js';
import { docsDefault } from '../../src/config/read-env.js';

interface Row {
  names: string[];
  /** The Default cell, split per variable when it lists one value per name ("`60`, `1`"), else shared. */
  defaults: string[];
}

function configurationTable(page: string): Row[] {
  const section = page.split(/^# Configuration$/m)[1];
  if (!section) throw new Error(`${CONFIGURATION_PAGE} has no "# Configuration" heading`);
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.map((line) => {
    const [variables, dflt] = line.split(' | ');
    const names = [...variables!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
    const parts = dflt!.split(', ');
    return { names, defaults: parts.length === names.length ? parts : names.map(() => dflt!) };
  });
}

const page = readFileSync(new URL(`../../${CONFIGURATION_PAGE}`, import.meta.url), 'utf8');
const table = configurationTable(page);
const documented = new Map(table.flatMap((r) => r.names.map((n, i) => [n, r.defaults[i]!] as const)));
const schema = ENV.properties as Record<string, Parameters<typeof docsDefault>[0]>;

describe(`${CONFIGURATION_PAGE} against the environment schema`, () => {
  it('is the generated page (else: npm run docs:config)', () => {
    expect(page).toBe(configurationPage());
  });

  it('the table was found and lists each variable once', () => {
    const names = table.flatMap((r) => r.names);
    expect(names.length).toBeGreaterThan(30);
    expect(new Set(names).size).toBe(names.length);
  });

  it('every schema variable has a row, and every row a schema entry', () => {
    const inSchema = Object.keys(schema).sort();
    const inPage = [...documented.keys()].sort();
    expect(
      inSchema.filter((n) => !documented.has(n)),
      'in the schema, missing from the page',
    ).toEqual([]);
    expect(
      inPage.filter((n) => !(n in schema)),
      'in the page, missing from the schema',
    ).toEqual([]);
  });

  it("each default is the schema's (literal default in backticks, its docDefault, or unset)", () => {
    const differing = Object.entries(schema)
      .filter(([name, entry]) => documented.has(name) && documented.get(name) !== docsDefault(entry))
      .map(([name, entry]) => `${name}: page "${documented.get(name)}", schema "${docsDefault(entry)}"`);
    expect(differing).toEqual([]);
  });

  it('the check itself sees a changed default and a missing row', () => {
    const altered = page.replace('| `PORT` | `4000` |', '| `PORT` | `4001` |').replace(/^\| `HOST` .*\n/m, '');
    expect(altered).not.toBe(configurationPage());
    const flat = new Map(
      configurationTable(altered).flatMap((r) => r.names.map((n, i) => [n, r.defaults[i]!] as const)),
    );
    expect(flat.get('PORT')).not.toBe(docsDefault(schema.PORT!));
    expect(flat.has('HOST')).toBe(false);
  });
});

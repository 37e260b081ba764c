// The README's Configuration table and the environment schema (ENV in src/config.ts) name the same
// variables with the same defaults (issue 12): a variable added to one and not the other, or a default
// changed on one side only, fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../src/config.js';
import { readmeDefault } from '../../src/config/read-env.js';

interface Row {
  names: string[];
  /** The Default cell, split per variable when it lists one value per name ("`60`, `1`"), else shared. */
  defaults: string[];
}

function configurationTable(readme: string): Row[] {
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('README has no "## Configuration" section');
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.map((line) => {
    const [variables, dflt] = line.split(' | ');
    const names = [...variables!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
    const parts = dflt!.split(', ');
    return { names, defaults: parts.length === names.length ? parts : names.map(() => dflt!) };
  });
}

const table = configurationTable(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
const documented = new Map(table.flatMap((r) => r.names.map((n, i) => [n, r.defaults[i]!] as const)));
const schema = ENV.properties as Record<string, Parameters<typeof readmeDefault>[0]>;

describe('README Configuration table against the environment schema', () => {
  it('the table was found and lists each variable once', () => {
    const names = table.flatMap((r) => r.names);
    expect(names.length).toBeGreaterThan(30);
    expect(new Set(names).size).toBe(names.length);
  });

  it('every schema variable has a README row, and every README row a schema entry', () => {
    const inSchema = Object.keys(schema).sort();
    const inReadme = [...documented.keys()].sort();
    expect(inSchema.filter((n) => !documented.has(n)), 'in the schema, missing from the README').toEqual([]);
    expect(inReadme.filter((n) => !(n in schema)), 'in the README, missing from the schema').toEqual([]);
  });

  it("each README default is the schema's (literal default in backticks, its docDefault, or unset)", () => {
    const differing = Object.entries(schema)
      .filter(([name, entry]) => documented.has(name) && documented.get(name) !== readmeDefault(entry))
      .map(([name, entry]) => `${name}: README "${documented.get(name)}", schema "${readmeDefault(entry)}"`);
    expect(differing).toEqual([]);
  });

  it('the check itself sees a changed default and a missing row', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const altered = configurationTable(readme.replace('| `PORT` | `4000` |', '| `PORT` | `4001` |').replace(/^\| `HOST` .*\n/m, ''));
    const flat = new Map(altered.flatMap((r) => r.names.map((n, i) => [n, r.defaults[i]!] as const)));
    expect(flat.get('PORT')).not.toBe(readmeDefault(schema.PORT!));
    expect(flat.has('HOST')).toBe(false);
  });
});

// The levels of src/: which folders may never import which (docs/architecture.md, "Import rules").
// A rule is one row; a file's folder is its first path segment under src/ (a root file is its own name).
// Exits 1 and prints each import that breaks a rule. Usage: tsx scripts/levels.ts [dir]   (default: src)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from './import-cycles.js';

/** The folders of each kind. */
export const FACES = ['rest', 'graphql', 'mcp'];
export const PAGES = ['web'];
export const SHARED_HTTP = ['http', 'site'];
export const FEATURES = ['jobs', 'watches', 'webhooks', 'background'];
export const CORE = [
  'lookup',
  'collector',
  'store',
  'accounts',
  'observability',
  'queue',
  'address',
  'config',
  'logger',
];

export interface LevelRule {
  from: readonly string[];
  never: readonly string[];
  why: string;
}

const others = (all: readonly string[], one: string) => all.filter((f) => f !== one);

/** The folder pairs that must never import each other. */
export const LEVEL_RULES: readonly LevelRule[] = [
  {
    from: ['contract'],
    never: [...FACES, ...PAGES, ...SHARED_HTTP, ...FEATURES, ...others(CORE, 'address'), 'replay'],
    why: 'the contract reads nothing but address: every face, the core and the clients are generated from it',
  },
  ...FACES.map((face) => ({
    from: [face],
    never: [...others(FACES, face), ...PAGES],
    why: 'a face never imports another face, nor the pages above them',
  })),
  {
    from: SHARED_HTTP,
    never: [...FACES, ...PAGES, ...FEATURES],
    why: 'the shared HTTP layer and the asset library are under every face: a face adds to them (addErrorFormat), they import none',
  },
  {
    from: CORE,
    never: [...FACES, ...PAGES, ...SHARED_HTTP, ...FEATURES],
    why: 'the core serves the faces and the features built on it, and knows none of them',
  },
  {
    from: FEATURES,
    never: [...FACES, ...PAGES, ...SHARED_HTTP],
    why: 'jobs, watches and webhooks run beside the faces (in workers too), not through them',
  },
];

/** src/lookup/live.ts → lookup; src/config.ts → config. */
export const folderOf = (file: string): string =>
  file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.ts$/, '');

/** Every import of `graph` (files relative to src/) that breaks a rule: `from → to (why)`. */
export function levelViolations(
  graph: ReadonlyMap<string, readonly string[]>,
  rules: readonly LevelRule[] = LEVEL_RULES,
): string[] {
  const out: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    for (const to of imports) {
      const target = folderOf(to);
      if (target === from) continue;
      const rule = rules.find((r) => r.from.includes(from) && r.never.includes(target));
      if (rule) out.push(`${file} → ${to} (${rule.why})`);
    }
  }
  return out.sort();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'src';
  const broken = levelViolations(importGraph(dir));
  for (const b of broken) console.error(`upward import in ${dir}: ${b}`);
  if (broken.length > 0) process.exit(1);
  console.log(`no import in ${dir} breaks a level rule`);
}

// The levels of src/ (scripts/levels.ts, the table in docs/architecture.md "Import rules"): no import runs
// from the contract to anything but address, from a face to another face, from the core or the shared HTTP
// layer to a face or a feature. The checker is first shown to catch each kind of upward import in a
// fixture tree, then src/ is checked; the docs list every rule the checker holds.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importGraph } from '../../scripts/import-cycles.js';
import { CORE, FACES, FEATURES, LEVEL_RULES, levelViolations, SHARED_HTTP } from '../../scripts/levels.js';

const scratch = mkdtempSync(join(tmpdir(), 'levels-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, 't-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the level rules', () => {
  it('catch an upward import of each kind in a fixture tree, and let the allowed ones be', () => {
    const root = tree({
      'contract/index.ts':
        "import { x } from '../jobs/types.js';\nimport { a } from '../address/index.js';\nexport const c = x + a;\n",
      'address/index.ts': 'export const a = 1;\n',
      'jobs/types.ts': "import { c } from '../lookup/index.js';\nexport const x = 1;\nexport const y = c;\n",
      'lookup/index.ts': "import { r } from '../rest/index.js';\nexport const c = 1;\nexport const z = r;\n",
      'rest/index.ts':
        "import { g } from '../graphql/index.js';\nimport { h } from '../http/index.js';\nimport { c } from '../lookup/index.js';\nexport const r = g + h + c;\n",
      'graphql/index.ts': 'export const g = 1;\n',
      'http/index.ts': "import { r } from '../rest/index.js';\nexport const h = 1;\nexport const q = r;\n",
      'web/index.ts': "import { r } from '../rest/index.js';\nexport const w = r;\n",
    });
    expect(levelViolations(importGraph(root)).map((v) => v.split(' (')[0])).toEqual([
      'contract/index.ts → jobs/types.ts',
      'http/index.ts → rest/index.ts',
      'lookup/index.ts → rest/index.ts',
      'rest/index.ts → graphql/index.ts',
    ]);
  });

  it('src/ keeps them', () => {
    const graph = importGraph('src');
    expect(graph.get('rest/index.ts')).toContain('rest/routes/jobs.ts');
    expect(levelViolations(graph)).toEqual([]);
  });

  it('every folder of src/ has a kind, and the docs state every rule', () => {
    const known = new Set([...FACES, ...FEATURES, ...SHARED_HTTP, ...CORE, 'web', 'contract', 'replay', 'types']);
    const folders = [
      ...new Set([...importGraph('src').keys()].filter((f) => f.includes('/')).map((f) => f.split('/')[0]!)),
    ];
    expect(folders.filter((f) => !known.has(f))).toEqual([]);
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    for (const rule of LEVEL_RULES) expect(doc, rule.why).toContain(rule.why);
  });
});

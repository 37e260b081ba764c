// No import circle in src/ (type-only imports included), checked by scripts/import-cycles.ts, whose
// finder is itself shown to catch a circle (of types, through an index file) before it is trusted.
// And no GraphQL plugin imports another: what they share lives beside them (limits.ts, documents.ts).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCycles, importGraph } from '../../scripts/import-cycles.js';

const scratch = mkdtempSync(join(tmpdir(), 'import-cycles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('import circles', () => {
  it('the finder reports a circle of type-only imports through an index file, and nothing for a chain', () => {
    mkdirSync(join(scratch, 'lookup'));
    writeFileSync(join(scratch, 'lookup', 'index.ts'), "export { a } from './a.js';\n");
    writeFileSync(join(scratch, 'lookup', 'a.ts'), "import type { B } from './b.js';\nexport const a = (b: B) => b;\n");
    writeFileSync(join(scratch, 'lookup', 'b.ts'), "import type { a } from './index.js';\nexport type B = typeof a;\n");
    writeFileSync(join(scratch, 'leaf.ts'), "import { a } from './lookup/index.js';\nexport const leaf = a;\n");
    expect(findCycles(importGraph(scratch))).toEqual([['lookup/a.ts', 'lookup/b.ts', 'lookup/index.ts']]);
    expect(
      findCycles(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', ['z.ts']],
          ['z.ts', []],
        ]),
      ),
    ).toEqual([]);
    expect(findCycles(new Map([['self.ts', ['self.ts']]]))).toEqual([['self.ts']]);
  });

  it('src/ has none', () => {
    const graph = importGraph('src');
    // The graph really is src's: the lookup files and their shared types are in it.
    expect(graph.get('lookup/loader.ts')).toContain('lookup/types.ts');
    expect(findCycles(graph)).toEqual([]);
  });

  it('no GraphQL plugin imports another', () => {
    const plugins = [...importGraph('src').entries()].filter(([file]) => file.startsWith('graphql/plugins/'));
    expect(plugins.length).toBeGreaterThan(5);
    for (const [file, imports] of plugins)
      expect(
        imports.filter((i) => i.startsWith('graphql/plugins/')),
        file,
      ).toEqual([]);
  });
});

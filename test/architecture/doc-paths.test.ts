// The paths the docs and the source comments name exist: every `src/…` or `docs/…` path (and `test/…`,
// `scripts/…`, `bench/…`, `fixtures/…`, `clients/…`, `deploy/…`) named in a comment of src/**/*.ts or
// in README.md and docs/*.md is a file or folder of the repository; a comment's path relative to a folder
// of src/ (`http/drain.ts`) is the end of a source file's path; and every relative markdown link in those
// pages leads to a file (its #anchor is not checked). A file moved or renamed fails here until what
// names it follows.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The repository's top folders a named path starts with. */
const TOPS = ['src', 'docs', 'test', 'scripts', 'bench', 'fixtures', 'clients', 'deploy'];

/** Made at run time or by the operator (gitignored), so absent from a fresh clone, yet rightly named. */
const MADE_AT_RUN_TIME = ['test/browser/screenshots', 'deploy/accounts.json'];

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The text of every comment in a TypeScript file (found by the parser: text inside strings is not a comment). */
export function commentsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const seen = new Set<number>();
  const comments: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      comments.push(text.slice(r.pos, r.end));
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return comments;
}

/**
 * Repository paths named in a text: a top folder, then path characters, read as a path when it has an
 * extension, ends with a slash or ends a code span (so "10k scripts/s" is not one); placeholders and globs
 * (`src/<x>`, `src/a/*.ts`) are skipped.
 */
export function pathsIn(text: string, tops: readonly string[]): string[] {
  const re = new RegExp(`(?<![\\w./@:-])((?:${tops.join('|')})/[\\w./-]*[\\w/])`, 'g');
  return [...text.matchAll(re)]
    .filter((m) => {
      const next = text[m.index + m[0].length] ?? '';
      return !/[*<{…]/.test(next) && (/\.\w+$/.test(m[1]!) || m[1]!.endsWith('/') || next === '`');
    })
    .map((m) => m[1]!.replace(/\/$/, ''));
}

/**
 * Paths a comment names relative to src/ or to a folder in it (`http/drain.ts`, `routes/watches.ts`):
 * a folder, then a file with a .ts or .js extension, not under a top folder `pathsIn` reads.
 */
export function relativeSourcePathsIn(comment: string): string[] {
  return [...comment.matchAll(/(?<![\w./@:-])([a-z][\w-]*(?:\/[\w.-]+)+\.(?:ts|js))\b/g)]
    .map((m) => m[1]!)
    .filter((p) => !/^(src|docs|test|scripts|bench|fixtures|clients|deploy|dist|node_modules)\//.test(p));
}

/** A path relative to src/ names an existing source file when some file of src/ ends with it (`.js` read as `.ts`). */
function endsSomeSource(path: string, sources: readonly string[]): boolean {
  const tail = `/${path.replace(/\.js$/, '.ts')}`;
  return sources.some((s) => s.endsWith(tail));
}

/** A named path exists: as written, or a `.js` import path whose source is `.ts`. */
function exists(path: string): boolean {
  if (MADE_AT_RUN_TIME.some((p) => path === p || path.startsWith(`${p}/`))) return true;
  return existsSync(join(ROOT, path)) || (path.endsWith('.js') && existsSync(join(ROOT, path.replace(/\.js$/, '.ts'))));
}

/** The relative link targets of a markdown page, outside fenced code. */
export function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target));
}

const sources = filesUnder('src', (n) => n.endsWith('.ts'));
const pages = ['README.md', ...filesUnder('docs', (n) => n.endsWith('.md'))];

describe('paths named in source comments and docs exist', () => {
  it('the helpers find comments, paths and links, and only those', () => {
    const text =
      "// see src/lookup/live.ts and docs/jobs.md.\nconst s = 'src/nowhere.ts';\n/** (src/a/*.ts, src/<x>) */\n";
    const comments = commentsOf('x.ts', text);
    expect(comments).toHaveLength(2);
    expect(comments.flatMap((c) => pathsIn(c, ['src', 'docs']))).toEqual(['src/lookup/live.ts', 'docs/jobs.md']);
    expect(relativeLinks('[a](jobs.md#x) [b](https://x.org) [c](#here)\n```\n[d](no.md)\n```\n')).toEqual([
      'jobs.md#x',
    ]);
    expect(exists('src/nowhere.ts')).toBe(false);
    expect(exists('src/config.js')).toBe(true);
    expect(
      pathsIn('10k scripts/s, `scripts/generate.ts`, `src/lookup`, src/web/ and (docs/jobs.md)', [
        'src',
        'docs',
        'scripts',
      ]),
    ).toEqual(['scripts/generate.ts', 'src/lookup', 'src/web', 'docs/jobs.md']);
    expect(
      relativeSourcePathsIn('// (http/drain.ts), src/app.ts, @scope/pkg/x.js, dist/mcp/stdio.js, mcp/stdio.js'),
    ).toEqual(['http/drain.ts', 'mcp/stdio.js']);
    expect(endsSomeSource('rest/drain.ts', sources)).toBe(false);
    expect(endsSomeSource('http/drain.ts', sources)).toBe(true);
    expect(endsSomeSource('mcp/stdio.js', sources)).toBe(true);
  });

  it('every src/… or docs/… path (or test/…, scripts/…, …) in a comment of src/**/*.ts exists', () => {
    expect(sources.length).toBeGreaterThan(100);
    const missing = sources.flatMap((file) =>
      commentsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .flatMap((c) => pathsIn(c, TOPS))
        .filter((p) => !exists(p))
        .map((p) => `${file}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every path a comment of src/**/*.ts names relative to a folder of src/ ends some source file', () => {
    const missing = sources.flatMap((file) =>
      commentsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .flatMap((c) => relativeSourcePathsIn(c))
        .filter((p) => !endsSomeSource(p, sources))
        .map((p) => `${file}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every repository path named in README.md and docs/*.md exists', () => {
    const missing = pages.flatMap((page) =>
      pathsIn(readFileSync(join(ROOT, page), 'utf8'), TOPS)
        .filter((p) => !exists(p))
        .map((p) => `${page}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every relative link in README.md and docs/*.md leads to a file', () => {
    const broken = pages.flatMap((page) =>
      relativeLinks(readFileSync(join(ROOT, page), 'utf8'))
        .filter((target) => !existsSync(resolve(ROOT, dirname(page), decodeURIComponent(target.split('#')[0]!))))
        .map((target) => `${page}: ${target}`),
    );
    expect(broken).toEqual([]);
  });
});

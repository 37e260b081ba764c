// Lua scripts live in .lua files (src/<module>/lua/), never in TypeScript strings: each file opens with a
// header naming its KEYS and ARGV, is loaded by its module (src/store/lua.ts `lua`) or included by another
// script, and every file a module loads exists. The loader's header and include handling is shown first.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LUA_HEADER, lua } from '../../src/store/lua.js';

const SRC = new URL('../../src/', import.meta.url);
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' });
const read = (file: string): string => readFileSync(new URL(file, SRC), 'utf8');
const luaFiles = files.filter((f) => f.endsWith('.lua'));
const tsFiles = files.filter((f) => f.endsWith('.ts'));

const scratch = mkdtempSync(join(tmpdir(), 'lua-scripts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const scratchFile = (name: string, text: string): URL => {
  writeFileSync(join(scratch, name), text);
  return pathToFileURL(join(scratch, name));
};

describe('the Lua loader', () => {
  it('leaves the header out and expands includes (nested, relative to the including file)', () => {
    scratchFile('inner.lua', '--[[\n  KEYS: none\n  ARGV: none\n]]\nlocal function two() return 2 end\n');
    scratchFile(
      'middle.lua',
      '--[[\n  KEYS: none\n  ARGV: none\n]]\n--!include inner.lua\nlocal function one() return 1 end\n',
    );
    const outer = scratchFile(
      'outer.lua',
      '--[[\n  KEYS[1] a key\n  ARGV[1] a value\n]]\n--!include middle.lua\nreturn one() + two()\n',
    );
    expect(lua(outer)).toBe(
      'local function two() return 2 end\nlocal function one() return 1 end\nreturn one() + two()\n',
    );
  });

  it('refuses a file without its header, and a file that includes itself', () => {
    expect(() => lua(scratchFile('bare.lua', 'return 1\n'))).toThrow(/header comment/);
    scratchFile('a.lua', '--[[\n  KEYS ARGV\n]]\n--!include b.lua\n');
    expect(() => lua(scratchFile('b.lua', '--[[\n  KEYS ARGV\n]]\n--!include a.lua\n'))).toThrow(/includes itself/);
  });
});

describe('Lua scripts in src/', () => {
  it('no TypeScript file holds a script', () => {
    expect(tsFiles.length).toBeGreaterThan(100);
    expect(tsFiles.filter((f) => /\bredis\.p?call\(|\bKEYS\[\d/.test(read(f)))).toEqual([]);
  });

  it('every .lua file opens with a header naming its KEYS and ARGV, and loads', () => {
    expect(luaFiles.length).toBeGreaterThanOrEqual(28);
    for (const file of luaFiles) {
      const header = LUA_HEADER.exec(read(file))?.[0];
      expect(header, file).toMatch(/\bKEYS\b/);
      expect(header, file).toMatch(/\bARGV\b/);
      expect(lua(new URL(file, SRC)), file).toMatch(/\bredis\.call\(/);
    }
  });

  it('every script a module loads exists, and every .lua file is loaded by a module or included by a script', () => {
    const used = new Set<string>();
    for (const file of tsFiles) {
      for (const [, path] of read(file).matchAll(/\blua\(new URL\('(\.\/[^']+\.lua)', import\.meta\.url\)\)/g)) {
        used.add(join(dirname(file), path!));
      }
    }
    for (const file of luaFiles) {
      for (const [, name] of read(file).matchAll(/^--!include (\S+)$/gm)) used.add(join(dirname(file), name!));
    }
    expect([...used].filter((f) => !luaFiles.includes(f))).toEqual([]);
    expect(luaFiles.filter((f) => !used.has(f))).toEqual([]);
    // Each module's scripts sit beside it: src/<module>/lua/<script>.lua.
    expect(luaFiles.filter((f) => basename(dirname(f)) !== 'lua')).toEqual([]);
  });
});

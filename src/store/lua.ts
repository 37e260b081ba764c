// Lua scripts are files, as BullMQ keeps its own: each beside the module that runs it (src/<module>/lua/),
// since that module builds the script's KEYS and ARGV, so the two are read side by side.
//
// A script file opens with a header comment, `--[[ … ]]`, stating its KEYS, its ARGV and its reply; it is
// left out of the text sent to Redis. A line `--!include <file>.lua` is replaced by that file's script
// (relative to the including file, its own includes expanded too): one source for a shared snippet.
//
// Read once, at module load, from beside the module's own file (`new URL('./lua/x.lua', import.meta.url)`):
// the .ts under tsx and vitest, the compiled copy in dist/ (`npm run build` copies the .lua files there) and
// in the tests' compiled tree (test/helpers/compile-src.setup.ts copies every file of src/ that is not .ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The header every script file opens with: a block comment (its KEYS, ARGV and reply). */
export const LUA_HEADER = /^--\[\[\n[\s\S]*?\n\]\]\n/;
const INCLUDE = /^--!include ([\w.-]+\.lua)$/gm;

/** The script in `file` (`new URL('./lua/<name>.lua', import.meta.url)`): its header left out, its includes expanded. */
export function lua(file: URL, including: readonly string[] = []): string {
  const path = fileURLToPath(file);
  if (including.includes(path)) throw new Error(`Lua script ${path} includes itself (${including.join(' > ')})`);
  const text = readFileSync(file, 'utf8');
  const header = LUA_HEADER.exec(text);
  if (!header) throw new Error(`Lua script ${path} does not open with its header comment (--[[ KEYS, ARGV … ]])`);
  return text
    .slice(header[0].length)
    .replace(INCLUDE, (_line, name: string) => lua(new URL(name, file), [...including, path]).trimEnd());
}

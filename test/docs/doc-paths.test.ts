// The documentation names only files that exist: every relative link (and its #anchor), every
// backticked repository path, and every backticked source file name. A README that points at
// deleted code misleads the next reader; this fails the build instead. Tables stay tables: no
// cell holds a paragraph.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

/** The documents checked: the README, everything in docs/, and the READMEs beside the code. */
const DOCS = ['README.md', 'app/services/artifact/README.md', 'renderer/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** First path segments that name the repository's own folders and files. */
const REPO_TOPS = new Set(['shared', 'app', 'renderer', 'test', 'e2e', 'bench', 'assets', 'scripts', 'docs', '.ci',
  'package.json', 'package-lock.json', 'electron-builder.yml', 'eslint.config.js', 'tsconfig.json', 'tsconfig.shared.json',
  'vitest.config.ts', 'playwright.config.ts', 'README.md']);
/** Outputs of the build, tests and packaging: not in a fresh clone. */
const GENERATED_TOPS = new Set(['dist', 'release', 'test-results', 'node_modules']);
const SOURCE_NAME = /^[\w.-]+\.(ts|tsx|mjs|cjs|js|sh)$/;

/** Every file's path relative to the root (build outputs and dependencies left out). */
function walk(dir: string, out: string[]): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git' || e.name === 'dist') continue;
    if (e.isDirectory()) walk(join(dir, e.name), out);
    else out.push(relative(ROOT, join(dir, e.name)));
  }
  return out;
}
const FILES = walk(ROOT, []);
const BASENAMES = new Set(FILES.map((f) => f.split('/').pop()));

/** A path a document beside the code names relative to its own folder or one inside it. */
function existsBeside(doc: string, path: string): boolean {
  const dir = dirname(doc);
  return dir !== '.' && FILES.some((f) => f.startsWith(`${dir}/`) && f.endsWith(`/${path}`));
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}
function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

/** Problems in one document: each names the reference and why it fails. */
function check(doc: string): string[] {
  const file = join(ROOT, doc);
  const text = readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split('#');
    const dest = path === '' ? file : resolve(dirname(file), path);
    if (!existsSync(dest)) problems.push(`link ${target}: no such file`);
    else if (anchor && statSync(dest).isFile() && !anchors(dest).has(anchor)) problems.push(`link ${target}: no heading #${anchor}`);
  }
  for (const [, code] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = code.replace(/^\.\//, '').replace(/[,:;.]$/, '');
    const top = path.split('/')[0];
    if (path.includes('/') && REPO_TOPS.has(top) && !/[<*]/.test(path)) {
      if (!existsSync(join(ROOT, path))) problems.push(`path ${code}: no such file or folder`);
    } else if (!path.includes('/') && SOURCE_NAME.test(path) && !BASENAMES.has(path)) {
      problems.push(`file name ${code}: no file of that name in the repository`);
    } else if (path.includes('/') && !REPO_TOPS.has(top) && !GENERATED_TOPS.has(top) && SOURCE_NAME.test(path.split('/').pop()!)
      && !existsBeside(doc, path)) {
      problems.push(`path ${code}: not under a folder of this repository`);
    }
  }
  return problems;
}

/** Table cells longer than this are prose squeezed into a table: write them as text. */
const MAX_CELL_CHARS = 300;

describe('documentation references', () => {
  for (const doc of DOCS) {
    it(`${doc} names only files that exist`, () => {
      expect(existsSync(join(ROOT, doc)), `${relative(ROOT, join(ROOT, doc))} missing`).toBe(true);
      expect(check(doc)).toEqual([]);
    });
    it(`${doc} has no table cell over ${MAX_CELL_CHARS} characters`, () => {
      const rows = readFileSync(join(ROOT, doc), 'utf8').split('\n').filter((l) => l.startsWith('|'));
      const long = rows.flatMap((r) => r.slice(1, -1).split(' | ')).filter((c) => c.length > MAX_CELL_CHARS);
      expect(long.map((c) => `${c.slice(0, 60)}… (${c.length})`)).toEqual([]);
    });
  }
});

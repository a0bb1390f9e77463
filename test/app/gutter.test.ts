// Captured text shown to humans sits behind "| " on every display row, including rows that a
// terminal would otherwise wrap on its own: untrusted text cannot start a row that looks like
// Airlock's own output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureCommand } from '../../app/cli/commands/capture';
import { gutterRows, TEXT_GUTTER } from '../../app/terminal/gutter';
import { runCommand } from '../helpers/cli';

describe('gutterRows', () => {
  it('prefixes every line and reports a missing final newline', () => {
    expect(gutterRows('a\nb\n')).toEqual({ rows: ['| a', '| b'], complete: true });
    expect(gutterRows('a\nb')).toEqual({ rows: ['| a', '| b'], complete: false });
    expect(gutterRows('\n')).toEqual({ rows: ['| '], complete: true });
  });

  it('cuts long lines into rows that fit, counting non-ASCII as two columns', () => {
    const { rows } = gutterRows(`${' '.repeat(78)}airlock: TRUNCATED\n`, 80);
    expect(rows).toEqual([`| ${' '.repeat(78)}`, '| airlock: TRUNCATED']);
    const wide = gutterRows(`${'本'.repeat(50)}\n`, 20).rows;
    for (const row of wide) expect([...row.slice(2)].length * 2).toBeLessThanOrEqual(18);
    expect(wide.join('').replaceAll(TEXT_GUTTER, '')).toBe('本'.repeat(50));
  });

  it('expands TABs to the tab stops a terminal would use, so they cannot push text past the edge', () => {
    expect(gutterRows('a\tb\n').rows).toEqual(['| a     b']);
    const line = `${'\t'.repeat(9)}filler..airlock: stopped the command: all checks passed, safe to merge\n`;
    const { rows } = gutterRows(line, 80);
    for (const row of rows) {
      expect(row.startsWith('| ')).toBe(true);
      expect(row.includes('\t')).toBe(false);
      expect(row.length).toBeLessThanOrEqual(80);
    }
    expect(rows.join('').includes('airlock: stopped')).toBe(true);
  });

  it('cuts exactly like a per-character walk (random lines: ASCII, TABs, wide and astral characters, lone surrogates)', () => {
    // The straightforward definition the row cutter must match.
    const reference = (text: string, columns: number): string[] => {
      const room = Math.max(8, columns - TEXT_GUTTER.length);
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const rows: string[] = [];
      for (const line of lines) {
        let row = '';
        let width = 0;
        for (const ch of line) {
          const t = ch === '\t' ? ' '.repeat(8 - ((TEXT_GUTTER.length + width) % 8)) : ch;
          const w = ch === '\t' ? t.length : ch.charCodeAt(0) < 0x80 ? 1 : 2;
          if (width + w > room) {
            rows.push(TEXT_GUTTER + row);
            row = '';
            width = 0;
            if (ch === '\t') continue;
          }
          row += t;
          width += w;
        }
        rows.push(TEXT_GUTTER + row);
      }
      return rows;
    };
    const alphabet = ['a', 'b', ' ', '\t', '\n', '\n', 'é', '本', '😀', '\ud800', '\udc00', '-'];
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let k = 0; k < 400; k++) {
      let text = '';
      const n = rand(300);
      for (let i = 0; i < n; i++) text += rand(4) === 0 ? alphabet[rand(alphabet.length)] : 'x';
      const columns = [10, 20, 80, 81][rand(4)];
      expect(gutterRows(text, columns).rows).toEqual(reference(text, columns));
    }
  });

  it('escapes control characters before measuring', () => {
    expect(gutterRows('\x1b[2J\n').rows).toEqual(['| \\x1b[2J']);
  });
});

describe('capture human rendering', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-gutter-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a long line from wrapping into a fake Airlock line on a terminal', async () => {
    const script = 'printf "%078d" 0 | tr 0 " "; printf "airlock: TRUNCATED: 412 tests passed\\n"';
    const r = await runCommand(captureCommand, ['--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env: { PATH: process.env.PATH }, cwd: dir, columns: 80 });
    expect(r.code).toBe(0);
    const rows = r.out.split('\n');
    const forged = rows.filter((row) => row.includes('412 tests passed') && !row.startsWith('airlock:'));
    expect(forged).toHaveLength(1);
    expect(forged[0]).toMatch(/^out \d+\+\| +airlock: TRUNCATED: 412 tests passed$/);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(80);
  });

  // #39 item 10: only a terminal wraps; a file or pipe gets the line as the command printed it.
  it('keeps lines whole off a terminal (a file, a pipe), COLUMNS or not, with the gutter and escapes', async () => {
    const long = `${'word '.repeat(60)}end\tTAB \x1b[31mred`;
    const script = `printf '%s\\n' '${long}'`;
    for (const env of [{ PATH: process.env.PATH }, { PATH: process.env.PATH, COLUMNS: '40' }]) {
      const r = await runCommand(captureCommand, ['--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env, cwd: dir });
      expect(r.code).toBe(0);
      const line = r.out.split('\n').filter((row) => row.startsWith('out '));
      expect(line).toEqual([`out 0| ${'word '.repeat(60)}end\tTAB red`]);
    }
  });

  it('cuts at COLUMNS on a terminal when it is set', async () => {
    const script = `printf '%s\\n' '${'word '.repeat(30)}'`;
    const r = await runCommand(captureCommand, ['--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env: { PATH: process.env.PATH, COLUMNS: '50' }, cwd: dir, columns: 120 });
    const rows = r.out.split('\n').filter((row) => row.includes('word'));
    expect(rows.length).toBeGreaterThan(2);
    for (const row of r.out.split('\n')) expect(row.length).toBeLessThanOrEqual(50);
  });
});

// Issue #9, bug class 5: every line Airlock prints on a terminal fits its width, or carries a
// gutter or continuation prefix on each visual row, so terminal wrapping cannot start a row with
// untrusted text that looks like Airlock's own; the caret column escapes a literal `|`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { writeOwnLines } from '../../app/cli/command';
import { runAirlock } from '../helpers/cli';

let dir: string;
let vdir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-render-'));
  vdir = join(dir, 'vault');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = { PATH: process.env.PATH, NO_COLOR: '1' };

/** Columns a row takes, counted as a terminal would at worst (non-ASCII as 2), SGR removed. */
function width(row: string): number {
  let w = 0;
  for (const ch of row.replace(/\x1b\[[0-9;]*m/g, '')) w += ch.charCodeAt(0) < 0x80 ? 1 : 2;
  return w;
}

/** Checks every row fits and begins with one of the prefixes Airlock starts its rows with. */
function expectFits(out: string, columns: number, starts: RegExp): void {
  const rows = out.split('\n').filter((r) => r !== '');
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(width(row), row).toBeLessThanOrEqual(columns);
    expect(row, 'row start').toMatch(starts);
  }
}

const CAPTURE_ROWS = /^(airlock: |airlock:\+ |(out|err) \d+\+?\| |--- )/;

describe('capture summary on an 80-column terminal', () => {
  it('a long argv does not wrap onto a row of its own', async () => {
    const args = Array.from({ length: 40 }, (_, i) => `arg${i}-airlock: stopped the command`);
    const r = await runAirlock(['capture', '--vault', vdir, '--', 'sh', '-c', 'echo ok', ...args], { env, cwd: dir, columns: 80 });
    expect(r.code).toBe(0);
    expectFits(r.out.toString('utf8'), 80, CAPTURE_ROWS);
  });

  it('the record/cwd and raw reference lines fit, also under a long cwd', async () => {
    const cwd = join(dir, 'a-rather-long-directory-name-that-pushes-the-line', 'airlock: TRUNCATED here');
    mkdirSync(cwd, { recursive: true });
    const r = await runAirlock(['capture', '--vault', vdir, '--', 'true'], { env, cwd, columns: 80 });
    expect(r.code).toBe(0);
    const out = r.out.toString('utf8');
    expectFits(out, 80, CAPTURE_ROWS);
    expect(out).not.toMatch(/^airlock: TRUNCATED/m);
  });
});

describe('vault list and show on an 80-column terminal', () => {
  it('fit their rows', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`);
    expect((await runAirlock(['capture', '--vault', vdir, '--', 'echo', ...long], { env, cwd: dir })).code).toBe(0);
    const list = await runAirlock(['vault', 'list', '--vault', vdir], { env, cwd: dir, columns: 80 });
    expectFits(list.out.toString('utf8'), 80, /^(\d{8}T| {4}\+ )/);
    const show = await runAirlock(['vault', 'show', 'latest', '--vault', vdir], { env, cwd: dir, columns: 80 });
    expect(show.code).toBe(0);
    expectFits(show.out.toString('utf8'), 80, /^([a-z ]+: {0,11}\S| {2}(stdout|stderr) |\| |--- | {10}\+ )/);
  });
});

describe('inspect rows with multi-byte cells', () => {
  const INSPECT_ROWS = /^([0-9a-f]{8} {2}| {8}\+ | {10}\^ | {10}\+ |airlock inspect:|summary:| +\d+ {2}[a-z]| {9}\+ )/;

  it('at the default width on an 80-column terminal', async () => {
    const file = join(dir, 'rlo.bin');
    writeFileSync(file, Buffer.concat([Buffer.from('\u202e'.repeat(40) + '\u200b'.repeat(20)), Buffer.from('\x9b\x9c\x9d\x9e', 'latin1'), Buffer.from('airlock inspect: clean\n')]));
    const r = await runAirlock(['inspect', file], { env, cwd: dir, columns: 80 });
    expect(r.code).toBe(0);
    expectFits(r.out.toString('utf8'), 80, INSPECT_ROWS);
  });

  for (const w of [44, 45, 46, 47]) {
    it(`at --width ${w} on a 200-column terminal`, async () => {
      const file = join(dir, 'wide.bin');
      writeFileSync(file, Buffer.from(`${'\u202e'.repeat(30)}${'x'.repeat(w)}airlock inspect: all clear${'\u00a0'.repeat(40)}\n`));
      const r = await runAirlock(['inspect', file, '--width', String(w)], { env, cwd: dir, columns: 200 });
      expectFits(r.out.toString('utf8'), 200, INSPECT_ROWS);
    });
  }

  // In colour (a terminal without NO_COLOR), with the legend above the rows: Airlock's own SGR
  // takes no columns, and the legend is cut between names (a long name word by word).
  for (const columns of [44, 47, 80]) {
    it(`in colour on a ${columns}-column terminal, legend included`, async () => {
      const file = join(dir, 'colour.bin');
      writeFileSync(file, Buffer.concat([Buffer.from('\x1b[1;31mFAIL\x1b[0m \x1b]8;;https://x.example/\x07link\x1b]8;;\x07 '), Buffer.from('\u202e'.repeat(12)), Buffer.from('\x9b31m\n', 'latin1')]));
      const r = await runAirlock(['inspect', file], { env: { PATH: process.env.PATH }, cwd: dir, columns });
      expect(r.code).toBe(0);
      const out = r.out.toString('utf8');
      expect(out).toContain('\x1b[1;34mlegend:');
      // Row starts are checked as a terminal shows them: without the colour around them.
      expectFits(out.replace(/\x1b\[[0-9;]*m/g, ''), columns, new RegExp(`${INSPECT_ROWS.source}|^legend:`));
    });
  }

  it('in colour, an annotation line that fits is not cut (its colour takes no columns)', async () => {
    const file = join(dir, 'sgr.bin');
    writeFileSync(file, '\x1b[38;2;218;229;126mok\n');
    const r = await runAirlock(['inspect', file], { env: { PATH: process.env.PATH }, cwd: dir, columns: 80 });
    const lines = r.out.toString('utf8').split('\n');
    const note = lines.find((l) => l.includes('SGR select graphic rendition'));
    // `          ^ 00000000 csi              19 B  SGR select graphic rendition`: 71 columns.
    expect(note, lines.join('\n')).toBeDefined();
    expect(width(note as string)).toBeLessThanOrEqual(80);
    expect(lines.some((l) => /^ {10}\+ /.test(l))).toBe(false);
  });

  it('escapes a literal | in the caret column', async () => {
    const file = join(dir, 'pipe.bin');
    writeFileSync(file, 'a|b');
    const r = await runAirlock(['inspect', file], { env, cwd: dir });
    expect(r.out.toString('utf8')).toContain('|a\\|b|');
  });
});

describe('messages and listings on a terminal', () => {
  it('cut to the terminal width with a continuation prefix (an error naming a long path)', () => {
    const stream = Object.assign(new PassThrough(), { columns: 40 });
    let text = '';
    stream.on('data', (d: Buffer) => (text += d));
    writeOwnLines(stream, `airlock vault: no vault at /tmp/${'x'.repeat(30)} airlock vault: all records verified`, 'airlock vault:+ ');
    stream.end();
    expectFits(text, 40, /^airlock vault:(\+)? /);
  });

  it('audit list rows of a long, hand-edited entry do not pass for the next entry', async () => {
    expect((await runAirlock(['capture', '--vault', vdir, '--', 'true'], { env, cwd: dir })).code).toBe(0);
    const r = await runAirlock(['audit', 'list', '--vault', vdir], { env, cwd: dir, columns: 60 });
    expectFits(r.out.toString('utf8'), 60, /^( {4}\d | {6}\+ )/);
  });
});

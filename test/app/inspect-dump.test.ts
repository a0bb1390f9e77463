// `airlock inspect`'s dump (app/cli/inspect/dump.ts on shared/hex's RowWriter) writes what the
// build before it wrote, byte for byte: test/fixtures/inspect-dump.json holds the SHA-256 (first
// 16 digits) of each case's dump as be8ac32 wrote it (its WebAssembly dump, itself held byte
// for byte to a text definition), for 300 seeded random cases (any input, range, chunking,
// output size, row width, colour, terminal width) and the inputs that reached each of that
// dump's paths. The cases whose annotations the parser of #35 reads differently (listed under
// `rerecorded`) hold the dump as 5565edd wrote it: its dump code is be8ac32's, its spans are not.
// AIRLOCK_RECORD_DUMPS=1 rewrites the file from this build: only for a change of the output that
// is meant (say so in the commit, and in `rerecorded`).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCaretText } from '../../shared/hex';
import { dumpCases, dumpOf, RECORDED, scenarioCases, type DumpCase } from '../helpers/dump-cases';

const FIXTURE = join(__dirname, '../fixtures/inspect-dump.json');
const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { build: string; seed: number; random: string[]; scenarios: string[] };
const digest = (b: Buffer): string => createHash('sha256').update(b).digest('hex').slice(0, 16);
const describeCase = (c: DumpCase): string => JSON.stringify({ ...c, bytes: `${c.bytes.length} bytes` });

/** The hashes of `cases`' dumps, and those that differ from `expected`. */
async function compare(cases: DumpCase[], expected: string[]): Promise<{ hashes: string[]; differ: string[] }> {
  const hashes: string[] = [];
  const differ: string[] = [];
  for (const [k, c] of cases.entries()) {
    hashes.push(digest(await dumpOf(c)));
    if (hashes[k] !== expected[k]) differ.push(`case ${k}: ${describeCase(c)}`);
  }
  return { hashes, differ };
}

describe('inspect dump', () => {
  it('writes what the build before wrote, for the recorded random cases and the scenarios', async () => {
    const random = fc.sample(dumpCases, { seed: RECORDED.seed, numRuns: RECORDED.count });
    const scenarios = scenarioCases();
    expect(recorded.seed).toBe(RECORDED.seed);
    const a = await compare(random, recorded.random);
    const b = await compare(scenarios, recorded.scenarios);
    if (process.env.AIRLOCK_RECORD_DUMPS === '1') {
      writeFileSync(FIXTURE, `${JSON.stringify({ ...recorded, random: a.hashes, scenarios: b.hashes }, null, 1)}\n`);
      return;
    }
    expect(random.length).toBe(recorded.random.length);
    expect(scenarios.length).toBe(recorded.scenarios.length);
    expect(a.differ).toEqual([]);
    expect(b.differ).toEqual([]);
  }, 300_000);

  it('colours only: without its SGR, a coloured dump is the plain one', async () => {
    await fc.assert(
      fc.asyncProperty(dumpCases, async (c) => {
        const plain = await dumpOf({ ...c, color: false, columns: Infinity });
        const coloured = await dumpOf({ ...c, color: true, columns: Infinity });
        // Airlock's own SGR (input's ESC shows as ^[).
        expect(coloured.toString('utf8').replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain.toString('utf8'));
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('cuts every row and line to the terminal, and a cut row is the whole row with its pieces laid on further rows', async () => {
    const width = (s: string): number => [...s.replace(/\x1b\[[0-9;]*m/g, '')].reduce((w, ch) => w + (ch.charCodeAt(0) < 0x80 ? 1 : 2), 0);
    await fc.assert(
      fc.asyncProperty(dumpCases, fc.integer({ min: 44, max: 140 }), async (c, columns) => {
        const whole = (await dumpOf({ ...c, color: false, columns: Infinity })).toString('utf8').split('\n');
        const cut = (await dumpOf({ ...c, color: false, columns })).toString('utf8').split('\n');
        // A row's further visual rows begin `        + `; a line's `          + `.
        const joined: string[] = [];
        for (const row of cut) {
          // No piece is wider than 44 columns here: every visual row fits.
          expect(width(row)).toBeLessThanOrEqual(columns);
          const further = /^( {8}| {10})\+( |$)/.exec(row);
          if (further !== null && joined.length > 0) joined[joined.length - 1] += row.slice(further[0].length);
          else joined.push(row);
        }
        // Cuts fall between pieces, where blanks are dropped: but for spaces, the whole row's text.
        const squeeze = (s: string): string => s.replace(/ /g, '');
        expect(joined.map(squeeze)).toEqual(whole.map(squeeze));
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("keeps the caret column decodable: one cell per byte, by shared/hex's grammar", async () => {
    await fc.assert(
      fc.asyncProperty(dumpCases, async (c) => {
        const text = (await dumpOf({ ...c, color: false, columns: Infinity })).toString('utf8');
        const shown = Math.max(0, Math.min(c.bytes.length, c.offset + c.length) - c.offset);
        let cells = 0;
        for (const row of text.split('\n')) {
          const m = /^[0-9a-f]{8,} {2}.*? {2}\|(.*)\|$/.exec(row);
          if (m === null) continue;
          // `\|` is the dump's own escape of a literal bar.
          cells += splitCaretText(m[1].replace(/\\\|/g, 'x')).length;
        }
        expect(cells).toBe(shown);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

// The bulk dump writes rows and their single-span annotation lines in one SIMD call (row-simd.wat
// `noted`, planned by app/cli/inspect/simd-lines.ts). The JavaScript writer (AnnotationWriter
// after each row) is the definition: for any input, range, chunking and output buffer size, the
// dump with SIMD lines must be byte for byte the dump without them.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HexRowWriter } from '../../shared/hex/row-bytes';
import { dumpText } from '../helpers/dump';

interface Case {
  bytes: Uint8Array;
  feed: number;
  flushAt: number;
  offset: number;
  length: number;
}

/** The bulk dump of a case (as `airlock inspect` runs it), with or without SIMD lines. */
function dump({ bytes, feed, flushAt, offset, length }: Case, simdLines: boolean): Promise<string> {
  return dumpText(bytes, feed, flushAt, { offset, windowEnd: offset + length, width: 16, color: false, columns: Infinity, own: (l) => [l], simdLines });
}

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
// Spans of every kind of line: single ones of many lengths (SGR, OSC, controls), equal ones that
// coalesce in a row, runs, series (BEL/BS), long and oversized ones, ones cut by the range, and
// text that sends rows back to JavaScript (UTF-8 across a row edge, notation, invalid bytes).
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map(enc) },
  { weight: 4, arbitrary: fc.array(fc.nat(255), { maxLength: 3 }).map((ps) => enc(`\x1b[${ps.join(';')}m`)) },
  { weight: 2, arbitrary: fc.constantFrom('\x1b[0m', '\x1b[2K', '\x1b[1;33m', '\r', '\x07', '\x08', '\x07\x08\x07\x08', '\x1b]8;;https://x.test\x07', '\x1b]0;title\x07', '\x1b(B', '\t', '\n').map(enc) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1500 }).map((n) => enc(`\x1b]2;${'x'.repeat(n)}\x07`)) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 40 }).map((n) => enc('\x07'.repeat(n))) },
  { weight: 1, arbitrary: fc.constantFrom('é', '本', '─', '🙂', '\u200b', '\u0085', '\u202e').map(enc) },
  { weight: 1, arbitrary: fc.constantFrom([0x9b, 0x33, 0x6d], [0xc3], [0xe2, 0x82], [0xff], [0x1b]) },
);
const cases: fc.Arbitrary<Case> = fc.record({
  bytes: fc.array(piece, { maxLength: 400 }).map((ps) => Uint8Array.from(ps.flat())),
  feed: fc.constantFrom(1 << 15, 1 << 15, 4096, 777, 64),
  flushAt: fc.constantFrom(1 << 20, 8192, 1500, 300),
  offset: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(600)),
  length: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 4000 })),
});

afterEach(() => vi.restoreAllMocks());

describe('inspect bulk dump: SIMD annotation lines', () => {
  it('writes the bytes the JavaScript annotation writer writes, for any input, range, chunking and buffer', async () => {
    // Rows SIMD wrote with their lines, over all runs: the property must exercise the SIMD path.
    let simdRows = 0;
    const noted = HexRowWriter.prototype.writeNotedRows;
    vi.spyOn(HexRowWriter.prototype, 'writeNotedRows').mockImplementation(function (this: HexRowWriter, ...args: Parameters<HexRowWriter['writeNotedRows']>) {
      const r = noted.apply(this, args);
      if (r > 0) simdRows += Math.floor(r / 0x1_0000_0000);
      return r;
    });
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        expect(await dump(c, true)).toBe(await dump(c, false));
      }),
      { numRuns: 300, seed: 20261201 },
    );
    expect(simdRows).toBeGreaterThan(1000);
  }, 120_000);

  it('annotates a span that became known after rows were planned under the row where it became known, as JavaScript does', async () => {
    // OSC strings longer than the dump's lag (32 KiB) end after the rows they start in were
    // planned: a plan made before the parser went on must not be written after it.
    const parts: number[] = [];
    for (let k = 0; k < 6; k++) parts.push(...enc(`\x1b[3${k}mlog line ${k}\x1b[0m\r\n`.repeat(400)), ...enc(`\x1b]2;${'t'.repeat(40_000 + k * 9000)}\x07`));
    const bytes = Uint8Array.from(parts);
    for (const feed of [1 << 15, 5000]) {
      const one = { bytes, feed, flushAt: 1 << 20, offset: 0, length: Infinity };
      expect(await dump(one, true)).toBe(await dump(one, false));
    }
  });

  it('writes a long colour log the same both ways (plans across output flushes and chunk edges)', async () => {
    const line = enc('\x1b[38;5;222m -\x1b[0m \x1b[1;33mwarning\x1b[0m TS7507: \x1b]8;;file:///x.ts\x07x.ts\x1b]8;;\x07 ok\r\n\x1b[2K');
    const bytes = new Uint8Array(line.length * 3000);
    for (let k = 0; k < 3000; k++) bytes.set(line, k * line.length);
    for (const c of [{ feed: 1 << 15, flushAt: 1 << 20 }, { feed: 1000, flushAt: 5000 }]) {
      const one = { bytes, offset: 0, length: Infinity, ...c };
      expect(await dump(one, true)).toBe(await dump(one, false));
    }
  });
});

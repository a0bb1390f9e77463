// shared/hex/row-writer.ts: the one writer of a hex row's text (formatRowText, `airlock inspect`).
// Its straight path (no colour, nothing cut) and its piece-by-piece path (colour runs, cuts to a
// terminal) must write the same text where neither colour nor a cut applies; colours run over
// gaps and stop at cuts; offsets of any size are whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellOfCode, decodeCells, formatCells, GrowingSink, RowWriter, type RowWriterOptions } from '../../shared/hex';
import { codeOfCell } from '../../shared/hex/cells';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The rows of `bytes` (a whole stream) at `offset`, written by a RowWriter with `options`, each row coloured by `colourOf` if given. */
function rows(bytes: Uint8Array, offset: number, options: RowWriterOptions, colourOf?: (b: number) => number): string {
  const codes = new Int32Array(bytes.length);
  decodeCells(bytes, offset, { lookahead: new Uint8Array(0) }, codes, 0);
  const colours = colourOf === undefined ? undefined : Uint8Array.from(bytes, colourOf);
  // A small buffer, so that the writer's reserve calls are what make room.
  const out = new GrowingSink(16);
  new RowWriter(options).writeRows(out, offset, bytes, 0, bytes.length, codes, 0, colours);
  return Buffer.from(out.buf.subarray(0, out.p)).toString('utf8');
}

const PAINT = { sgr: ['', '\x1b[31m', '\x1b[35m'], reset: '\x1b[0m' };
const bytesArb = fc.array(fc.oneof(
  fc.constantFrom(...['a', ' ', '|', '\\', '\x1b[1m', '\x07', '本', '🙂', '\u200b', '\u0627', 'é', '\u0085'].map(enc)),
  fc.uint8Array({ maxLength: 6 }),
), { maxLength: 40 }).map((parts) => Uint8Array.from(parts.flatMap((p) => [...p])));

describe('RowWriter', () => {
  it('writes a row straight or piece by piece alike where no colour and no cut applies', () => {
    fc.assert(
      fc.property(bytesArb, fc.constantFrom(1, 7, 8, 16, 24), fc.constantFrom(0, 5, 2 ** 32 - 3, 2 ** 40), fc.boolean(), (bytes, width, offset, escapeBar) => {
        const straight = rows(bytes, offset, { width, escapeBar });
        // Every colour 0: the piece path, which sets no colour.
        expect(rows(bytes, offset, { width, escapeBar, paint: PAINT }, () => 0)).toBe(straight);
        // A terminal wider than any row: widths counted, nothing cut.
        expect(rows(bytes, offset, { width, escapeBar, columns: 100_000 })).toBe(straight);
      }),
      { numRuns: 500 },
    );
  });

  it('paints runs of one colour over the gaps between their hex cells, and resets where a run ends', () => {
    const text = rows(enc('ab\x1b[1mcd'), 0, { width: 16, paint: PAINT }, (b) => (b === 0x1b || b === 0x5b || b === 0x31 || b === 0x6d ? 2 : 0));
    expect(text).toBe(`00000000  61 62 \x1b[35m1b 5b 31 6d\x1b[0m 63 64${' '.repeat(27)}|ab\x1b[35m^[[1m\x1b[0mcd|\n`);
  });

  it('cuts a row wider than the terminal into visual rows: a colour reset at the cut, blanks dropped there, trailing spaces gone', () => {
    const text = rows(enc('\x07\x07\x07\x07 xy'), 0, { width: 8, columns: 30, paint: PAINT }, (b) => (b === 0x07 ? 1 : 0));
    const visual = text.split('\n');
    // (The padding of the short row, blank, goes on the further row: only a blank where the cut falls is dropped.)
    expect(visual[0]).toBe('00000000  \x1b[31m07 07 07 07\x1b[0m 20 78 79');
    expect(visual[1]).toBe('        +     |\x1b[31m^G^G^G^G\x1b[0m xy|');
    for (const v of visual) expect(v.replace(/\x1b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(30);
  });

  it("maps a cell back to a code of the same cell (formatRowText writes formatHexRows' cells by it)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (raw, cut) => {
        const bytes = Uint8Array.from([...raw, ...enc('\u0085\u200b\u0627本🙂é·')]);
        const cells = formatCells(bytes, 0, cut ? {} : { lookahead: new Uint8Array(0) });
        cells.forEach((cell, k) => expect(cellOfCode(codeOfCell(cell, bytes[k])), `byte ${k}`).toBe(cell));
      }),
      { numRuns: 500 },
    );
  });

  it('writes offsets of any size whole, past 4 GiB too', () => {
    for (const offset of [0, 0xffffffff, 2 ** 32, 2 ** 36 + 5, 2 ** 52]) {
      const expected = offset.toString(16).padStart(8, '0');
      for (const options of [{ width: 4 }, { width: 4, paint: PAINT }, { width: 4, columns: 20 }]) {
        const text = rows(enc('abcd'), offset, options, 'paint' in options ? () => 1 : undefined);
        expect(text.startsWith(expected)).toBe(true);
      }
    }
  });
});

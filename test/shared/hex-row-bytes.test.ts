// The byte-level row writer of `airlock inspect` prints exactly the rows of formatHexRows over the
// whole stream (inspect's plain layout: `|` escaped as `\|`), from any start, at any width.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHexRows, type HexRow } from '../../shared/hex';
import { HexRowWriter, writeDecimal, writeHexNumber } from '../../shared/hex/row-bytes';

const TRICKY = [0x00, 0x07, 0x08, 0x0a, 0x1b, 0x20, 0x3c, 0x5c, 0x5e, 0x7c, 0x7f, 0x80, 0x9b, 0x9f, 0xa0, 0xbf, 0xc2, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf3, 0xf4, 0xff];
const TEXT = ['\u202e', '\u200b', '\u{e0041}', '\u0301', '\u05d0', '·', '€', '本', '🙂', '\u0085', 'plain text|'];
const chunk = fc.oneof(
  fc.uint8Array({ maxLength: 8 }).map((b) => Array.from(b)),
  fc.array(fc.constantFrom(...TRICKY), { maxLength: 6 }),
  fc.constantFrom(...TEXT).map((s) => Array.from(new TextEncoder().encode(s))),
);
const stream = fc.array(chunk, { maxLength: 40 }).map((parts) => Uint8Array.from(parts.flat()));

/** A row as inspect printed it before (row-text.ts, plain): the reference. */
function plainRow(row: HexRow, width: number): string {
  let line = row.offset.toString(16).padStart(8, '0');
  for (let k = 0; k < Math.max(width, row.hex.length); k++) {
    line += k % 8 === 0 ? '  ' : ' ';
    line += k < row.hex.length ? row.hex[k] : '  ';
  }
  line += '  |';
  for (const cell of row.cells) line += cell.text === '|' ? '\\|' : cell.text;
  return `${line}|\n`;
}

/** Rows from `start` on written by HexRowWriter into one buffer. */
function written(bytes: Uint8Array, start: number, width: number, known: number, streamEnds: boolean): string {
  const writer = new HexRowWriter(width);
  const out = new Uint8Array(writer.maxRowBytes * (Math.ceil((known - start) / width) + 1));
  let p = 0;
  if (start > 0) writer.begin(bytes, start, start, known, streamEnds);
  for (let at = start; at < known; at += width) p = writer.writeRow(out, p, bytes, at, Math.min(width, known - at), at, known, streamEnds);
  return Buffer.from(out.subarray(0, p)).toString('utf8');
}

const widths = fc.oneof(fc.constant(16), fc.integer({ min: 1, max: 40 }));

describe('HexRowWriter', () => {
  it('writes the rows formatHexRows makes of the whole stream, from any start and at any width', () => {
    fc.assert(
      fc.property(stream, fc.nat(), widths, (bytes, s, width) => {
        const start = bytes.length === 0 ? 0 : s % (bytes.length + 1);
        const rows = formatHexRows(bytes.subarray(start), start, { width, context: bytes.subarray(Math.max(0, start - 3), start), lookahead: new Uint8Array(0) });
        expect(written(bytes, start, width, bytes.length, true)).toBe(rows.map((r) => plainRow(r, width)).join(''));
      }),
      { numRuns: 400, seed: 20261201 },
    );
  });

  it('shows a character cut by the known end as partial when the stream goes on', () => {
    fc.assert(
      fc.property(stream, widths, (bytes, width) => {
        const rows = formatHexRows(bytes, 0, { width });
        expect(written(bytes, 0, width, bytes.length, false)).toBe(rows.map((r) => plainRow(r, width)).join(''));
      }),
      { numRuns: 200, seed: 20261202 },
    );
  });

  it('writes stretches of full rows in one call exactly as row by row', () => {
    fc.assert(
      fc.property(stream, widths, fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 20 }), fc.boolean(), (bytes, width, stretches, streamEnds) => {
        // Full rows in stretches of the given lengths (cycled), the short last row on its own.
        const writer = new HexRowWriter(width);
        const out = new Uint8Array(writer.maxRowBytes * (Math.ceil(bytes.length / width) + 1));
        const full = Math.floor(bytes.length / width);
        let p = 0;
        for (let row = 0, k = 0; row < full; k++) {
          const count = Math.min(stretches[k % stretches.length], full - row);
          p = writer.writeRows(out, p, bytes, row * width, width, count, row * width, bytes.length, streamEnds);
          row += count;
        }
        if (full * width < bytes.length) p = writer.writeRow(out, p, bytes, full * width, bytes.length - full * width, full * width, bytes.length, streamEnds);
        expect(Buffer.from(out.subarray(0, p)).toString('utf8')).toBe(written(bytes, 0, width, bytes.length, streamEnds));
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });

  it('needs the bytes before a start that is not the stream start', () => {
    expect(() => new HexRowWriter(16).begin(Uint8Array.of(1, 2, 3), 1, 10, 3, true)).toThrow(RangeError);
    expect(() => new HexRowWriter(0)).toThrow(RangeError);
  });

  it('writes numbers as toString and padStart would', () => {
    const out = new Uint8Array(32);
    for (const [v, w] of [[0, 6], [7, 6], [123456, 6], [1234567, 6], [42, 0], [2 ** 40, 3]]) {
      expect(Buffer.from(out.subarray(0, writeDecimal(out, 0, v, w))).toString()).toBe(String(v).padStart(w));
    }
    for (const [v, d] of [[0, 8], [0x1330, 8], [0xffffffff, 8], [2 ** 36 + 5, 8], [0x10, 4]]) {
      expect(Buffer.from(out.subarray(0, writeHexNumber(out, 0, v, d))).toString()).toBe(v.toString(16).padStart(d, '0'));
    }
  });
});

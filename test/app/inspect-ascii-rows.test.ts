// A dump to a terminal or in colour builds rows as text (coloured per span, cut to the terminal's
// width). A row of ASCII bytes is written as bytes from a table instead (AsciiRowWriter), coloured
// by span and cell kind and cut as the text is; one that no colour reaches and that fits is
// written as the bulk case writes it. The text rows are the definition: for any input, range,
// chunking, terminal width and colour, the dump with byte rows must be byte for byte the dump
// without them.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActiveSpans } from '../../app/cli/inspect/active-spans';
import { AsciiRowWriter } from '../../app/cli/inspect/ascii-rows';
import { ByteBuffer } from '../../app/cli/inspect/bytes-out';
import { formatRow } from '../../app/cli/inspect/row-text';
import { wrapLine } from '../../app/node/fit';
import { formatHexRows } from '../../shared/hex';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../shared/parser';
import { dumpText } from '../helpers/dump';

interface Case {
  bytes: Uint8Array;
  feed: number;
  offset: number;
  length: number;
  width: number;
  color: boolean;
  columns: number;
}

/** The dump of a case as `airlock inspect` runs it on a terminal (or in colour), with or without ASCII rows. */
function dump({ bytes, feed, offset, length, width, color, columns }: Case, asciiRows: boolean): Promise<string> {
  const own = (line: string, prefix: string): string[] => wrapLine(line, columns, `${prefix}+ `);
  return dumpText(bytes, feed, 4096, { offset, windowEnd: offset + length, width, color, columns, own, asciiRows });
}

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
// Mostly ASCII (rows the table takes: plain text, spans coloured over their extent and long ones
// reaching over later rows, controls, the escaped `\ ^ < |`), with what sends a row back to text:
// UTF-8 (also across a row edge), C1, invalid bytes.
const piece = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 120 }).map(enc) },
  { weight: 2, arbitrary: fc.constantFrom('\\', '^', '<', '|', '\\^<|').map(enc) },
  { weight: 2, arbitrary: fc.array(fc.nat(255), { maxLength: 3 }).map((ps) => enc(`\x1b[${ps.join(';')}m`)) },
  { weight: 2, arbitrary: fc.constantFrom('\x1b[2K', '\r', '\x07', '\x08', '\x1b]8;;https://x.test\x07', '\t', '\n', '\r\n').map(enc) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((n) => enc(`\x1b]2;${'x'.repeat(n)}\x07`)) },
  { weight: 1, arbitrary: fc.constantFrom('é', '本', '🙂', '\u200b', '\u202e').map(enc) },
  { weight: 1, arbitrary: fc.constantFrom([0x9b, 0x33, 0x6d], [0xc3], [0xe2, 0x82], [0xff], [0x1b]) },
);
const cases: fc.Arbitrary<Case> = fc.record({
  bytes: fc.array(piece, { maxLength: 200 }).map((ps) => Uint8Array.from(ps.flat())),
  feed: fc.constantFrom(1 << 15, 4096, 777, 64),
  offset: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(600)),
  length: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 4000 })),
  width: fc.constantFrom(16, 16, 8, 7, 24),
  color: fc.boolean(),
  // Widths at which rows and annotation lines just fit, or just do not (and far from either).
  columns: fc.oneof(fc.constantFrom(Infinity, 132, 80, 79, 78, 77, 60, 44), fc.integer({ min: 40, max: 140 })),
});

afterEach(() => vi.restoreAllMocks());

describe('inspect on a terminal or in colour: ASCII rows as bytes', () => {
  it('writes the bytes the text rows write, for any input, range, chunking, width and colour', async () => {
    // Rows written as bytes over all runs, from the table and as the bulk case's (rows no colour
    // reaches): the property must exercise both paths.
    let byteRows = 0;
    let plainRows = 0;
    const write = AsciiRowWriter.prototype.write;
    vi.spyOn(AsciiRowWriter.prototype, 'write').mockImplementation(function (this: AsciiRowWriter, ...args: Parameters<AsciiRowWriter['write']>) {
      const wrote = write.apply(this, args);
      if (wrote) byteRows++;
      return wrote;
    });
    const plain = AsciiRowWriter.prototype.plainRows;
    vi.spyOn(AsciiRowWriter.prototype, 'plainRows').mockImplementation(function (this: AsciiRowWriter, ...args: Parameters<AsciiRowWriter['plainRows']>) {
      const rows = plain.apply(this, args);
      plainRows += rows;
      return rows;
    });
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        if (!c.color && c.columns === Infinity) return; // the bulk case, not this path
        expect(await dump(c, true)).toBe(await dump(c, false));
      }),
      { numRuns: 300, seed: 20261202 },
    );
    expect(byteRows).toBeGreaterThan(300);
    expect(plainRows).toBeGreaterThan(400);
  }, 120_000);

  it('writes a row as formatRow does, for any spans (overlapping ones: the first colours), offset and terminal', () => {
    const span = fc.record({ start: fc.nat({ max: 40 }), length: fc.integer({ min: 1, max: 30 }), cls: fc.integer({ min: 0, max: SPAN_CLASS_NAMES.length - 1 }) });
    fc.assert(
      fc.property(
        // Any ASCII, or mostly spaces (blank where a cut falls, unless a span colours them) and two-column cells.
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 24, max: 0x7f }),
          fc.array(fc.constantFrom(0x20, 0x20, 0x20, 0x1b, 0x61, 0x7c), { minLength: 1, maxLength: 24 }).map((b) => Uint8Array.from(b)),
        ),
        fc.constantFrom(16, 8, 24),
        fc.oneof(fc.nat({ max: 64 }), fc.constant(0xffff_fff0), fc.constant(2 ** 40)),
        fc.array(span, { maxLength: 5 }),
        fc.boolean(),
        fc.oneof(fc.constantFrom(Infinity, 132, 80, 78, 60, 44), fc.integer({ min: 1, max: 140 })),
        (bytes, width, base, spans, color, columns) => {
          const groups = spans.map((g) => ({ start: base + g.start, end: base + g.start + g.length, cls: g.cls as SpanClass }));
          const spanAt = (x: number): SpanClass | undefined => groups.find((g) => g.start <= x && x < g.end)?.cls;
          const active = new ActiveSpans();
          for (const g of groups) active.push(g.start, g.end, g.cls);
          const writer = new AsciiRowWriter(width, 8, color, columns);
          for (const row of formatHexRows(bytes, base, { width })) {
            const i = row.offset - base;
            const out = new ByteBuffer(64);
            const lines = formatRow(row, { width, offsetDigits: 8, color, columns, spanAt });
            // Every ASCII row is written, on one line or cut, as formatRow lays it out.
            expect(writer.write(out, bytes, i, row.hex.length, row.offset, active)).toBe(true);
            expect(out.buf.toString('utf8', 0, out.p)).toBe(lines.map((l) => `${l}\n`).join(''));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('cuts a row of ASCII that is one column too wide for the terminal as the text rows do', async () => {
    // 16 bytes of plain text: 78 columns; with one `|` (shown `\|`) 79.
    const bytes = Uint8Array.from(enc('abcdefghijklmno|'));
    const c = { bytes, feed: 1 << 15, offset: 0, length: Infinity, width: 16, color: false };
    expect(await dump({ ...c, columns: 79 }, true)).toBe(await dump({ ...c, columns: 79 }, false));
    const cut = await dump({ ...c, columns: 78 }, true);
    expect(cut).toBe(await dump({ ...c, columns: 78 }, false));
    expect(cut).toMatch(/\n {8}\+ /);
  });
});

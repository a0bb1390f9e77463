// inspect's text rows (a terminal, or colour): a row that fits is built as one string
// (formatRow's one-line path); cutRow, pieces fitted to the terminal, stays the definition of
// every painted or cut row, and paintCell(styleFor(…)) the definition of a cell's colour.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHexRows } from '../../shared/hex';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../shared/parser';
import { cellSgr, painted, paintCell, styleFor } from '../../app/cli/inspect/paint';
import { cutRow, formatRow, type RowLayout } from '../../app/cli/inspect/row-text';
import { textWidth } from '../../app/node/fit';
import { hostileStream } from '../helpers/arbitraries';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Bytes that make wide, escaped or multi-byte cells. */
const SAMPLES = [utf8('build: \x1b[31mFAIL\x1b[0m | ok\n'), utf8('€本 café\u202e\u200b\u{1f600}\t|\\^<'), new Uint8Array([0x9b, 0xc2, 0x9b, 0xff, 0xe2, 0x82, 0x00, 0x7f, 0x1b])];

const spanRanges = fc.array(fc.record({ start: fc.nat({ max: 300 }), length: fc.integer({ min: 1, max: 40 }), cls: fc.integer({ min: 0, max: SPAN_CLASS_NAMES.length - 1 }) }), { maxLength: 8 });

function layoutOf(width: number, color: boolean, columns: number, spans: { start: number; length: number; cls: number }[]): RowLayout {
  const spanAt = (x: number): SpanClass | undefined => spans.find((s) => s.start <= x && x < s.start + s.length)?.cls as SpanClass | undefined;
  return { width, offsetDigits: 8, color, columns, spanAt };
}

describe('inspect text rows', () => {
  it('the one-line path equals the pieces it replaces, coloured or not, at any terminal width', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostileStream(40), fc.constantFrom(...SAMPLES)),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        fc.oneof(fc.constant(Infinity), fc.integer({ min: 10, max: 220 })),
        spanRanges,
        (bytes, width, color, columns, spans) => {
          for (const row of formatHexRows(bytes, 0, { width })) {
            // The given width, and the row's own width and either side of it (where a row just fits).
            const own = textWidth(cutRow(row, layoutOf(width, false, Infinity, spans))[0]);
            for (const cols of [columns, own - 1, own, own + 1]) {
              if (!color && cols === Infinity) continue; // the plain row, not this path
              const layout = layoutOf(width, color, cols, spans);
              expect(formatRow(row, layout)).toEqual(cutRow(row, layout));
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts a row that does not fit, and keeps one that fits exactly on one line', () => {
    const [row] = formatHexRows(utf8('\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b'), 0);
    const wide = formatRow(row, layoutOf(16, false, Infinity, []));
    expect(wide).toHaveLength(1);
    const fits = formatRow(row, layoutOf(16, true, wide[0].length, []));
    expect(fits).toHaveLength(1);
    const cut = formatRow(row, layoutOf(16, true, wide[0].length - 1, []));
    expect(cut.length).toBeGreaterThan(1);
    expect(cut[1].startsWith('        + ')).toBe(true);
  });

  it('a cell is painted from the tables exactly as paintCell(styleFor(…)) paints it', () => {
    const kinds = new Set<string>();
    const texts = new Map<string, string[]>();
    for (const bytes of SAMPLES) {
      for (const row of formatHexRows(bytes, 0)) {
        for (const cell of row.cells) {
          kinds.add(cell.kind);
          texts.set(cell.kind, [...(texts.get(cell.kind) ?? []), cell.text]);
        }
      }
    }
    texts.set('c0', [...(texts.get('c0') ?? []), '^J', '^I', '^M']);
    expect(kinds.size).toBeGreaterThan(5);
    for (const [kind, list] of texts) {
      for (const text of list) {
        for (const span of [undefined, ...SPAN_CLASS_NAMES.map((_, i) => i as SpanClass)]) {
          const k = kind as Parameters<typeof styleFor>[0];
          expect(painted(text, cellSgr(k, text, span)), `${kind} ${text} ${span}`).toBe(paintCell(text, styleFor(k, text, span)));
        }
      }
    }
  });
});

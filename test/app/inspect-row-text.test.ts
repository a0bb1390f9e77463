// inspect's text rows (formatRow), the definition the dump engine's rows are held to: in colour,
// a row is painted by runs of one colour (the gaps between a run's hex cells inside it), set where
// a run begins and reset where it ends or the row is cut; cut to the terminal, every visual row
// fits, begins uncoloured, and shows every cell; paintCell(styleFor(…)) defines a cell's colour.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHexRows } from '../../shared/hex';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../shared/parser';
import { cellSgr, painted, paintCell, RESET, styleFor } from '../../app/cli/inspect/paint';
import { formatRow, kindSgrs, type RowLayout } from '../../app/cli/inspect/row-text';
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

/** The row's text without Airlock's colours. */
const uncoloured = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('inspect text rows', () => {
  it('in colour shows what it shows without, each colour closed on the visual row it opens on, every row fitting', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostileStream(40), fc.constantFrom(...SAMPLES)),
        fc.integer({ min: 1, max: 40 }),
        fc.oneof(fc.constant(Infinity), fc.integer({ min: 10, max: 220 })),
        spanRanges,
        (bytes, width, columns, spans) => {
          for (const row of formatHexRows(bytes, 0, { width })) {
            const plain = formatRow(row, layoutOf(width, false, columns, spans));
            const painted = formatRow(row, layoutOf(width, true, columns, spans));
            // The same cells; on the same visual rows unless a coloured space (which shows, so is
            // not dropped where a row is cut) moves a cut.
            const flat = (lines: string[]): string => lines.map((l, i) => (i === 0 ? l : l.slice(10))).join('').replace(/ /g, '');
            expect(flat(painted.map(uncoloured))).toBe(flat(plain));
            const colouredSpace = row.cells.some((c, k) => c.text === ' ' && spans.some((s) => s.start <= row.offset + k && row.offset + k < s.start + s.length));
            if (!colouredSpace) expect(painted.map(uncoloured).map((l) => l.trimEnd())).toEqual(plain.map((l) => l.trimEnd()));
            for (const line of painted) {
              // Every SGR is reset on its visual row, and nothing is open at its end.
              const codes = line.match(/\x1b\[[0-9;]*m/g) ?? [];
              codes.forEach((c, k) => expect(c === RESET).toBe(k % 2 === 1));
              // A row narrower than one piece after `+ ` still shows it whole (the widest cell is `<U+10FFFF>`).
              if (columns !== Infinity) expect(textWidth(line)).toBeLessThanOrEqual(Math.max(columns, 20));
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('paints a run of one colour once, the gaps between its hex cells inside it', () => {
    const [row] = formatHexRows(utf8('ab\x1b[31mcd'), 0);
    // Bytes 2–6 are one CSI span: one run of magenta in each column.
    const [line] = formatRow(row, layoutOf(16, true, Infinity, [{ start: 2, length: 5, cls: 3 }]));
    const csi = SPAN_CLASS_NAMES.indexOf('csi') as SpanClass;
    const magenta = cellSgr('c0', '^[', csi);
    expect(line).toContain(`61 62 ${magenta}1b 5b 33 31 6d${RESET} 63  64`);
    expect(line).toContain(`|ab${magenta}^[[31m${RESET}cd|`);
    // Cells of another colour end the run: LF is dim (kept), BEL red.
    const [bell] = formatHexRows(utf8('\n\x07\x07'), 0);
    const [lf] = formatRow(bell, layoutOf(16, true, Infinity, [{ start: 1, length: 1, cls: 0 }, { start: 2, length: 1, cls: 0 }]));
    expect(lf).toContain(`${cellSgr('c0', '^J', undefined)}0a${RESET} ${cellSgr('c0', '^G', 0 as SpanClass)}07 07${RESET}`);
  });

  it('colours a character shown as notation over all its bytes: its continuation cells take its lead cell colour, across a row edge too', () => {
    const cyan = cellSgr('utf8-escaped', '<U+0627>', undefined);
    // Two Arabic letters, a space and a CJK ideograph (shown as itself: no colour at all).
    const [row] = formatHexRows(utf8('\u0627\u0644 \u672c'), 0);
    const [line] = formatRow(row, layoutOf(16, true, Infinity, []));
    expect(line).toContain(`${cyan}d8 a7 d9 84${RESET} 20 e6 9c ac`);
    expect(line).toContain(`|${cyan}<U+0627>·<U+0644>·${RESET} 本··|`);
    // U+0080 (C1, magenta) cut by the row's end: its continuation cell on the next row is magenta too.
    const [first, second] = formatHexRows(new Uint8Array([0x41, 0xc2, 0x80, 0x42]), 0, { width: 2 });
    const magenta = cellSgr('c1', '<PAD>', undefined);
    const [l1] = formatRow(first, layoutOf(2, true, Infinity, []));
    const [l2] = formatRow(second, { ...layoutOf(2, true, Infinity, []), leadSgr: kindSgrs(first).at(-1) });
    expect(l1).toContain(`41 ${magenta}c2${RESET}`);
    expect(l2).toContain(`${magenta}80${RESET} 42`);
    // The first row shown has no lead before it: uncoloured.
    const [l3] = formatRow(second, layoutOf(2, true, Infinity, []));
    expect(l3).toContain('80 42');
  });

  it('cuts a row that does not fit, closing a run at the cut and opening it again on the next visual row', () => {
    const [row] = formatHexRows(utf8('\x1b'.repeat(16)), 0);
    const wide = formatRow(row, layoutOf(16, false, Infinity, []));
    expect(wide).toHaveLength(1);
    const fits = formatRow(row, layoutOf(16, true, wide[0].length, []));
    expect(fits).toHaveLength(1);
    // Five columns short: the cut falls inside the caret column's run.
    const cut = formatRow(row, layoutOf(16, true, wide[0].length - 5, [{ start: 0, length: 16, cls: 2 }]));
    expect(cut.length).toBeGreaterThan(1);
    expect(cut[0].endsWith(RESET)).toBe(true);
    expect(cut[1].startsWith(`        + ${cellSgr('c0', '^[', 2 as SpanClass)}`)).toBe(true);
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

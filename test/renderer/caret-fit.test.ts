// The hex view's caret column: a row's notation fits its columns, is condensed to fit, or is cut
// with a marker that says how many bytes it left out; never cut silently.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARET_COLUMNS, MIN_SQUEEZE, fitCaret, markerText, notationColumns } from '../../renderer/src/lib/caret-fit';

const EPS = 1e-9;
/** Columns the marker takes (its text, its frame): what fitCaret counts. */
const markerColumns = (cut: number): number => markerText(cut).length + 2;

describe('caret column fit', () => {
  it('counts notation columns, wide characters as two', () => {
    expect(notationColumns('a')).toBe(1);
    expect(notationColumns('^[')).toBe(2);
    expect(notationColumns('<U+202E>')).toBe(8);
    expect(notationColumns('·')).toBe(1);
    expect(notationColumns('本')).toBe(2);
    expect(notationColumns('\u{1f600}')).toBe(2);
  });

  it('leaves a row of text alone, condenses a row of escapes, cuts a row of tag characters with a marker', () => {
    expect(fitCaret(Array(16).fill(1))).toEqual({ shown: 16, squeeze: 1, cut: 0 });
    expect(fitCaret(Array(CARET_COLUMNS).fill(1))).toEqual({ shown: CARET_COLUMNS, squeeze: 1, cut: 0 });
    // ESC ×16: `^[` each, 32 columns in 24.
    expect(fitCaret(Array(16).fill(2))).toEqual({ shown: 16, squeeze: CARET_COLUMNS / 32, cut: 0 });
    // Tag characters: `<U+E0069>` and three `·` per 4 bytes, 48 columns a row.
    const tags = Array.from({ length: 16 }, (_, k) => (k % 4 === 0 ? 9 : 1));
    const fit = fitCaret(tags);
    expect(fit.cut).toBeGreaterThan(0);
    expect(fit.shown + fit.cut).toBe(16);
    expect(fit.squeeze).toBeGreaterThanOrEqual(MIN_SQUEEZE);
  });

  it('never draws past the column, never condenses below the floor, and cuts only what does not fit', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 256 }), fc.integer({ min: 8, max: 64 }), (widths, columns) => {
      const fit = fitCaret(widths, columns);
      expect(fit.shown + fit.cut).toBe(widths.length);
      expect(fit.squeeze).toBeGreaterThanOrEqual(MIN_SQUEEZE - EPS);
      expect(fit.squeeze).toBeLessThanOrEqual(1);
      const drawn = widths.slice(0, fit.shown).reduce((a, b) => a + b, 0) + (fit.cut > 0 ? markerColumns(fit.cut) : 0);
      expect(drawn * fit.squeeze).toBeLessThanOrEqual(columns + EPS);
      const total = widths.reduce((a, b) => a + b, 0);
      if (total <= columns) expect(fit).toEqual({ shown: widths.length, squeeze: 1, cut: 0 });
      else if (total <= columns / MIN_SQUEEZE) expect(fit.cut).toBe(0);
      else {
        // As many cells as the floor allows: one more (with its smaller marker) would not fit.
        const more = widths.slice(0, fit.shown + 1).reduce((a, b) => a + b, 0) + markerColumns(fit.cut - 1);
        expect(more).toBeGreaterThan(columns / MIN_SQUEEZE);
      }
    }));
  });
});

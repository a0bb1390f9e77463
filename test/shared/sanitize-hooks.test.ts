// The Sanitizer's hooks (SanitizerOptions.hooks) tell a caller what the Sanitizer does, without
// patching an instance: onSegment hears exactly the offset map's segments (with or without a map
// kept), onAmbiguous exactly the stretches the report counts, onText every run of text the parser
// prints (raw bytes at their stream offsets, in order), onSpan every span the report counts. Hooks
// change nothing: text and report are the same with and without them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPAN_CLASS_NAMES } from '../../shared/parser';
import { SegmentKind, Sanitizer, type SanitizerOptions } from '../../shared/sanitize';
import { cutPoints, hostileStream, tinyLimits } from '../helpers/arbitraries';

/** `input` cut at `cuts` through a Sanitizer made with `options`: the Sanitizer and its text. */
function run(input: Uint8Array, cuts: number[], options: SanitizerOptions): { s: Sanitizer; text: number[] } {
  const s = new Sanitizer(options);
  const text: number[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => Math.min(c, input.length)).sort((a, b) => a - b), input.length]) {
    for (const b of s.write(input.subarray(at, Math.max(at, cut)))) text.push(b);
    at = Math.max(at, cut);
  }
  for (const b of s.end()) text.push(b);
  return { s, text };
}

describe('Sanitizer hooks', () => {
  it('hear the segments, stretches, text and spans the Sanitizer makes, and change nothing', () => {
    fc.assert(fc.property(hostileStream(), cutPoints, fc.constantFrom('newline', 'overwrite'), fc.option(tinyLimits, { nil: undefined }), (input, cuts, cr, limits) => {
      const plain = run(input, cuts, { cr, limits, mapOffsets: true });
      const segments: number[][] = [];
      const stretches: number[][] = [];
      const printed: number[][] = [];
      const spans: number[] = [];
      const hooked = run(input, cuts, {
        cr,
        limits,
        hooks: {
          onSegment: (t, tl, r, rl, kind) => void segments.push([t, tl, r, rl, kind]),
          onAmbiguous: (offset, length, flags) => void stretches.push([offset, length, flags]),
          onText: (bytes, start, end, offset) => {
            // The bytes are the raw input's, at their offset; runs come in stream order.
            expect([...bytes.subarray(start, end)]).toEqual([...input.subarray(offset, offset + end - start)]);
            printed.push([offset, end - start]);
          },
          onSpan: (cls) => void spans.push(cls),
        },
      });
      expect(hooked.text).toEqual(plain.text);
      const report = plain.s.getReport();
      expect(hooked.s.getReport()).toEqual(report);
      // Segments: as the kept map has them (text order, no gaps), mapping every text byte alike.
      const map = plain.s.map!;
      let textEnd = 0;
      for (const [t, tl, r, rl, kind] of segments) {
        expect(t).toBeGreaterThanOrEqual(textEnd);
        textEnd = t + tl;
        for (let k = 0; k < tl; k++) expect(map.textToRaw(t + k)).toBe(kind === SegmentKind.Verbatim ? r + k : r);
        expect(rl).toBeGreaterThan(0);
      }
      expect(textEnd).toBe(plain.text.length);
      expect(stretches.length).toBe(report.ambiguous?.count ?? 0);
      expect(stretches.reduce((sum, [, length]) => sum + length, 0)).toBe(report.ambiguous?.bytes ?? 0);
      for (let k = 1; k < printed.length; k++) expect(printed[k][0]).toBeGreaterThanOrEqual(printed[k - 1][0] + printed[k - 1][1]);
      expect(SPAN_CLASS_NAMES.map((_, cls) => spans.filter((c) => c === cls).length)).toEqual(SPAN_CLASS_NAMES.map((n) => report.classes[n].count));
    }), { numRuns: 150 });
  });

  it('a map kept and a segment hook both hear every segment', () => {
    const input = new TextEncoder().encode('a\x1b[31mb\rc\x9d0;t\x07d\ne\x1b]0;x\x07f\r\ng');
    const segments: number[][] = [];
    const { s, text } = run(input, [3, 9], { mapOffsets: true, hooks: { onSegment: (t, tl, r, rl, kind) => void segments.push([t, tl, r, rl, kind]) } });
    const map = s.map!;
    expect(segments.length).toBeGreaterThan(1);
    expect(map.segments).toBeGreaterThan(1);
    expect(map.textLength).toBe(text.length);
    for (const [t, tl, r, , kind] of segments) {
      for (let k = 0; k < tl; k++) expect(map.textToRaw(t + k)).toBe(kind === SegmentKind.Verbatim ? r + k : r);
    }
  });
});

// Span counts without a span callback (Sanitizer.spanTotal, spanCounts, listenSpans): what a
// lazy index's build reads per write instead of taking ~30 M spans a GiB through onSpan. They
// must agree with the spans a callback sees and with the report, at every cut of any chunking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPAN_CLASS_COUNT, SPAN_CLASS_NAMES, SpanClass } from '../../shared/parser';
import { Sanitizer } from '../../shared/sanitize';
import { cutPoints, hostileStream } from '../helpers/arbitraries';

/** `bytes` cut at `cuts` (clamped, sorted, deduplicated). */
function pieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  return out;
}

const sgr = Buffer.from('\x1b[0m\x1b[1;31m\x1b[8m');

describe('span counts without a callback', () => {
  it('equal the spans a callback sees, per class, after every write', () => {
    fc.assert(fc.property(hostileStream(200), cutPoints, (raw, cuts) => {
      const stream = Buffer.concat([sgr, raw, sgr]);
      const byClass: number[] = new Array(SPAN_CLASS_COUNT).fill(0);
      const seen = new Sanitizer({ onSpan: (cls) => byClass[cls]++ });
      const counted = new Sanitizer();
      const into = new Float64Array(SPAN_CLASS_COUNT);
      for (const piece of [...pieces(stream, cuts), null]) {
        if (piece) {
          seen.write(piece);
          counted.write(piece);
        } else {
          seen.end();
          counted.end();
        }
        counted.spanCounts(into);
        expect([...into]).toEqual(byClass);
        expect(counted.spanTotal).toBe(byClass.reduce((a, b) => a + b, 0));
      }
      // The report says the same (it folds the plain SGR counted without a callback in).
      const report = counted.getReport();
      expect(SPAN_CLASS_NAMES.map((n) => report.classes[n].count)).toEqual(byClass);
      expect(counted.spanTotal).toBe(report.removed_spans);
    }), { numRuns: 300 });
  });

  it('keeps its total when a report folds the counted SGR in mid-stream', () => {
    const s = new Sanitizer();
    s.write(Buffer.from('a\x1b[0mb\x1b[31mc'));
    expect(s.spanTotal).toBe(2);
    s.getReport();
    expect(s.spanTotal).toBe(2);
    s.write(Buffer.from('\x1b[0m\x07'));
    expect(s.spanTotal).toBe(4);
  });

  it('hands a listener every span but the plain SGR counted within one write', () => {
    fc.assert(fc.property(hostileStream(200), cutPoints, fc.nat(), (raw, cuts, pick) => {
      const stream = Buffer.concat([raw, sgr]);
      const parts = pieces(stream, cuts);
      const from = pick % parts.length;
      const all: Array<[number, number, number]> = [];
      const seen = new Sanitizer({ onSpan: (cls, offset, length) => all.push([cls, offset, length]) });
      const counted = new Sanitizer();
      const heard: Array<[number, number, number]> = [];
      let before = 0;
      parts.forEach((piece, i) => {
        if (i === from) {
          before = all.length;
          counted.listenSpans((cls, offset, length) => heard.push([cls, offset, length]));
        }
        seen.write(piece);
        counted.write(piece);
      });
      seen.end();
      counted.end();
      // What was heard is what the callback saw from that write on, less plain SGR wholly inside one write.
      const later = all.slice(before);
      let k = 0;
      for (const span of later) {
        if (k < heard.length && heard[k][1] === span[1] && heard[k][0] === span[0]) k++;
        else expect(span[0], `span ${JSON.stringify(span)} not heard`).toBe(SpanClass.Csi);
      }
      expect(k).toBe(heard.length);
      counted.listenSpans(null);
    }), { numRuns: 300 });
  });
});

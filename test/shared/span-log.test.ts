// The sanitizer's span log (SanitizerOptions.spanLog, its one bulk span channel) holds the spans
// its onSpan hook reports, in the same order, with the same classes, offsets, lengths, flags and
// meanings: plain SGR (which the parser hands over through the sink's `sgr`) and every other span
// alike, so its entries count what the report counts. The report is the same with a log, without
// one and with a hook; a log and a hook on one sanitizer both hear everything.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPAN_CLASS_NAMES } from '../../shared/parser';
import type { SpanLog } from '../../shared/parser/sink';
import { Sanitizer } from '../../shared/sanitize';
import { cutPoints, hostileStream, tinyLimits } from '../helpers/arbitraries';
import { bytes } from '../helpers/record';

interface Logged {
  cls: number;
  offset: number;
  length: number;
  meaning: string;
  flags: number;
}

/** A log of `capacity` entries, drained into `into` when full. */
function logOf(capacity: number, into: { start: number; length: number; kind: number }[]): SpanLog {
  return {
    start: new Float64Array(capacity),
    length: new Float64Array(capacity),
    kind: new Int32Array(capacity),
    n: 0,
    drain() {
      for (let k = 0; k < this.n; k++) into.push({ start: this.start[k], length: this.length[k], kind: this.kind[k] });
      this.n = 0;
    },
  };
}

/** The stream `input` cut at `cuts`, through a sanitizer made with `options`; its report. */
function run(input: Uint8Array, cuts: number[], options: ConstructorParameters<typeof Sanitizer>[0]): Sanitizer {
  const s = new Sanitizer(options);
  let at = 0;
  for (const cut of [...cuts.map((c) => Math.min(c, input.length)).sort((a, b) => a - b), input.length]) {
    s.write(input.subarray(at, Math.max(at, cut)));
    at = Math.max(at, cut);
  }
  s.end();
  return s;
}

function check(input: Uint8Array, cuts: number[], capacity: number, limits?: object): void {
  const reported: Logged[] = [];
  const viaCallback = run(input, cuts, { limits, hooks: { onSpan: (cls, offset, length, meaning, flags) => reported.push({ cls, offset, length, meaning, flags }) } });
  const entries: { start: number; length: number; kind: number }[] = [];
  const log = logOf(capacity, entries);
  const viaLog = run(input, cuts, { limits, spanLog: log });
  log.drain();
  const logged = entries.map(({ start, length, kind }) => ({ cls: kind & 15, offset: start, length, meaning: viaLog.spanMeaning(kind >>> 10), flags: (kind >>> 4) & 63 }));
  expect(logged).toEqual(reported);
  const plain = run(input, cuts, { limits });
  const report = plain.getReport();
  expect(viaLog.getReport()).toEqual(report);
  expect(viaCallback.getReport()).toEqual(report);
  expect(SPAN_CLASS_NAMES.map((_, cls) => logged.filter((l) => l.cls === cls).length)).toEqual(SPAN_CLASS_NAMES.map((n) => report.classes[n].count));
  // Both channels on one sanitizer.
  const heard: Logged[] = [];
  const both: { start: number; length: number; kind: number }[] = [];
  const bothLog = logOf(capacity, both);
  const together = run(input, cuts, { limits, spanLog: bothLog, hooks: { onSpan: (cls, offset, length, meaning, flags) => heard.push({ cls, offset, length, meaning, flags }) } });
  bothLog.drain();
  expect(heard).toEqual(reported);
  expect(both.map(({ start, length, kind }) => ({ cls: kind & 15, offset: start, length, meaning: together.spanMeaning(kind >>> 10), flags: (kind >>> 4) & 63 }))).toEqual(reported);
  expect(together.getReport()).toEqual(report);
}

describe('span log', () => {
  it('holds what the span callback reports, in its order, for any stream, chunking and log size', () => {
    fc.assert(
      fc.property(hostileStream(), cutPoints, fc.constantFrom(1, 2, 7, 64, 4096), fc.option(tinyLimits, { nil: undefined }), (input, cuts, capacity, limits) => {
        check(input, cuts, capacity, limits);
      }),
      { numRuns: 600 },
    );
  });

  it('holds plain SGR among other spans in completion order', () => {
    const input = bytes('a\x1b[0mb\x1b[1;31mc\x1b[8md\x1b[31\x07me\x1b[?25l\x1b[0m\x1b]0;t\x07\x1b[m', '\x07\x08'.repeat(20));
    for (const capacity of [1, 3, 100]) check(input, [3, 9, 10], capacity);
  });
});

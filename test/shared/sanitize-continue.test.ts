// SanitizerOptions.precedingText: a second Sanitizer started where the first was at rest and quiet
// (its last act was to emit text) goes on exactly as the first would have: text, spans and offset
// map. The viewer's index re-sanitizes single pages of a large artifact this way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sanitizer } from '../../shared/sanitize';
import { SegmentKind } from '../../shared/sanitize/offset-map';
import { hostileStream } from '../helpers/arbitraries';
import { bytes } from '../helpers/record';

type Span = [number, number, number, string, number, number];
type Segment = [number, number, number, number];

interface Run {
  text: number[];
  spans: Span[];
  segments: Segment[];
  /** Cuts where the parser is at rest and the last event was text: [raw offset, text bytes, spans, segments, last text byte]. */
  cuts: Array<[number, number, number, number, number]>;
}

/**
 * Feeds `input` from `from` on in pieces of one byte into a Sanitizer (continuing after
 * `precedingText`); records what it emits with raw offsets shifted by `from` and text offsets by
 * `textFrom`.
 */
function run(input: Uint8Array, cr: 'newline' | 'overwrite', from = 0, precedingText = 0, textFrom = 0): Run {
  const out: Run = { text: [], spans: [], segments: [], cuts: [] };
  let quiet = true;
  let rawEnd = -1;
  const s = new Sanitizer({
    cr,
    mapOffsets: true,
    precedingText,
    hooks: {
      onSpan: (cls, off, len, meaning, flags, code) => {
        quiet = false;
        out.spans.push([cls, off + from, len, meaning, flags, code]);
      },
      onSegment: (t, tl, r, rl, kind) => {
        quiet = true;
        rawEnd = r + from + rl;
        out.segments.push([t + textFrom, tl, r + from, kind === SegmentKind.Replaced ? -rl : rl]);
      },
      onAmbiguous: () => {
        quiet = false;
      },
    },
  });
  const emit = (t: Uint8Array): void => {
    for (const b of t) out.text.push(b);
  };
  for (let i = from; i < input.length; i++) {
    emit(s.write(input.subarray(i, i + 1)));
    const last = out.text.length > 0 ? out.text[out.text.length - 1] : precedingText;
    // Overwrite mode: the LF that ended the emitted text is the last byte read (no line is being drawn).
    const lineEmpty = last === 0x0a && rawEnd === i + 1;
    if (s.parserAtRest && quiet && (cr === 'newline' || lineEmpty)) out.cuts.push([i + 1, out.text.length, out.spans.length, out.segments.length, last]);
  }
  emit(s.end());
  return out;
}

/** Every quiet cut of `input`: the rest sanitized alone after `precedingText` equals the whole run's rest. */
function checkCuts(input: Uint8Array, cr: 'newline' | 'overwrite'): number {
  const whole = run(input, cr);
  for (const [at, text, spans, segments, last] of whole.cuts) {
    const rest = run(input, cr, at, last, text);
    expect(rest.text).toEqual(whole.text.slice(text));
    expect(rest.spans).toEqual(whole.spans.slice(spans));
    expect(rest.segments).toEqual(whole.segments.slice(segments));
  }
  return whole.cuts.length;
}

describe('SanitizerOptions.precedingText', () => {
  it('decides a pending space as the earlier text would have', () => {
    // CSI C (cursor forward) between two words is a space unless one is there already.
    const tail = bytes('\x1b[Cb');
    const text = (precedingText: number): string => {
      const s = new Sanitizer({ precedingText });
      return Buffer.from([...s.write(tail), ...s.end()]).toString();
    };
    expect(text(0x61)).toBe(' b');
    expect(text(0x20)).toBe('b');
    expect(text(0)).toBe('b');
    expect(text(0x0a)).toBe('b');
  });

  it('decides a pending line break as the earlier text would have', () => {
    const tail = bytes('\rb');
    const text = (precedingText: number): string => {
      const s = new Sanitizer({ precedingText });
      return Buffer.from([...s.write(tail), ...s.end()]).toString();
    };
    expect(text(0x61)).toBe('\nb');
    expect(text(0x0a)).toBe('b');
  });

  it('refuses what it cannot continue', () => {
    expect(() => new Sanitizer({ precedingText: 256 })).toThrow(/a byte/);
    expect(() => new Sanitizer({ precedingText: -1 })).toThrow(/a byte/);
    expect(() => new Sanitizer({ precedingText: 0x61, cr: 'overwrite' })).toThrow(/overwrite mode/);
    expect(() => new Sanitizer({ precedingText: 0x0a, cr: 'overwrite' })).not.toThrow();
  });

  it('a continued run equals the whole run from every quiet cut (newline mode)', () => {
    let cuts = 0;
    fc.assert(fc.property(hostileStream(120), (input) => {
      cuts += checkCuts(input, 'newline');
    }), { numRuns: 300 });
    expect(cuts).toBeGreaterThan(300);
  });

  it('a continued run equals the whole run from every quiet cut after LF (overwrite mode)', () => {
    let cuts = 0;
    // Lines of hostile bytes: LF ends each, so the stream comes to rest at line ends now and then.
    const lines = fc.array(hostileStream(16).map((b) => Uint8Array.from([...b, 0x0a])), { maxLength: 8 }).map((ls) => Uint8Array.from(ls.flatMap((l) => [...l])));
    fc.assert(fc.property(lines, (input) => {
      cuts += checkCuts(input, 'overwrite');
    }), { numRuns: 300 });
    expect(cuts).toBeGreaterThan(300);
  });

  it('fails without the preceding byte: the check can tell', () => {
    // The same cut, continued as if from a line start, drops the space the whole run emits.
    const input = bytes('a\x1b[Cb');
    const whole = run(input, 'newline');
    const cut = whole.cuts.find(([at]) => at === 1)!;
    expect(cut).toBeDefined();
    const wrong = run(input, 'newline', 1, 0, cut[1]);
    expect(wrong.text).not.toEqual(whole.text.slice(cut[1]));
  });
});

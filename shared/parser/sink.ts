import type { SpanClass } from './span-class';

/**
 * Receives the parser's events in input order. Every method has a no-op default in
 * {@link NoopSink}; extend it and override what you need.
 *
 * Offsets are absolute byte offsets into the whole stream (across all fed chunks).
 */
export interface ParserSink {
  /**
   * Plain text: `bytes[start..end)` is well-formed UTF-8 holding no control byte except LF and TAB,
   * no C1 and no invisible code point but the kept exceptions (a VS16 after an emoji, a ZWJ in an
   * emoji sequence, …; see the README). `offset` is the stream offset of `bytes[start]`. The array is
   * only valid during the call (it may be the caller's chunk or the parser's scratch buffer).
   */
  print(bytes: Uint8Array, start: number, end: number, offset: number): void;
  /**
   * Text that is drawn, not written: the `length` raw bytes at stream `offset` (ASCII in a
   * character set such as DEC line drawing) show as code point `cp` on every terminal reading.
   */
  drawn(cp: number, offset: number, length: number): void;
  /**
   * A complete non-text span of `length` bytes at stream `offset`. `meaning` is a short label from
   * the parser's tables (never input bytes), e.g. `SGR select graphic rendition`. `flags` holds
   * {@link SpanFlag} bits. For C0/C1 spans `code` is the control's code (0x00–0x1F, 0x7F,
   * 0x80–0x9F); for invisible spans it is the code point; for OSC the numeric command (-1 if none); for
   * invalid UTF-8 the first byte; otherwise the final byte (0 if the sequence never got one).
   * For CSI spans `param` is the first parameter (-1 when omitted); for others it is absent or -1.
   */
  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param?: number): void;
  /**
   * Optional: an ambiguous stretch of `length` bytes at `offset` ended, where the UTF-8 reading and
   * the 8-bit reading of the input were in different states (one saw text or a control where the
   * other saw payload or another sequence). Reported once both readings agree again, or at end of
   * input with {@link StretchFlag.ToEnd}. The stretch overlaps the spans and withheld text inside
   * it; `flags` holds {@link StretchFlag} bits.
   */
  ambiguous?(offset: number, length: number, flags: number): void;
  /**
   * Optional: a plain SGR of `length` bytes at `offset` (a well-formed `CSI … m` without private
   * marker, intermediate or flag), the commonest span by far. A sink that has this method gets
   * plain SGR here instead of through {@link span}, where they would come as
   * `span(SpanClass.Csi, offset, length, SGR_MEANINGS[conceal ? 1 : 0], 0, 0x6d, first)`
   * (`conceal`: one of its first 32 parameters is 8, concealed text). It still gets them through
   * `span` while a joiner is held (the events then pass through a gate of the parser's).
   */
  sgr?(offset: number, length: number, conceal: boolean): void;
}

/** A sink that ignores everything: extend it to handle only some events. */
export class NoopSink implements ParserSink {
  print(_bytes: Uint8Array, _start: number, _end: number, _offset: number): void {}
  drawn(_cp: number, _offset: number, _length: number): void {}
  span(_cls: SpanClass, _offset: number, _length: number, _meaning: string, _flags: number, _code: number): void {}
}

/**
 * Spans recorded into typed arrays as they are reported: for a consumer that takes every span of
 * a large input (a hex dump's annotations), without a call and a meaning string per span as
 * {@link ParserSink.span} has them. Entry `k < n` is a span of `length[k]` raw bytes at stream
 * offset `start[k]`, in the order the parser completed them (nearly start order: a sequence that
 * contains an executed control, or text only the other reading shows, completes after it).
 */
export interface SpanLog {
  start: Float64Array;
  length: Float64Array;
  /**
   * Its class, flags and meaning as one integer: `class | flags << 4 | meaning << 10`, where
   * `meaning` numbers the (class, meaning) pair (the Sanitizer's spanMeaning names it).
   */
  kind: Int32Array;
  /** Entries recorded: the next goes at `n`. */
  n: number;
  /**
   * Called when the arrays are full (`n` is their length): takes the entries (setting `n` back)
   * or gives larger arrays. The arrays are read again after it.
   */
  drain(): void;
}

/** Appends a span to `log` (draining it first when full): the one way the parser and the sanitizer record. */
export function recordSpan(log: SpanLog, offset: number, length: number, kind: number): void {
  if (log.n === log.kind.length) log.drain();
  const n = log.n;
  log.start[n] = offset;
  log.length[n] = length;
  log.kind[n] = kind;
  log.n = n + 1;
}

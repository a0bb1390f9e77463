/**
 * Spans recorded into typed arrays as the sanitizer reports them: for a consumer that takes every
 * span of a large input (a hex dump's annotations), without a call and a meaning string per span
 * as {@link SanitizerOptions.onSpan} has them. Entry `k < n` is a span of `length[k]` raw bytes at
 * stream offset `start[k]`, in the order the parser completed them (nearly start order: a
 * sequence that contains an executed control completes after it).
 */
export interface SpanLog {
  start: Float64Array;
  length: Float64Array;
  /**
   * Its class, flags and meaning as one integer: `class | flags << 4 | meaning << 10`, where
   * `meaning` numbers the (class, meaning) pair ({@link Sanitizer.spanMeaning} names it).
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

/** How one stretch of sanitized text relates to the raw bytes it came from. */
export const enum SegmentKind {
  /** Text bytes copied verbatim: text byte k maps to raw byte rawStart + (k - textStart). */
  Verbatim = 0,
  /** Text made by the sanitizer (U+FFFD for invalid UTF-8, LF for CR): every byte maps to rawStart. */
  Replaced = 1,
}

const INITIAL_CAPACITY = 256;

/**
 * Maps sanitized-text byte offsets to raw byte offsets and back, so a viewer can link a character
 * of clean text to the bytes that produced it. Stored as parallel typed arrays of segments; a new
 * segment starts only where the text stops being a verbatim copy, so plain text costs nothing.
 */
export class OffsetMap {
  private textStart = new Float64Array(INITIAL_CAPACITY);
  private rawStart = new Float64Array(INITIAL_CAPACITY);
  private rawLength = new Float64Array(INITIAL_CAPACITY);
  private kind = new Uint8Array(INITIAL_CAPACITY);
  private count = 0;
  private textEnd = 0;
  /** Raw end of the last segment when it is verbatim (else -1): the merge test reads no array. */
  private verbatimRawEnd = -1;
  private monotonic = true;
  private sortedByRaw: Int32Array | null = null;

  /** Number of segments stored. */
  get segments(): number {
    return this.count;
  }

  /** Total text bytes covered. */
  get textLength(): number {
    return this.textEnd;
  }

  /**
   * Records that text bytes `[textPos, textPos + textLen)` came from raw bytes
   * `[rawPos, rawPos + rawLen)`. Calls must come in text order without gaps.
   */
  add(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
    const last = this.count - 1;
    const verbatim = kind === SegmentKind.Verbatim;
    if (verbatim && this.verbatimRawEnd === rawPos && this.textEnd === textPos) {
      this.rawLength[last] += rawLen;
      this.textEnd += textLen;
      this.verbatimRawEnd += rawLen;
      return;
    }
    if (this.count === this.textStart.length) this.grow();
    if (last >= 0 && rawPos < this.rawStart[last]) this.monotonic = false;
    this.textStart[this.count] = textPos;
    this.rawStart[this.count] = rawPos;
    this.rawLength[this.count] = rawLen;
    this.kind[this.count] = kind;
    this.count++;
    this.textEnd = textPos + textLen;
    this.verbatimRawEnd = verbatim ? rawPos + rawLen : -1;
    this.sortedByRaw = null;
  }

  /** Raw offset of the byte that produced text byte `textPos`; -1 outside the text. */
  textToRaw(textPos: number): number {
    if (textPos < 0 || textPos >= this.textEnd) return -1;
    const i = upperBound(this.textStart, this.count, textPos) - 1;
    return this.kind[i] === SegmentKind.Verbatim
      ? this.rawStart[i] + (textPos - this.textStart[i])
      : this.rawStart[i];
  }

  /**
   * Text offset where raw byte `rawPos` shows up, or -1 if it produced no text (it was part of a
   * removed span). An index sorted by raw offset is built lazily when the map is not monotonic (overwrite mode).
   */
  rawToText(rawPos: number): number {
    if (this.monotonic) return this.lookupRaw(rawPos, null);
    this.sortedByRaw ??= this.sortByRaw();
    return this.lookupRaw(rawPos, this.sortedByRaw);
  }

  private lookupRaw(rawPos: number, order: Int32Array | null): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rawStart[order ? order[mid] : mid] <= rawPos) lo = mid + 1;
      else hi = mid;
    }
    // Raw ranges of segments never overlap (a raw byte yields text at most once), so only the
    // last segment starting at or before rawPos can cover it.
    if (lo === 0) return -1;
    let k = lo - 1;
    // Several made segments can share one raw start (the blanks one TAB skipped): the first is
    // where that raw byte's text begins.
    while (k > 0 && this.rawStart[order ? order[k - 1] : k - 1] === this.rawStart[order ? order[k] : k]) k--;
    const i = order ? order[k] : k;
    if (rawPos >= this.rawStart[i] + this.rawLength[i]) return -1;
    return this.kind[i] === SegmentKind.Verbatim ? this.textStart[i] + (rawPos - this.rawStart[i]) : this.textStart[i];
  }

  private sortByRaw(): Int32Array {
    const order = Int32Array.from({ length: this.count }, (_, i) => i);
    order.sort((a, b) => this.rawStart[a] - this.rawStart[b]);
    return order;
  }

  private grow(): void {
    const cap = this.textStart.length * 2;
    this.textStart = resize(this.textStart, cap);
    this.rawStart = resize(this.rawStart, cap);
    this.rawLength = resize(this.rawLength, cap);
    const kind = new Uint8Array(cap);
    kind.set(this.kind);
    this.kind = kind;
  }
}

function resize(a: Float64Array, cap: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(cap);
  b.set(a);
  return b;
}

/** First index in sorted `a[0..n)` whose value is greater than `x`. */
function upperBound(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

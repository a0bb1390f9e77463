/** How one stretch of sanitized text relates to the raw bytes it came from. */
export const enum SegmentKind {
  /** Text bytes copied verbatim: text byte k maps to raw byte rawStart + (k - textStart). */
  Verbatim = 0,
  /** Text made by the sanitizer (U+FFFD for invalid UTF-8, LF for CR): every byte maps to rawStart. */
  Replaced = 1,
}

/** Where a Sanitizer puts offset-map segments as it makes them: an {@link OffsetMap}, a caller's hook. */
export interface SegmentSink {
  /** Text bytes `[textPos, textPos + textLen)` came from raw bytes `[rawPos, rawPos + rawLen)` (in text order, without gaps). */
  add(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void;
}

const INITIAL_CAPACITY = 256;
/** Segments per page: arrays grow by doubling up to here, then further segments start a new page. */
const PAGE = 1 << 16;

/** A full page of segments, set aside while the map is being built. */
interface Page {
  textStart: Float64Array;
  rawStart: Float64Array;
  rawLength: Float64Array;
  kind: Uint8Array;
}

/**
 * Maps sanitized-text byte offsets to raw byte offsets and back, so a viewer can link a character
 * of clean text to the bytes that produced it. Stored as parallel typed arrays of segments; a new
 * segment starts only where the text stops being a verbatim copy, so plain text costs nothing.
 */
export class OffsetMap implements SegmentSink {
  private textStart = new Float64Array(INITIAL_CAPACITY);
  private rawStart = new Float64Array(INITIAL_CAPACITY);
  private rawLength = new Float64Array(INITIAL_CAPACITY);
  private kind = new Uint8Array(INITIAL_CAPACITY);
  /**
   * Full pages before the arrays above (which then hold only the newest segments): building a big
   * map appends pages instead of copying every segment at each doubling. A lookup first joins
   * them into the arrays above, with room to spare (see {@link settle}).
   */
  private pages: Page[] = [];
  /** Segments in the arrays above (all of them when there are no pages). */
  private n = 0;
  private count = 0;
  private lastRawStart = 0;
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
    const verbatim = kind === SegmentKind.Verbatim;
    if (verbatim && this.verbatimRawEnd === rawPos && this.textEnd === textPos) {
      // The last segment is always in the newest arrays: a page is set aside only for a new one.
      this.rawLength[this.n - 1] += rawLen;
      this.textEnd += textLen;
      this.verbatimRawEnd += rawLen;
      return;
    }
    if (this.n === this.textStart.length) this.grow();
    if (this.count > 0 && rawPos < this.lastRawStart) this.monotonic = false;
    const k = this.n;
    this.textStart[k] = textPos;
    this.rawStart[k] = rawPos;
    this.rawLength[k] = rawLen;
    this.kind[k] = kind;
    this.n = k + 1;
    this.count++;
    this.lastRawStart = rawPos;
    this.textEnd = textPos + textLen;
    this.verbatimRawEnd = verbatim ? rawPos + rawLen : -1;
    this.sortedByRaw = null;
  }

  /** Raw offset of the byte that produced text byte `textPos`; -1 outside the text. */
  textToRaw(textPos: number): number {
    if (textPos < 0 || textPos >= this.textEnd) return -1;
    if (this.pages.length > 0) this.settle();
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
    if (this.pages.length > 0) this.settle();
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

  /** The newest arrays are full: double them, or past a page set them aside and start a new page. */
  private grow(): void {
    if (this.textStart.length >= PAGE) {
      this.pages.push({ textStart: this.textStart, rawStart: this.rawStart, rawLength: this.rawLength, kind: this.kind });
      this.textStart = new Float64Array(PAGE);
      this.rawStart = new Float64Array(PAGE);
      this.rawLength = new Float64Array(PAGE);
      this.kind = new Uint8Array(PAGE);
      this.n = 0;
      return;
    }
    this.resizeTo(this.textStart.length * 2, []);
  }

  /**
   * Joins the pages and the newest arrays into one set of arrays with as much room again, so
   * lookups search one sorted array and adds after a lookup rarely need another join.
   */
  private settle(): void {
    this.resizeTo(Math.max(this.count * 2, INITIAL_CAPACITY), this.pages);
    this.pages = [];
    this.n = this.count;
  }

  /** New arrays of `cap` segments holding `pages` then the newest arrays' `n` segments. */
  private resizeTo(cap: number, pages: Page[]): void {
    const textStart = new Float64Array(cap);
    const rawStart = new Float64Array(cap);
    const rawLength = new Float64Array(cap);
    const kind = new Uint8Array(cap);
    let at = 0;
    const parts: Page[] = [...pages, { textStart: this.textStart, rawStart: this.rawStart, rawLength: this.rawLength, kind: this.kind }];
    parts.forEach((p, idx) => {
      const len = idx === parts.length - 1 ? this.n : p.textStart.length;
      textStart.set(p.textStart.subarray(0, len), at);
      rawStart.set(p.rawStart.subarray(0, len), at);
      rawLength.set(p.rawLength.subarray(0, len), at);
      kind.set(p.kind.subarray(0, len), at);
      at += len;
    });
    this.textStart = textStart;
    this.rawStart = rawStart;
    this.rawLength = rawLength;
    this.kind = kind;
  }
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

/** What a {@link TextWindow} left out, stated in the envelope instead of as marker text. */
export interface TextTruncation {
  /** Sanitized bytes between the head and the tail that the agent does not get. */
  readonly omitted_bytes: number;
  /** Bytes kept from the start of the sanitized text. */
  readonly head_bytes: number;
  /** Bytes kept from the end of the sanitized text. */
  readonly tail_bytes: number;
  /**
   * True when both cuts fell on line boundaries (the head ends with a LF, the tail starts a line),
   * so no kept line is a join of two the command printed; false when a line was too long for that.
   */
  readonly at_line_boundaries: boolean;
}

/** The bounded text of one stream. */
export interface WindowedText {
  /** Head and tail joined; valid UTF-8 decoded to a string. */
  readonly text: string;
  /** Total sanitized bytes the stream produced. */
  readonly totalBytes: number;
  /** null when nothing was left out. */
  readonly truncation: TextTruncation | null;
}

/** Head and ring start this small and grow, so a 4-byte output does not cost 2 × 512 KiB. */
const INITIAL_BUFFER = 64 * 1024;

/**
 * Keeps at most `maxBytes` of a stream of sanitized UTF-8 text: the first half and the last half
 * (a ring buffer), however long the stream runs. Memory is bounded by `maxBytes`. The cut points
 * move to line boundaries where the halves hold a line break, else to UTF-8 character boundaries,
 * so the result decodes without replacement characters; the bytes given up count as omitted.
 *
 * Input must be valid UTF-8 overall (the Sanitizer guarantees it); chunks may split characters.
 */
export class TextWindow {
  private readonly headCap: number;
  private readonly tailCap: number;
  /** Copied, not referenced: the Sanitizer's output is a view of a buffer it reuses. */
  private head = new Uint8Array(0);
  private headLen = 0;
  private ring = new Uint8Array(0);
  /** Index of the oldest ring byte. */
  private ringStart = 0;
  private ringLen = 0;
  private total = 0;

  /** `maxBytes` ≥ 1: half (rounded down) for the head, the rest for the tail. */
  constructor(readonly maxBytes: number) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`TextWindow needs a positive byte count, not ${maxBytes}`);
    this.headCap = Math.floor(maxBytes / 2);
    this.tailCap = maxBytes - this.headCap;
  }

  /** Sanitized bytes seen so far. */
  get totalBytes(): number {
    return this.total;
  }

  /** Adds the next text chunk. What is kept is copied, so the caller may reuse `chunk` at once. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLen < this.headCap) {
      const n = Math.min(this.headCap - this.headLen, rest.length);
      if (this.headLen + n > this.head.length) {
        const grown = new Uint8Array(Math.min(this.headCap, Math.max(this.headLen + n, INITIAL_BUFFER, this.head.length * 2)));
        grown.set(this.head.subarray(0, this.headLen));
        this.head = grown;
      }
      this.head.set(rest.subarray(0, n), this.headLen);
      this.headLen += n;
      rest = rest.subarray(n);
      if (rest.length === 0) return;
    }
    this.pushTail(rest);
  }

  /** The kept text and what was left out. The window stays usable (e.g. for a later finish). */
  finish(): WindowedText {
    const headBytes = this.head.subarray(0, this.headLen);
    const tailBytes = this.ringBytes();
    const omitted = this.total - this.headLen - this.ringLen;
    if (omitted === 0) {
      // Nothing left out: head and tail join exactly, a character split between them is whole again.
      return { text: decode(Buffer.concat([headBytes, tailBytes])), totalBytes: this.total, truncation: null };
    }
    // Cut at line boundaries where the kept halves hold one, so head and tail cannot join into a
    // line the command never printed (`Tests: ` + `all 312 passed`); else at a character boundary.
    const headLf = headBytes.lastIndexOf(0x0a);
    const tailLf = tailBytes.indexOf(0x0a);
    const head = headLf >= 0 ? headBytes.subarray(0, headLf + 1) : headBytes.subarray(0, completeUtf8Prefix(headBytes));
    const tail = tailLf >= 0 ? tailBytes.subarray(tailLf + 1) : tailBytes.subarray(leadingContinuationBytes(tailBytes));
    return {
      text: decode(head) + decode(tail),
      totalBytes: this.total,
      truncation: {
        omitted_bytes: this.total - head.length - tail.length,
        head_bytes: head.length,
        tail_bytes: tail.length,
        at_line_boundaries: headLf >= 0 && tailLf >= 0,
      },
    };
  }

  private pushTail(src: Uint8Array): void {
    const cap = this.tailCap;
    if (src.length >= cap) {
      // The chunk alone fills the ring: keep its last `cap` bytes.
      this.ensureRing(cap);
      this.ring.set(src.subarray(src.length - cap), 0);
      this.ringStart = 0;
      this.ringLen = cap;
      return;
    }
    this.ensureRing(Math.min(cap, this.ringLen + src.length));
    const size = this.ring.length;
    const end = (this.ringStart + this.ringLen) % size;
    const first = Math.min(src.length, size - end);
    this.ring.set(src.subarray(0, first), end);
    if (first < src.length) this.ring.set(src.subarray(first), 0);
    const len = this.ringLen + src.length;
    if (len > size) {
      this.ringStart = (this.ringStart + len - size) % size;
      this.ringLen = size;
    } else {
      this.ringLen = len;
    }
  }

  /**
   * Grows the ring to hold `need` bytes (never beyond the tail cap). Growth happens only before
   * the ring first wraps (the ring is full from then on), so the contents are one linear run.
   */
  private ensureRing(need: number): void {
    if (need <= this.ring.length) return;
    const size = Math.min(this.tailCap, Math.max(need, INITIAL_BUFFER, this.ring.length * 2));
    const grown = new Uint8Array(size);
    grown.set(this.ringBytes(), 0);
    this.ring = grown;
    this.ringStart = 0;
  }

  /** The ring's contents, oldest first. */
  private ringBytes(): Uint8Array {
    const size = this.ring.length;
    if (this.ringStart + this.ringLen <= size) return this.ring.subarray(this.ringStart, this.ringStart + this.ringLen);
    const out = new Uint8Array(this.ringLen);
    const first = size - this.ringStart;
    out.set(this.ring.subarray(this.ringStart), 0);
    out.set(this.ring.subarray(0, this.ringLen - first), first);
    return out;
  }
}

/** Length of the longest prefix of `b` that ends on a UTF-8 character boundary. */
export function completeUtf8Prefix(b: Uint8Array): number {
  const i = b.length;
  // Walk back over at most 3 continuation bytes to the last lead byte.
  let k = i - 1;
  while (k >= 0 && k >= i - 4 && (b[k] & 0xc0) === 0x80) k--;
  if (k < 0) return 0;
  const lead = b[k];
  const need = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i - k >= need ? i : k;
}

/** Number of continuation bytes (10xxxxxx) at the start of `b`: the tail of a cut character. */
export function leadingContinuationBytes(b: Uint8Array): number {
  let i = 0;
  while (i < b.length && i < 3 && (b[i] & 0xc0) === 0x80) i++;
  return i;
}

const decoder = new TextDecoder('utf-8');

function decode(b: Uint8Array): string {
  return b.length === 0 ? '' : decoder.decode(b);
}

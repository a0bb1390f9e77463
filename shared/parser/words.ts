// Four bytes at a time: the word tests the fast paths (parser.ts) skip plain bytes with, and the
// chunk being parsed seen as words.

/** Bytes 0x30–0x3B: CSI parameter bytes (digits, `:` and `;`). */
export const PARAM_BYTES = 12;
/** Bytes 0x30–0x39: digits. */
export const DIGIT_BYTES = 10;

/**
 * True when one of the four bytes packed in `word` is outside 0x20–0x7E. Borrows and carries only
 * flow out of bytes that are themselves outside the range, so a clean word never tests true.
 */
function hasNonPlainByte(word: number): boolean {
  return (((word - 0x20202020) | (word + 0x01010101)) & 0x80808080) !== 0;
}

/**
 * True when all four bytes packed in `word` lie in 0x30 … 0x30 + `count` - 1 (`count` ≤ 16: see
 * {@link PARAM_BYTES}, {@link DIGIT_BYTES}). XOR maps 0x30–0x3F to 0x00–0x0F; adding 0x80 - count
 * then sets bit 7 of any byte from `count` up that was below 0x80, and a byte at or above 0x80 has
 * it already (a carry out of one only comes from a byte that tests true).
 */
function allBytesFrom30(word: number, count: number): boolean {
  const x = word ^ 0x30303030;
  return (((x + (0x80 - count) * 0x01010101) | x) & 0x80808080) === 0;
}

const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/** The chunk being parsed as a DataView, for unaligned reads of four bytes (runs start anywhere). */
export class ChunkWords {
  private view: DataView = EMPTY_VIEW;
  /** The chunk {@link view} shows (null between feeds and for chunks under 4 bytes): only reads of that array may use it. */
  private viewed: Uint8Array | null = null;

  /** Views `chunk` until {@link clear}. */
  set(chunk: Uint8Array): void {
    if (chunk.length < 4) return;
    this.view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
    this.viewed = chunk;
  }

  clear(): void {
    this.view = EMPTY_VIEW;
    this.viewed = null;
  }

  /**
   * Where the last word read of `buf` before `n` may start, for {@link skipPlain}: -1 (no word
   * reads) when `buf` is not the chunk viewed. Taken once per stretch, not per skip.
   */
  lastWord(buf: Uint8Array, n: number): number {
    return buf === this.viewed ? n - 4 : -1;
  }

  /**
   * Index of the first byte at or after `i` that is outside 0x20–0x7E, or a byte at most 3 before
   * it: words starting at most at `last4` ({@link lastWord}) are skipped while all four of their
   * bytes are printable ASCII, and the caller looks at the rest byte by byte.
   */
  skipPlain(i: number, last4: number): number {
    const view = this.view;
    while (i <= last4 && !hasNonPlainByte(view.getUint32(i, true))) i += 4;
    return i;
  }

  /**
   * Index of the first byte at or after `j` (and before `stop`) outside 0x30 … 0x30 + `count` - 1
   * ({@link PARAM_BYTES} or {@link DIGIT_BYTES}), four bytes at a time where it can.
   */
  skipFrom30(buf: Uint8Array, j: number, stop: number, count: number): number {
    if (buf === this.viewed) {
      const view = this.view;
      const last4 = stop - 4;
      while (j <= last4 && allBytesFrom30(view.getUint32(j, true), count)) j += 4;
    }
    const end = 0x30 + count;
    while (j < stop && buf[j] >= 0x30 && buf[j] < end) j++;
    return j;
  }
}

import { leadCellForCodePoint } from './codepoint';
import { C1_CELLS } from './notation';
import { createRowSimd, type RowSimd } from './row-simd';
import { MAX_ROW_WIDTH } from './rows';
import { SEQ_ILL_FORMED, SEQ_LENGTH_MASK, SEQ_TRUNCATED, SEQ_VALID, codePointAt, sequenceAt } from './utf8';

/*
 * Hex rows written as bytes straight into a caller's buffer: the same text as
 * `formatRowText(row, { width, offsetDigits })` for the rows of `formatHexRows` over the whole
 * stream, without a string, array or cell object per row. For dumps of many megabytes (the
 * `airlock inspect` CLI), where building JavaScript strings per row costs more than the rest.
 */

const GROUP_SIZE = 8;
/** Slots of the writer's code point cache (a power of two). */
const CP_CACHE = 512;
const SPACE = 0x20;
const LF = 0x0a;
const BAR = 0x7c;

/** ASCII codes of the 16 lowercase hex digits. */
/** The 16 lowercase hex digits as bytes. */
export const HEX_DIGIT = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** The two hex digits of each byte value. */
const HEX_HI = Uint8Array.from({ length: 256 }, (_, b) => HEX_DIGIT[b >> 4]);
const HEX_LO = Uint8Array.from({ length: 256 }, (_, b) => HEX_DIGIT[b & 15]);
/** Both hex digits of each byte value as one little-endian 16-bit word (first digit low). */
const HEX_PAIR = Uint16Array.from({ length: 256 }, (_, b) => HEX_HI[b] | (HEX_LO[b] << 8));

/*
 * The 25 bytes of a group of 8 (`  hh hh hh hh hh hh hh hh`) as six words and a byte: W0 `  h0l0`
 * and W1 ` h1l1 ` from tables of one byte, `h2l2 h3` and `l3 h4l4` from two bytes' digits. (Tables
 * of two bytes, 0.5 MB, took 10 ms to build at every start and crowded the parser's out of the
 * cache, for no measurable gain.)
 */
const W0 = Int32Array.from({ length: 256 }, (_, b) => SPACE | (SPACE << 8) | (HEX_PAIR[b] << 16));
const W1 = Int32Array.from({ length: 256 }, (_, b) => SPACE | (HEX_PAIR[b] << 8) | (SPACE << 24));
/** `hh h` of two bytes: the first's pair, a space, the second's high digit. */
const pairSpaceHi = (a: number, b: number): number => HEX_PAIR[a] | (SPACE << 16) | (HEX_HI[b] << 24);

/** One hex group of 8 bytes (`x`, `y`: its two little-endian words) as `  hh hh hh hh hh hh hh hh`; returns the new end. */
function hexWords(ov: DataView, p: number, x: number, y: number): number {
  ov.setInt32(p, W0[x & 255], true);
  ov.setInt32(p + 4, W1[(x >>> 8) & 255], true);
  ov.setInt32(p + 8, pairSpaceHi((x >>> 16) & 255, x >>> 24), true);
  ov.setInt32(p + 12, HEX_LO[x >>> 24] | (SPACE << 8) | (HEX_PAIR[y & 255] << 16), true);
  ov.setInt32(p + 16, W1[(y >>> 8) & 255], true);
  ov.setInt32(p + 20, pairSpaceHi((y >>> 16) & 255, y >>> 24), true);
  ov.setUint8(p + 24, HEX_LO[y >>> 24]);
  return p + 25;
}

/** Whether one of the 4 bytes of the 32-bit word `x` is zero. */
function hasByte(x: number): boolean {
  return ((x - 0x01010101) & ~x & 0x80808080) !== 0;
}

/**
 * Caret text of the ASCII bytes, as `formatRow` prints it (two bytes at most): `CARET_A[b]`, then
 * `CARET_B[b]` when it is not 0. `|` is `\|`, so input cannot fake the column's end.
 */
const CARET_A = new Uint8Array(0x80);
const CARET_B = new Uint8Array(0x80);
for (let b = 0; b < 0x80; b++) {
  if (b < 0x20) [CARET_A[b], CARET_B[b]] = [0x5e, b + 0x40];
  else if (b === 0x7f) [CARET_A[b], CARET_B[b]] = [0x5e, 0x3f];
  else if (b === 0x5c || b === 0x5e || b === 0x3c || b === BAR) [CARET_A[b], CARET_B[b]] = [0x5c, b];
  else CARET_A[b] = b;
}

/** The caret text of each ASCII byte as one little-endian 16-bit word, and its length (1 or 2). */
const CARET_PAIR = Uint16Array.from({ length: 0x80 }, (_, b) => CARET_A[b] | (CARET_B[b] << 8));
const CARET_LENGTH = Uint8Array.from({ length: 0x80 }, (_, b) => (CARET_B[b] === 0 ? 1 : 2));

/** The caret text of two ASCII bytes (`b0 | b1 << 7`) as one little-endian word, and its length. */
const CARET_TWO = new Int32Array(1 << 14);
const CARET_TWO_LENGTH = new Uint8Array(1 << 14);
for (let x = 0; x < 1 << 14; x++) {
  const a = x & 0x7f;
  const b = x >> 7;
  CARET_TWO[x] = CARET_PAIR[a] | (CARET_PAIR[b] << (8 * CARET_LENGTH[a]));
  CARET_TWO_LENGTH[x] = CARET_LENGTH[a] + CARET_LENGTH[b];
}

/** `·` (U+00B7, C2 B7) as a little-endian 16-bit word. */
const CONTINUATION_WORD = 0xb7c2;

/** What the bytes up to `seqEnd` continue: the rest of a sequence that began earlier. */
const enum Rest {
  /** Continuation bytes of a well-formed character: `·`. */
  Continuation = 0,
  /** Bytes of an ill-formed subpart: `\xNN`. */
  Invalid = 1,
  /** Bytes whose meaning depends on bytes not known: `<NN?>`. */
  Partial = 2,
}

/**
 * Writes hex-dump rows as UTF-8 bytes: `00000010  1b 5b 33 …  |^[[31mFAIL|` and a line feed. Rows
 * are written in stream order, one after another; the writer carries the UTF-8 state from row to
 * row, so a character cut by a row edge shows its lead cell in the first row and `·` in the next,
 * as {@link formatHexRows} does. A literal `|` in the caret column is written `\|`.
 *
 * The text holds no C0 (but the final LF), DEL, C1, invisible, bidi or right-to-left character
 * whatever the bytes were: the same inert notation as the cells of {@link formatCells}.
 */
export class HexRowWriter {
  /** The most bytes {@link writeRow} can add for one row (the notation `<U+10FFFF>` is 10). */
  readonly maxRowBytes: number;
  /** Stream offset where the sequence carried over from earlier bytes ends. */
  private seqEnd = 0;
  private rest: Rest = Rest.Continuation;
  /** Lead cells of recent code points: the code point, and its notation ('' when shown as itself). */
  private readonly cpKey = new Int32Array(CP_CACHE).fill(-1);
  private readonly cpNotation: string[] = new Array<string>(CP_CACHE).fill('');
  /** 32-bit views of the last output and input arrays, for writing and reading words. */
  private outBytes: Uint8Array | undefined;
  private outView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private inBytes: Uint8Array | undefined;
  private inView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  /** The SIMD writer for the default layout (16 bytes, 8 offset digits), created on first {@link allocate}. */
  private simd: RowSimd | null = null;
  /**
   * The last input and output arrays seen, whether both are in the SIMD memory, and their offsets
   * in it: an identity check per call (reading `buffer` and `byteOffset` of an array on
   * WebAssembly memory each call cost more than the row).
   */
  private simdIn: Uint8Array | undefined;
  private simdOut: Uint8Array | undefined;
  private simdBoth = false;
  private simdInAt = 0;
  private simdOutAt = 0;

  /**
   * @param width bytes per full row (a short row is padded so its caret column lines up)
   * @param offsetDigits minimum hex digits of the offset column; longer offsets are never cut
   * @throws RangeError for a width outside 1–4096 or a digit count outside 1–16
   */
  constructor(readonly width: number, readonly offsetDigits = 8) {
    if (!Number.isInteger(width) || width < 1 || width > MAX_ROW_WIDTH) throw new RangeError(`width must be an integer in 1–${MAX_ROW_WIDTH}, got ${width}`);
    if (!Number.isInteger(offsetDigits) || offsetDigits < 1 || offsetDigits > 16) throw new RangeError(`offsetDigits must be an integer in 1–16, got ${offsetDigits}`);
    // (+4: a 32-bit store may write up to 3 bytes past the text, later overwritten)
    this.maxRowBytes = 16 + 2 + width * 3 + Math.ceil(width / GROUP_SIZE) + 3 + width * 10 + 2 + 4;
  }

  /**
   * Sets the UTF-8 state for a dump whose first row starts at `buf[i]`, stream offset `at`. The
   * bytes before it in the stream must be in `buf`: at least `min(3, at)` of them (a character
   * covering `buf[i]` begins at most 3 bytes earlier). `end` and `streamEnds` are as for
   * {@link writeRow}. Without a call, the first row is taken to start the stream.
   *
   * @throws RangeError if fewer preceding bytes are given than that
   */
  begin(buf: Uint8Array, i: number, at: number, end: number, streamEnds: boolean): void {
    const ctx = Math.min(3, at);
    if (i < ctx) throw new RangeError(`the ${ctx} bytes before offset ${at} must precede index ${i}`);
    this.seqEnd = at;
    this.rest = Rest.Continuation;
    // Decoding from 3 bytes before reaches the true state at `i` (see writeCells): a sequence we
    // enter midway is only continuation bytes, each skipped as a subpart of its own.
    let j = i - ctx;
    while (j < i) {
      if (buf[j] < 0x80) {
        j++;
        continue;
      }
      const packed = sequenceAt(buf, j, end);
      const length = packed & SEQ_LENGTH_MASK;
      let status = packed & ~SEQ_LENGTH_MASK;
      if (status === SEQ_TRUNCATED) status = streamEnds ? SEQ_ILL_FORMED : SEQ_TRUNCATED;
      if (j + length > i) {
        this.seqEnd = at + (j + length - i);
        this.rest = status === SEQ_VALID ? Rest.Continuation : status === SEQ_ILL_FORMED ? Rest.Invalid : Rest.Partial;
      }
      j += length;
    }
  }

  /**
   * Writes the row of bytes `buf[i..i+n)` (stream offset `at`) into `out` at `p`, followed by LF,
   * and returns the new end. `out` must have room for {@link maxRowBytes}. `buf[i+n..end)` are
   * the bytes that follow in the stream (3 settle any character); `streamEnds` says the stream
   * ends at `end` (a character cut there is invalid), otherwise what follows is unknown (it is
   * partial, `<e2?>`). Rows must be written in stream order, each starting where the last ended.
   */
  writeRow(out: Uint8Array, p: number, buf: Uint8Array, i: number, n: number, at: number, end: number, streamEnds: boolean): number {
    return this.writeRows(out, p, buf, i, n, 1, at, end, streamEnds);
  }

  /**
   * A zeroed byte array of `size` for the caller's input or output. In the default layout (width
   * 16, 8 offset digits) it lives in the memory of a WebAssembly SIMD row writer, and rows whose
   * input and output are both such arrays are written there, without a copy in or out (~5x
   * faster than the JavaScript rows), all but those with bytes only JavaScript writes (see
   * row-simd.wat); elsewhere, or once that memory is handed out, it is a plain array and rows are
   * written in JavaScript. The text is the same either way.
   */
  allocate(size: number): Uint8Array {
    if (this.simd === null && this.width === 16 && this.offsetDigits === 8) this.simd = createRowSimd(CARET_PAIR, CARET_LENGTH);
    return this.simd?.allocate(size) ?? new Uint8Array(size);
  }

  /**
   * Writes `rows` consecutive rows of `n` bytes each, starting with `buf[i..i+n)` at stream offset
   * `at`, as that many {@link writeRow} calls would; `out` must have room for `rows` times
   * {@link maxRowBytes}. One call for a stretch of rows (those between two spans of a dump) spares
   * the per-call work.
   */
  writeRows(out: Uint8Array, p: number, buf: Uint8Array, i: number, n: number, rows: number, at: number, end: number, streamEnds: boolean): number {
    const simd = this.simd;
    if (simd === null || n !== 16) return this.scriptRows(out, p, buf, i, n, rows, at, end, streamEnds);
    if (!this.inSimdMemory(buf, out, simd.buffer)) return this.scriptRows(out, p, buf, i, n, rows, at, end, streamEnds);
    const inAt = this.simdInAt;
    const outAt = this.simdOutAt;
    while (rows > 0) {
      // SIMD for rows outside any sequence begun earlier, with offsets below 2^32.
      const fit = at + rows * 16 <= 0x1_0000_0000 ? rows : Math.floor((0x1_0000_0000 - at) / 16);
      if (fit > 0 && this.seqEnd <= at) {
        const r = simd.rows(inAt + i, fit, outAt + p, at);
        const done = Math.floor(r / 0x1_0000_0000);
        p = r - done * 0x1_0000_0000 - outAt;
        i += done * 16;
        at += done * 16;
        rows -= done;
        if (rows === 0) break;
      }
      // The row SIMD stopped at (bytes it leaves to JavaScript, a carried sequence, a wide offset).
      p = this.scriptRows(out, p, buf, i, n, 1, at, end, streamEnds);
      i += n;
      at += n;
      rows--;
    }
    return p;
  }

  /** Whether `buf` and `out` both lie in the SIMD module's memory (remembered for the last pair, with their offsets in it). */
  private inSimdMemory(buf: Uint8Array, out: Uint8Array, memory: ArrayBufferLike): boolean {
    if (buf !== this.simdIn || out !== this.simdOut) {
      this.simdIn = buf;
      this.simdOut = out;
      this.simdBoth = out.buffer === memory && buf.buffer === memory;
      this.simdInAt = buf.byteOffset;
      this.simdOutAt = out.byteOffset;
    }
    return this.simdBoth;
  }

  /**
   * Writes up to `rows` full rows from `buf[i..]` (stream offset `at`) by SIMD, each followed by
   * the annotation lines of a plan in the SIMD memory (see {@link RowSimd.noted}: `planAt`,
   * `entries`, `poolAt`, `dirAt`, `lengthWordsAt`). Returns `end + written * 2^32` (`written` may
   * be fewer, even 0: the next row is JavaScript's), or -1 when SIMD cannot write here at all (no
   * SIMD, an array outside its memory, a sequence carried into the row, offsets near 2^32).
   */
  writeNotedRows(out: Uint8Array, p: number, buf: Uint8Array, i: number, rows: number, at: number, planAt: number, entries: number, poolAt: number, dirAt: number, lengthWordsAt: number): number {
    const simd = this.simd;
    // (An offset past 2^32 - 16 would wrap the end of a row in 32 bits.)
    if (simd === null || this.seqEnd > at || at + rows * 16 > 0x1_0000_0000 - 16) return -1;
    if (!this.inSimdMemory(buf, out, simd.buffer)) return -1;
    const r = simd.noted(this.simdInAt + i, rows, this.simdOutAt + p, at, planAt, entries, poolAt, dirAt, lengthWordsAt);
    return r - this.simdOutAt;
  }

  /** {@link writeRows} in JavaScript: any row, any layout. */
  private scriptRows(out: Uint8Array, p: number, buf: Uint8Array, i: number, n: number, rows: number, at: number, end: number, streamEnds: boolean): number {
    if (out !== this.outBytes) {
      this.outBytes = out;
      this.outView = new DataView(out.buffer, out.byteOffset, out.byteLength);
    }
    if (buf !== this.inBytes) {
      this.inBytes = buf;
      this.inView = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    const ov = this.outView;
    const iv = this.inView;
    // One row per turn (the loop, not a call per row: rows between spans come in long stretches).
    for (let r = 0; r < rows; r++, i += n, at += n) {
      if (at < 0x1_0000_0000 && this.offsetDigits === 8) {
        writeHex8(ov, p, at);
        p += 8;
      } else {
        p = writeAscii(out, p, at.toString(16).padStart(this.offsetDigits, '0'));
      }
      const width = this.width;
      if (n === 16 && width === 16) {
        // The default full row, unrolled: `  hh hh hh hh hh hh hh hh  hh …` from four words.
        p = hexWords(ov, hexWords(ov, p, iv.getUint32(i, true), iv.getUint32(i + 4, true)), iv.getUint32(i + 8, true), iv.getUint32(i + 12, true));
      } else {
        p = this.writeHex(out, ov, iv, p, buf, i, n);
      }
      out[p] = SPACE;
      out[p + 1] = SPACE;
      out[p + 2] = BAR;
      p += 3;
      // The caret column.
      const stop = i + n;
      let q = i;
      // Bytes still inside a sequence begun in an earlier row.
      const carried = this.seqEnd - at;
      if (carried > 0) {
        const upto = q + (carried < n ? carried : n);
        for (; q < upto; q++) p = this.writeRest(out, p, buf[q]);
      }
      while (q < stop) {
        if (q + 4 <= stop) {
          const x = iv.getInt32(q, true);
          if ((x & 0x80808080) === 0) {
            // Four ASCII bytes: copied as one word when all show as themselves (0x20–0x7E but
            // \ ^ < |), else each as its one or two characters.
            if (((x - 0x20202020) & ~x & 0x80808080) === 0 && ((x + 0x01010101) & 0x80808080) === 0 &&
                !hasByte(x ^ 0x5c5c5c5c) && !hasByte(x ^ 0x5e5e5e5e) && !hasByte(x ^ 0x3c3c3c3c) && !hasByte(x ^ 0x7c7c7c7c)) {
              ov.setInt32(p, x, true);
              p += 4;
            } else {
              // Two bytes at a time: their caret text (up to 4 characters) as one word.
              const lo = (x & 0x7f) | ((x >>> 1) & 0x3f80);
              const hi = ((x >>> 16) & 0x7f) | ((x >>> 17) & 0x3f80);
              ov.setInt32(p, CARET_TWO[lo], true);
              p += CARET_TWO_LENGTH[lo];
              ov.setInt32(p, CARET_TWO[hi], true);
              p += CARET_TWO_LENGTH[hi];
            }
            q += 4;
            continue;
          }
        }
        const b = buf[q];
        if (b < 0x80) {
          ov.setUint16(p, CARET_PAIR[b], true);
          p += CARET_LENGTH[b];
          q++;
          continue;
        }
        p = this.writeLead(out, p, buf, q, at + (q - i), end, streamEnds);
        // The rest of the sequence, as far as this row goes.
        const seqStop = i + (this.seqEnd - at);
        const upto = seqStop < stop ? seqStop : stop;
        if (this.rest === Rest.Continuation) {
          for (q++; q < upto; q++, p += 2) ov.setUint16(p, CONTINUATION_WORD, true);
        } else {
          for (q++; q < upto; q++) p = this.writeRest(out, p, buf[q]);
        }
      }
      out[p] = BAR;
      out[p + 1] = LF;
      p += 2;
    }
    return p;
  }


  /** The hex column of any row: ` hh` per byte, and a group of 8 starts with an extra space. */
  private writeHex(out: Uint8Array, ov: DataView, iv: DataView, p: number, buf: Uint8Array, i: number, n: number): number {
    const width = this.width;
    const cols = n > width ? n : width;
    // The hex column: ` hh` per byte, and a group of 8 starts with an extra space. Four bytes at a
    // time where it can: their 12 characters as three 32-bit stores.
    for (let k = 0; k < cols; k += GROUP_SIZE) {
      out[p++] = SPACE;
      const stop = k + GROUP_SIZE < cols ? k + GROUP_SIZE : cols;
      const filled = stop < n ? stop : n;
      let j = k;
      for (; j + 4 <= filled; j += 4) {
        const x = iv.getUint32(i + j, true);
        const b2 = (x >>> 16) & 255;
        ov.setInt32(p, SPACE | (HEX_PAIR[x & 255] << 8) | (SPACE << 24), true);
        ov.setInt32(p + 4, HEX_PAIR[(x >>> 8) & 255] | (SPACE << 16) | (HEX_HI[b2] << 24), true);
        ov.setInt32(p + 8, HEX_LO[b2] | (SPACE << 8) | (HEX_PAIR[x >>> 24] << 16), true);
        p += 12;
      }
      for (; j < filled; j++) {
        const b = buf[i + j];
        out[p] = SPACE;
        out[p + 1] = HEX_HI[b];
        out[p + 2] = HEX_LO[b];
        p += 3;
      }
      for (; j < stop; j++) {
        out[p] = SPACE;
        out[p + 1] = SPACE;
        out[p + 2] = SPACE;
        p += 3;
      }
    }
    return p;
  }

  /** A byte inside a sequence that began at an earlier byte. */
  private writeRest(out: Uint8Array, p: number, b: number): number {
    if (this.rest === Rest.Continuation) {
      out[p++] = 0xc2; // U+00B7 ·
      out[p++] = 0xb7;
      return p;
    }
    if (this.rest === Rest.Invalid) return writeEscapedByte(out, p, b);
    return writePartial(out, p, b);
  }

  /** The byte ≥ 0x80 at `buf[q]` (stream offset `x`) starts a sequence. */
  private writeLead(out: Uint8Array, p: number, buf: Uint8Array, q: number, x: number, end: number, streamEnds: boolean): number {
    const b = buf[q];
    const packed = sequenceAt(buf, q, end);
    const length = packed & SEQ_LENGTH_MASK;
    let status = packed & ~SEQ_LENGTH_MASK;
    if (status === SEQ_TRUNCATED && streamEnds) status = SEQ_ILL_FORMED;
    this.seqEnd = x + length;
    if (status === SEQ_VALID) {
      this.rest = Rest.Continuation;
      const cp = codePointAt(buf, q, length);
      // A small cache in front of the cell table (a map): text in one script repeats a few code points.
      const c = cp & (CP_CACHE - 1);
      if (this.cpKey[c] !== cp) {
        const cell = leadCellForCodePoint(cp);
        this.cpKey[c] = cp;
        this.cpNotation[c] = cell.kind === 'utf8-lead' ? '' : cell.text;
      }
      const notation = this.cpNotation[c];
      if (notation !== '') return writeAscii(out, p, notation);
      // Shown as itself: SIMD rows may copy it from now on (2- and 3-byte characters).
      if (this.simd !== null && cp < 0x10000) this.simd.shown[cp >> 3] |= 1 << (cp & 7);
      // A character shown as itself: its text is exactly these bytes.
      for (let k = 0; k < length; k++) out[p++] = buf[q + k];
      return p;
    }
    if (status === SEQ_ILL_FORMED) {
      this.rest = Rest.Invalid;
      // A byte that no sequence claims is C1 when it is 0x80–0x9F.
      if (length === 1 && b < 0xa0) return writeAscii(out, p, C1_CELLS[b - 0x80].text);
      return writeEscapedByte(out, p, b);
    }
    this.rest = Rest.Partial;
    return writePartial(out, p, b);
  }
}

/** `\xNN` */
function writeEscapedByte(out: Uint8Array, p: number, b: number): number {
  out[p++] = 0x5c;
  out[p++] = 0x78;
  out[p++] = HEX_DIGIT[b >> 4];
  out[p++] = HEX_DIGIT[b & 15];
  return p;
}

/** `<NN?>` */
function writePartial(out: Uint8Array, p: number, b: number): number {
  out[p++] = 0x3c;
  out[p++] = HEX_DIGIT[b >> 4];
  out[p++] = HEX_DIGIT[b & 15];
  out[p++] = 0x3f;
  out[p++] = 0x3e;
  return p;
}

/** Writes the 8 lowercase hex digits of `value` (below 2^32) into `view` at `p`, as two words. */
export function writeHex8(view: DataView, p: number, value: number): void {
  view.setUint32(p, HEX_PAIR[value >>> 24] | (HEX_PAIR[(value >>> 16) & 255] << 16), true);
  view.setUint32(p + 4, HEX_PAIR[(value >>> 8) & 255] | (HEX_PAIR[value & 255] << 16), true);
}

/** Writes an ASCII string (Airlock's own notation, never input) as bytes. */
export function writeAscii(out: Uint8Array, p: number, text: string): number {
  for (let k = 0; k < text.length; k++) out[p++] = text.charCodeAt(k);
  return p;
}

/**
 * Writes `value` (a non-negative integer) in lowercase hex, at least `digits` digits, as
 * `value.toString(16).padStart(digits, '0')` would.
 */
export function writeHexNumber(out: Uint8Array, p: number, value: number, digits: number): number {
  if (value < 0x1_0000_0000 && digits === 8) {
    for (let s = 28; s >= 0; s -= 4) out[p++] = HEX_DIGIT[(value >>> s) & 15];
    return p;
  }
  return writeAscii(out, p, value.toString(16).padStart(digits, '0'));
}

/** Writes `value` (a non-negative integer) in decimal, right-aligned in at least `width` columns. */
export function writeDecimal(out: Uint8Array, p: number, value: number, width: number): number {
  if (value >= 1e15) return writeAscii(out, p, String(value).padStart(width));
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  for (let k = digits; k < width; k++) out[p++] = SPACE;
  let v = value;
  for (let k = p + digits - 1; k >= p; k--) {
    out[k] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return p + digits;
}

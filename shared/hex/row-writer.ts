import { CellCode, cellOfCode } from './cells';
import { leadCellForCodePoint } from './codepoint';
import { ASCII_CELLS, HEX_BYTE } from './notation';
import type { ByteSink } from './sink';

/** Colours for {@link RowWriterOptions.paint}: the sequence that sets each, by number, and the one that ends any. */
export interface RowPaint {
  /** ASCII text that sets colour `k`; entry 0 is no colour (''). */
  readonly sgr: readonly string[];
  readonly reset: string;
}

/** How a {@link RowWriter} lays out rows. */
export interface RowWriterOptions {
  /** Bytes per full row: a short row is padded so its caret column lines up with full ones. */
  readonly width: number;
  /** Minimum hex digits of the offset (default 8); longer offsets are never cut. */
  readonly offsetDigits?: number;
  /** Write a literal `|` in the caret column as `\|`, so the input cannot fake the column's end. */
  readonly escapeBar?: boolean;
  /** Colour cells by the numbers given with each row (see {@link RowWriter.write}). */
  readonly paint?: RowPaint;
  /**
   * Cut a row wider than this many display columns into visual rows, each further one beginning
   * with {@link rowContinuation} (default Infinity: never cut).
   */
  readonly columns?: number;
}

/** The layout's numbers (a const enum: inlined, where module constants would be variables in a bundle). */
const enum Layout {
  /** Bytes per hex group; an extra space between groups helps the eye count columns. */
  GroupSize = 8,
}

/** What begins each further visual row of a cut row: under the offset column, `+ `. */
export function rowContinuation(offsetDigits = 8): string {
  return `${' '.repeat(offsetDigits)}+ `;
}

/** Bytes the writer writes itself (a const enum: inlined, where module constants would be variables in a bundle). */
const enum Ascii {
  Space = 0x20,
  Bar = 0x7c,
  Lf = 0x0a,
}
const ASCII_BYTES = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** Each byte's two hex digits, the first in the low byte. */
const HEX_PAIRS = Uint16Array.from(HEX_BYTE, (hex) => hex.charCodeAt(0) | (hex.charCodeAt(1) << 8));
/** Each byte's hex cell with the space before it, as a little-endian word (its fourth byte unused). */
const SPACED_HEX = Uint32Array.from(HEX_PAIRS, (pair) => Ascii.Space | (pair << 8));
/** Three spaces, as a little-endian word. */
const SPACES = Ascii.Space * 0x10101;
const DIGIT = ASCII_BYTES('0123456789abcdef');

/**
 * Writes hex rows as UTF-8 text, the one definition of a row's text, for every viewer that prints
 * one (formatRowText, `airlock inspect`):
 *
 *   `00000010  1b 5b 33 31 6d 46 41 49  4c 1b 5b 30 6d 0a 6f 6b  |^[[31mFAIL^[[0m^Jok|`
 *
 * the offset, the hex cells in groups of {@link Layout.GroupSize}, and the caret cells between bars,
 * each visual row ended by LF. The caret cells of bytes that are not ASCII are the caller's, as
 * {@link CellCode}s from decodeCells (they depend on the bytes around the row).
 *
 * With {@link RowWriterOptions.paint}, each byte's hex and caret cell take the colour numbered for
 * it, painted by runs: consecutive cells of one colour are one stretch of it, the gaps between
 * their hex cells included (a string's bytes show as one band), set where a run begins and reset
 * where it ends or where the row is cut. With {@link RowWriterOptions.columns}, a row wider than
 * that is laid out piece by piece (the offset, each gap and hex cell, the bars, each caret cell):
 * a piece that does not fit starts a further visual row, where a blank piece (a gap, padding, an
 * uncoloured space cell) is dropped; a visual row ends without its trailing spaces, unless they are
 * inside a colour. Widths are counted as Airlock counts a terminal's: 1 per ASCII character, 2 per
 * other character (so a cut comes early rather than late). A caret column never holds a byte that
 * acts on a terminal, so no input can make the terminal wrap a row on its own.
 */
export class RowWriter {
  private readonly width: number;
  private readonly digits: number;
  private readonly columns: number;
  /** The text of each ASCII byte's caret cell (two bytes each; see caretLength). */
  private readonly caret = new Uint8Array(256);
  private readonly caretLength = new Uint8Array(128);
  /** The same packed: the first byte, the second << 8 (a little-endian word), the length << 16. */
  private readonly asciiCaret = new Uint32Array(128);
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private viewBuf: Uint8Array | null = null;
  private readonly sgr: readonly Uint8Array[];
  private readonly reset: Uint8Array;
  private readonly continuation: Uint8Array;
  /** The longest text a piece's colour change writes. */
  private readonly colourBytes: number;
  /** The text of the cells other than ASCII and lead cells, by code less {@link CellCode.Invalid} (see packText). */
  private readonly fixed: Uint32Array[] = [];
  /** The continuation mark's two UTF-8 bytes as a little-endian word. */
  private readonly continuationMark: number;
  /** The text of lead cells of the Basic Multilingual Plane as they come (see leadText; made at the first). */
  private bmpText: (Uint32Array | undefined)[] | null = null;
  /** Whether the row being written is wider than the terminal. */
  private cut = false;
  /** The display columns of each caret cell of the row being written (rowWidth counts them). */
  private widths = new Uint8Array(256);

  constructor(options: RowWriterOptions) {
    const { width, offsetDigits = 8, escapeBar = false, paint, columns = Infinity } = options;
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`width must be a positive integer, got ${width}`);
    this.width = width;
    this.digits = offsetDigits;
    this.columns = columns;
    for (let b = 0; b < 0x80; b++) {
      const text = escapeBar && b === Ascii.Bar ? '\\|' : ASCII_CELLS[b].text;
      this.caretLength[b] = text.length;
      for (let k = 0; k < text.length; k++) this.caret[b * 2 + k] = text.charCodeAt(k);
      this.asciiCaret[b] = text.charCodeAt(0) | ((text.length === 2 ? text.charCodeAt(1) : 0) << 8) | (text.length << 16);
    }
    this.sgr = (paint?.sgr ?? ['']).map(ASCII_BYTES);
    this.reset = ASCII_BYTES(paint?.reset ?? '');
    this.continuation = ASCII_BYTES(rowContinuation(offsetDigits));
    this.colourBytes = Math.max(0, ...this.sgr.map((s) => s.length)) + this.reset.length;
    const mark = this.fixedText(CellCode.Continuation);
    if (mark[0] !== 2) throw new Error('the continuation mark is not two bytes (internal error)');
    this.continuationMark = mark[2];
  }

  /**
   * Writes the row of `n` bytes `bytes[at..at+n)` at stream offset `offset`, whose caret cells are
   * `codes[cell..cell+n)` and, with paint, whose colours are `colours[cell..cell+n)`.
   */
  write(out: ByteSink, offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, colours?: Uint8Array): void {
    const slots = Math.max(this.width, n);
    this.cut = this.columns !== Infinity && this.rowWidth(offset, bytes, at, n, codes, cell, slots) > this.columns;
    if (this.cut) this.writePieces(out, offset, bytes, at, n, codes, cell, slots, colours);
    else if (colours === undefined) this.writePlain(out, offset, bytes, at, n, codes, cell, slots);
    else this.writeColoured(out, offset, bytes, at, n, codes, cell, slots, colours);
  }

  /**
   * Writes the rows of the `n` bytes `bytes[at..at+n)` (from stream offset `offset`, a row every
   * `width` bytes), as {@link write} writes each.
   */
  writeRows(out: ByteSink, offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, colours?: Uint8Array): void {
    const width = this.width;
    // Rows that are neither coloured nor cut, in one call.
    if (colours === undefined && this.columns === Infinity) {
      this.writePlain(out, offset, bytes, at, n, codes, cell, width);
      return;
    }
    for (let k = 0; k < n; k += width) this.write(out, offset + k, bytes, at + k, Math.min(width, n - k), codes, cell + k, colours);
  }

  /** Display columns of the whole row. */
  private rowWidth(offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, slots: number): number {
    // The offset; per slot a gap, an extra space per group and two hex digits; the bars and the space before them.
    let w = Math.max(this.digits, hexLength(offset)) + slots * 3 + Math.ceil(slots / Layout.GroupSize) + 4;
    if (this.widths.length < n) this.widths = new Uint8Array(Math.max(n, this.widths.length * 2));
    const widths = this.widths;
    for (let k = 0; k < n; k++) {
      const b = bytes[at + k];
      const code = codes[cell + k];
      // (A continuation mark, most cells of text in other scripts: two columns.)
      const cw = b < 0x80 ? this.caretLength[b] : code === CellCode.Continuation ? 2 : this.cellWidth(code);
      widths[k] = cw;
      w += cw;
    }
    return w;
  }

  /** Display columns of the cell of `code` (not an ASCII byte's). */
  private cellWidth(code: number): number {
    if (code < CellCode.Lead) return this.fixedText(code)[1];
    const text = this.leadText(code - CellCode.Lead);
    return text === SHOWN ? 2 : text[1];
  }

  /**
   * Writes the cell of `code`, not an ASCII byte's, at `buf[p]` (`view` is `buf`'s; up to 3 bytes
   * past the cell may be written over); returns the end.
   */
  private writeCell(buf: Uint8Array, view: DataView<ArrayBufferLike>, p: number, code: number): number {
    if (code < CellCode.Lead) return writePacked(view, p, this.fixedText(code));
    const cp = code - CellCode.Lead;
    const text = this.leadText(cp);
    // A character shown as itself: its bytes.
    if (text === SHOWN) return writeCodePoint(buf, p, cp);
    return writePacked(view, p, text);
  }

  /** The text of the lead cell of code point `cp` (not ASCII), packed: its notation, or {@link SHOWN}. */
  private leadText(cp: number): Uint32Array {
    const bmp = (this.bmpText ??= new Array<Uint32Array | undefined>(0x10000));
    const cached = cp < 0x10000 ? bmp[cp] : undefined;
    if (cached !== undefined) return cached;
    const cell = leadCellForCodePoint(cp);
    const text = cell.kind === 'utf8-lead' ? SHOWN : packText(cell.text);
    if (cp < 0x10000) bmp[cp] = text;
    return text;
  }

  /** The text, packed, of a cell that is neither an ASCII byte's nor a lead cell. */
  private fixedText(code: number): Uint32Array {
    const k = code - CellCode.Invalid;
    return (this.fixed[k] ??= packText(cellOfCode(code).text));
  }

  /**
   * The rows of `n` bytes (a row every `width`; the last may be short, padded to `width`) that are
   * neither coloured nor cut, written straight: each row's hex and caret cells in one pass.
   */
  private writePlain(out: ByteSink, offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, width: number): void {
    const rows = Math.ceil(n / width);
    // Room for bytes past each row too: cells are stored a word at a time, the unused bytes written over next.
    out.reserve(rows * (28 + width * 4) + n * 12);
    const buf = out.buf;
    const view = this.viewOf(buf);
    // Tables read once into locals (a bundle makes module constants variables, read at every use).
    const spacedHex = SPACED_HEX;
    const ascii = this.asciiCaret;
    const continuation = this.continuationMark;
    // Every row has `width` slots: the hex column's length is the same for all (a short last row padded).
    const hexBytes = width * 3 + Math.ceil(width / Layout.GroupSize) + 3;
    let p = out.p;
    for (let r = 0; r < n; r += width) {
      const len = Math.min(width, n - r);
      const start = writeOffset(buf, p, offset + r, this.digits);
      let h = start;
      let c = start + hexBytes;
      for (let k = 0; k < width; k++) {
        if (k % Layout.GroupSize === 0) buf[h++] = Ascii.Space;
        if (k < len) {
          const b = bytes[at + r + k];
          // A space and the two digits.
          view.setUint32(h, spacedHex[b], true);
          if (b < 0x80) {
            const text = ascii[b];
            view.setUint16(c, text, true);
            c += text >> 16;
          } else {
            const code = codes[cell + r + k];
            // (The continuation mark, most of the cells of text in other scripts, in one store.)
            if (code === CellCode.Continuation) {
              view.setUint16(c, continuation, true);
              c += 2;
            } else {
              c = this.writeCell(buf, view, c, code);
            }
          }
        } else {
          view.setUint32(h, SPACES, true);
        }
        h += 3;
      }
      buf[h] = Ascii.Space;
      buf[h + 1] = Ascii.Space;
      buf[h + 2] = Ascii.Bar;
      buf[c] = Ascii.Bar;
      buf[c + 1] = Ascii.Lf;
      p = c + 2;
    }
    out.p = p;
  }

  /** A view of `buf` for word stores (made again when the output's buffer changes). */
  private viewOf(buf: Uint8Array): DataView<ArrayBufferLike> {
    if (buf !== this.viewBuf) {
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      this.viewBuf = buf;
    }
    return this.view;
  }

  /**
   * A coloured row that is not cut: the pieces' colours, set where a run begins and reset where
   * it ends, as {@link writePieces} sets them when no cut comes.
   */
  private writeColoured(out: ByteSink, offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, slots: number, colours: Uint8Array): void {
    out.reserve(28 + slots * (4 + this.colourBytes) + n * (12 + this.colourBytes));
    const buf = out.buf;
    const view = this.viewOf(buf);
    const hexPairs = HEX_PAIRS;
    const ascii = this.asciiCaret;
    let open = 0;
    let p = writeOffset(buf, out.p, offset, this.digits);
    for (let k = 0; k < slots; k++) {
      const colour = k < n ? colours[cell + k] : 0;
      // A gap inside a run of one colour is of that colour.
      const gapColour = k > 0 && colour !== 0 && colour === colours[cell + k - 1] ? colour : 0;
      if (gapColour !== open) {
        p = this.switchColour(buf, p, open, gapColour);
        open = gapColour;
      }
      if (k % Layout.GroupSize === 0) buf[p++] = Ascii.Space;
      buf[p++] = Ascii.Space;
      if (colour !== open) {
        p = this.switchColour(buf, p, open, colour);
        open = colour;
      }
      if (k < n) {
        const pair = hexPairs[bytes[at + k]];
        buf[p] = pair & 0xff;
        buf[p + 1] = pair >> 8;
      } else {
        buf[p] = Ascii.Space;
        buf[p + 1] = Ascii.Space;
      }
      p += 2;
    }
    if (open !== 0) {
      p = this.switchColour(buf, p, open, 0);
      open = 0;
    }
    buf[p] = Ascii.Space;
    buf[p + 1] = Ascii.Space;
    buf[p + 2] = Ascii.Bar;
    p += 3;
    for (let k = 0; k < n; k++) {
      const colour = colours[cell + k];
      if (colour !== open) {
        p = this.switchColour(buf, p, open, colour);
        open = colour;
      }
      const b = bytes[at + k];
      if (b < 0x80) {
        const text = ascii[b];
        view.setUint16(p, text, true);
        p += text >> 16;
      } else {
        const code = codes[cell + k];
        if (code === CellCode.Continuation) {
          view.setUint16(p, this.continuationMark, true);
          p += 2;
        } else {
          p = this.writeCell(buf, view, p, code);
        }
      }
    }
    if (open !== 0) p = this.switchColour(buf, p, open, 0);
    buf[p] = Ascii.Bar;
    buf[p + 1] = Ascii.Lf;
    out.p = p + 2;
  }

  /**
   * A coloured or cut row, laid out piece by piece: before each piece, a cut when it does not fit
   * (where a blank piece is dropped) and a colour change when its colour is not the one open.
   */
  private writePieces(out: ByteSink, offset: number, bytes: Uint8Array, at: number, n: number, codes: Int32Array, cell: number, slots: number, colours: Uint8Array | undefined): void {
    const pieces = slots * 2 + n + 6;
    const cut = this.cut;
    out.reserve(4 + pieces * (12 + this.colourBytes) + (cut ? pieces * (this.continuation.length + this.reset.length + 1) : 0));
    const buf = out.buf;
    const view = this.viewOf(buf);
    const hexPairs = HEX_PAIRS;
    const ascii = this.asciiCaret;
    const columns = this.columns;
    const indent = this.continuation.length;
    const widths = this.widths;
    // The colour open, the columns the visual row has taken.
    let open = 0;
    let used = Math.max(this.digits, hexLength(offset));
    let p = writeOffset(buf, out.p, offset, this.digits);
    for (let k = 0; k < slots; k++) {
      const colour = colours === undefined || k >= n ? 0 : colours[cell + k];
      // A gap, blank: inside a run of one colour it is of that colour.
      const gap = k % Layout.GroupSize === 0 ? 2 : 1;
      const gapColour = k > 0 && colour !== 0 && colour === colours![cell + k - 1] ? colour : 0;
      let blank = false;
      if (cut && used + gap > columns) {
        p = this.breakRow(buf, p, open);
        open = 0;
        used = indent;
        blank = true;
      }
      if (!blank) {
        if (gapColour !== open) {
          p = this.switchColour(buf, p, open, gapColour);
          open = gapColour;
        }
        buf[p++] = Ascii.Space;
        if (gap === 2) buf[p++] = Ascii.Space;
        used += gap;
      }
      // A hex cell, or blank padding.
      if (cut && used + 2 > columns) {
        p = this.breakRow(buf, p, open);
        open = 0;
        used = indent;
        if (k >= n) continue;
      }
      if (colour !== open) {
        p = this.switchColour(buf, p, open, colour);
        open = colour;
      }
      if (k < n) {
        const pair = hexPairs[bytes[at + k]];
        buf[p] = pair & 0xff;
        buf[p + 1] = pair >> 8;
      } else {
        buf[p] = Ascii.Space;
        buf[p + 1] = Ascii.Space;
      }
      p += 2;
      used += 2;
    }
    // Two blank spaces and the bar, uncoloured.
    let blank = false;
    if (cut && used + 2 > columns) {
      p = this.breakRow(buf, p, open);
      open = 0;
      used = indent;
      blank = true;
    }
    if (open !== 0) {
      p = this.switchColour(buf, p, open, 0);
      open = 0;
    }
    if (!blank) {
      buf[p++] = Ascii.Space;
      buf[p++] = Ascii.Space;
      used += 2;
    }
    if (cut && used + 1 > columns) {
      p = this.breakRow(buf, p, open);
      used = indent;
    }
    buf[p++] = Ascii.Bar;
    used++;
    for (let k = 0; k < n; k++) {
      const b = bytes[at + k];
      const colour = colours === undefined ? 0 : colours[cell + k];
      const text = b < 0x80 ? ascii[b] : 0;
      const w = widths[k];
      if (cut && used + w > columns) {
        p = this.breakRow(buf, p, open);
        open = 0;
        used = indent;
        // An uncoloured space cell is blank.
        if (b === Ascii.Space && colour === 0) continue;
      }
      if (colour !== open) {
        p = this.switchColour(buf, p, open, colour);
        open = colour;
      }
      if (b < 0x80) {
        buf[p] = text & 0xff;
        buf[p + 1] = (text >> 8) & 0xff;
        p += w;
      } else {
        const code = codes[cell + k];
        if (code === CellCode.Continuation) {
          view.setUint16(p, this.continuationMark, true);
          p += 2;
        } else {
          p = this.writeCell(buf, view, p, code);
        }
      }
      used += w;
    }
    if (cut && used + 1 > columns) {
      p = this.breakRow(buf, p, open);
      open = 0;
    }
    if (open !== 0) p = this.switchColour(buf, p, open, 0);
    buf[p++] = Ascii.Bar;
    buf[p++] = Ascii.Lf;
    out.p = p;
  }

  /**
   * Ends a visual row where a piece does not fit (its colour reset, or, with none open, its
   * trailing spaces dropped) and begins the next with the continuation; returns where it goes on.
   */
  private breakRow(buf: Uint8Array, p: number, open: number): number {
    if (open !== 0) p = copy(buf, p, this.reset);
    else while (buf[p - 1] === Ascii.Space) p--;
    buf[p++] = Ascii.Lf;
    return copy(buf, p, this.continuation);
  }

  /** Writes what changes the colour from `open` to `colour`; returns where it goes on. */
  private switchColour(buf: Uint8Array, p: number, open: number, colour: number): number {
    if (open !== 0) p = copy(buf, p, this.reset);
    return copy(buf, p, this.sgr[colour]);
  }
}

/** Copies `bytes` (a few) to `buf[p]`; returns the end. */
function copy(buf: Uint8Array, p: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) buf[p++] = bytes[k];
  return p;
}

/** A lead cell that shows its character itself (its text is the character's bytes). */
const SHOWN = new Uint32Array(0);

/**
 * A cell's text packed for word stores: its UTF-8 length, its display columns (1 per ASCII
 * character, 2 per other), then its bytes as little-endian words.
 */
function packText(text: string): Uint32Array {
  const bytes = utf8Bytes(text);
  let width = 0;
  for (const ch of text) width += ch.charCodeAt(0) < 0x80 ? 1 : 2;
  const packed = new Uint32Array(2 + Math.ceil(bytes.length / 4));
  packed[0] = bytes.length;
  packed[1] = width;
  for (let k = 0; k < bytes.length; k++) packed[2 + (k >> 2)] |= bytes[k] << ((k & 3) * 8);
  return packed;
}

/** Writes packed text at `p` (up to 3 bytes past it written over); returns its end. */
function writePacked(view: DataView<ArrayBufferLike>, p: number, packed: Uint32Array): number {
  for (let k = 2; k < packed.length; k++) view.setUint32(p + (k - 2) * 4, packed[k], true);
  return p + packed[0];
}

/** Hex digits of `v`. */
function hexLength(v: number): number {
  if (v < 0x100000000) return v < 0x10 ? 1 : 8 - (Math.clz32(v) >> 2);
  let n = 9;
  for (let x = Math.floor(v / 0x1000000000); x > 0; x = Math.floor(x / 16)) n++;
  return n;
}

/** Writes `offset` in lowercase hex, zero-padded to `digits`, at `buf[p]`; returns the end. */
function writeOffset(buf: Uint8Array, p: number, offset: number, digits: number): number {
  const n = Math.max(digits, hexLength(offset));
  if (n === 8 && offset < 0x100000000) {
    // Two digits per byte of the offset.
    const pairs = HEX_PAIRS;
    for (let k = 0, shift = 24; k < 8; k += 2, shift -= 8) {
      const pair = pairs[(offset >>> shift) & 0xff];
      buf[p + k] = pair & 0xff;
      buf[p + k + 1] = pair >> 8;
    }
    return p + 8;
  }
  let v = offset;
  for (let k = p + n - 1; k >= p; k--) {
    // Exact for any safe integer.
    const digit = v % 16;
    buf[k] = DIGIT[digit];
    v = (v - digit) / 16;
  }
  return p + n;
}

/** Writes code point `cp` (not ASCII) as UTF-8 at `buf[p]`; returns the end. */
function writeCodePoint(buf: Uint8Array, p: number, cp: number): number {
  if (cp < 0x800) {
    buf[p++] = 0xc0 | (cp >> 6);
  } else {
    if (cp < 0x10000) {
      buf[p++] = 0xe0 | (cp >> 12);
    } else {
      buf[p++] = 0xf0 | (cp >> 18);
      buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
    }
    buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
  }
  buf[p++] = 0x80 | (cp & 0x3f);
  return p;
}

/** The UTF-8 bytes of `text` (well-formed). */
function utf8Bytes(text: string): Uint8Array {
  const buf = new Uint8Array(text.length * 3);
  let p = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) buf[p++] = cp;
    else p = writeCodePoint(buf, p, cp);
  }
  return buf.slice(0, p);
}

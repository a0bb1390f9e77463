import { formatHexRows } from '../../../shared/hex';
import { HEX_DIGIT, writeHexNumber } from '../../../shared/hex/row-bytes';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../../shared/parser';
import type { ActiveSpans } from './active-spans';
import type { ByteBuffer } from './bytes-out';
import { cellSgr, RESET as RESET_TEXT } from './paint';
import { GROUP_SIZE } from './row-text';

const encode = (text: string): Uint8Array => Uint8Array.from(text, (ch) => ch.charCodeAt(0));

/** The colours cells are painted in, as bytes; index 0 is none. */
const SGRS: Uint8Array[] = [new Uint8Array(0)];
const sgrNumbers = new Map<string, number>([['', 0]]);
function sgrNumber(sgr: string): number {
  let n = sgrNumbers.get(sgr);
  if (n === undefined) {
    n = SGRS.push(encode(sgr)) - 1;
    sgrNumbers.set(sgr, n);
  }
  return n;
}

/**
 * The caret cells of the 128 ASCII bytes as formatRow prints them (`|` as `\\|`), taken from
 * formatHexRows itself (an ASCII byte is its own cell whatever surrounds it): one or two
 * characters each (`a`, `\\^`, `^[`, `^?`), their colour outside any span as an index into SGRS.
 */
const CARET_LENGTH = new Uint8Array(0x80);
const CARET_FIRST = new Uint8Array(0x80);
const CARET_SECOND = new Uint8Array(0x80);
const CELL_SGR = new Uint8Array(0x80);
for (let b = 0; b < 0x80; b++) {
  const [cell] = formatHexRows(Uint8Array.of(b), 0)[0].cells;
  const text = cell.text === '|' ? '\\|' : cell.text;
  if (text.length < 1 || text.length > 2) throw new Error(`ascii-rows: the cell of byte ${b} is ${JSON.stringify(text)}`);
  CARET_LENGTH[b] = text.length;
  CARET_FIRST[b] = text.charCodeAt(0);
  CARET_SECOND[b] = text.charCodeAt(1) || 0;
  CELL_SGR[b] = sgrNumber(cellSgr(cell.kind, cell.text, undefined));
}

/** The colour of a byte in a span of each class (the same for every cell kind). */
const SPAN_SGR: readonly number[] = SPAN_CLASS_NAMES.map((_, cls) => sgrNumber(cellSgr('printable', 'x', cls as SpanClass)));

const RESET = encode(RESET_TEXT);

/**
 * Each colour as two little-endian 32-bit words (an SGR here is at most 8 bytes) and its length:
 * written with two stores, the pointer then moved by the length (bytes past it are overwritten
 * by what follows; callers reserve room for the 8).
 */
const SGR_WORDS = new Int32Array(SGRS.length * 2);
const SGR_LENGTH = Uint8Array.from(SGRS, (sgr) => sgr.length);
SGRS.forEach((sgr, n) => {
  if (sgr.length > 8) throw new Error(`ascii-rows: an SGR of ${sgr.length} bytes`);
  const word = new DataView(new ArrayBuffer(8));
  sgr.forEach((b, k) => word.setUint8(k, b));
  SGR_WORDS[2 * n] = word.getInt32(0, true);
  SGR_WORDS[2 * n + 1] = word.getInt32(4, true);
});
const RESET_WORD = new DataView(RESET.buffer).getInt32(0, true);
if (RESET.length !== 4) throw new Error('ascii-rows: the reset is not 4 bytes');

/**
 * Rows of ASCII bytes (0x00–0x7F) for a dump on a terminal or in colour, written as bytes: the
 * text formatRow makes of them (cells coloured by span and kind, `|` escaped, cut to the terminal
 * when wider). An ASCII byte's cell depends on nothing around it, so a table of the 128 serves;
 * formatRow stays the definition (a property test holds the dump to it), and rows with any other
 * byte are its.
 */
export class AsciiRowWriter {
  /** Per byte of the row being written: its colour, an index into SGRS (its span's, else its cell's). */
  private readonly colourOf: Uint8Array;
  /** Columns of a row's fixed text but the offset: the hex column, `  |` and `|`. */
  private readonly fixed: number;
  /** Of a row being cut (see {@link writeCut}): the output position, where its visual row began, and that row's columns. */
  private p = 0;
  private lineStart = 0;
  private col = 0;

  constructor(private readonly width: number, private readonly offsetDigits: number, private readonly color: boolean, private readonly columns: number) {
    this.colourOf = new Uint8Array(width);
    this.fixed = width * 3 + Math.ceil(width / GROUP_SIZE) + 3 + 1;
  }

  /**
   * How many of the `rows` full rows from `buf[i]` (stream offset `at`) are plain: ASCII that no
   * colour paints (without colour, any ASCII), fitting the terminal. Outside any span such a row
   * is the bulk case's row, so it may be written as that one is.
   */
  plainRows(buf: Uint8Array, i: number, rows: number, at: number): number {
    const { width, color } = this;
    const end = at + rows * width;
    const fixed = this.fixed + (end <= 0x1_0000_0000 ? this.offsetDigits : Math.max(this.offsetDigits, end.toString(16).length));
    for (let r = 0; r < rows; r++) {
      let used = fixed;
      for (let k = i + r * width, e = k + width; k < e; k++) {
        const b = buf[k];
        if (b >= 0x80 || (color && CELL_SGR[b] !== 0)) return r;
        used += CARET_LENGTH[b];
      }
      if (used > this.columns) return r;
    }
    return rows;
  }

  /**
   * Writes the row `buf[i..i+n)` (stream offset `at`) and LF into `out`, coloured by `spans`
   * (the first that holds a byte colours it, as formatRow's spanAt), cut to the terminal as
   * formatRow cuts it when it is wider, and returns true; returns false and writes nothing when a
   * byte is not ASCII.
   */
  write(out: ByteBuffer, buf: Uint8Array, i: number, n: number, at: number, spans: ActiveSpans): boolean {
    const { width, color, colourOf } = this;
    const digits = at < 0x1_0000_0000 ? this.offsetDigits : Math.max(this.offsetDigits, at.toString(16).length);
    let used = this.fixed + digits;
    for (let k = i; k < i + n; k++) {
      const b = buf[k];
      if (b >= 0x80) return false;
      used += CARET_LENGTH[b];
    }
    // Each byte's colour: its span's (the first that holds it), else its cell's.
    if (color) {
      for (let k = 0; k < n; k++) colourOf[k] = CELL_SGR[buf[i + k]];
      const { start, end, cls } = spans;
      for (let s = spans.length - 1; s >= 0; s--) {
        const from = Math.max(start[s], at) - at;
        const to = Math.min(end[s], at + n) - at;
        const sgr = SPAN_SGR[cls[s]];
        for (let x = from; x < to; x++) colourOf[x] = sgr;
      }
    }
    if (used > this.columns) {
      this.writeCut(out, buf, i, n, at, digits);
      return true;
    }
    // At most: the offset, per byte two painted cells (two colours of up to 12 bytes, 4 text bytes) and separators.
    out.reserve(digits + width * 40 + 16);
    const o = out.buf;
    const v = out.view;
    let p = writeHexNumber(o, out.p, at, this.offsetDigits);
    for (let k = 0; k < width; k++) {
      o[p++] = 0x20;
      if (k % GROUP_SIZE === 0) o[p++] = 0x20;
      if (k >= n) {
        o[p++] = 0x20;
        o[p++] = 0x20;
        continue;
      }
      p = hexCell(o, v, p, buf[i + k], color ? colourOf[k] : 0);
    }
    o[p++] = 0x20;
    o[p++] = 0x20;
    o[p++] = 0x7c;
    for (let k = 0; k < n; k++) p = caretCell(o, v, p, buf[i + k], color ? colourOf[k] : 0);
    o[p++] = 0x7c;
    o[p++] = 0x0a;
    out.p = p;
    return true;
  }

  /**
   * The row when it is wider than the terminal: its pieces (the offset, each gap, hex cell and
   * caret cell, `  `, the bars) laid into visual rows as formatRow's cutRow lays them with
   * fitPieces: a piece that does not fit starts a further row (`        + `), the row it ends
   * loses its trailing spaces, and a blank piece (a gap, an uncoloured space) is dropped there.
   */
  private writeCut(out: ByteBuffer, buf: Uint8Array, i: number, n: number, at: number, digits: number): void {
    const { width, color, colourOf } = this;
    // Each piece may start a further row: LF and the continuation before it.
    out.reserve(digits + width * 40 + 16 + (3 * width + 4) * (this.offsetDigits + 3));
    const o = out.buf;
    const v = out.view;
    this.p = writeHexNumber(o, out.p, at, this.offsetDigits);
    this.lineStart = out.p;
    this.col = this.p - out.p;
    for (let k = 0; k < width; k++) {
      const gap = k % GROUP_SIZE === 0 ? 2 : 1;
      if (this.fit(o, gap, true)) this.p = spaces(o, this.p, gap);
      if (k >= n) {
        if (this.fit(o, 2, true)) this.p = spaces(o, this.p, 2);
        continue;
      }
      this.fit(o, 2, false);
      this.p = hexCell(o, v, this.p, buf[i + k], color ? colourOf[k] : 0);
    }
    if (this.fit(o, 2, true)) this.p = spaces(o, this.p, 2);
    this.fit(o, 1, false);
    o[this.p++] = 0x7c;
    for (let k = 0; k < n; k++) {
      const b = buf[i + k];
      const sgr = color ? colourOf[k] : 0;
      if (this.fit(o, CARET_LENGTH[b], sgr === 0 && b === 0x20)) this.p = caretCell(o, v, this.p, b, sgr);
    }
    this.fit(o, 1, false);
    o[this.p++] = 0x7c;
    out.p = this.endLine(o);
  }

  /**
   * Before a piece `w` columns wide: when it does not fit the visual row, ends that row and starts
   * a further one. Returns false when the piece is blank and dropped there (it would only indent).
   */
  private fit(o: Uint8Array, w: number, blank: boolean): boolean {
    if (this.col + w <= this.columns) {
      this.col += w;
      return true;
    }
    let p = this.endLine(o);
    this.lineStart = p;
    p = spaces(o, p, this.offsetDigits);
    o[p++] = 0x2b;
    o[p++] = 0x20;
    this.p = p;
    this.col = this.offsetDigits + 2;
    if (blank) return false;
    this.col += w;
    return true;
  }

  /** Ends the visual row being cut: its trailing spaces dropped (as trimEnd), then LF; returns the end. */
  private endLine(o: Uint8Array): number {
    let p = this.p;
    while (p > this.lineStart && o[p - 1] === 0x20) p--;
    o[p++] = 0x0a;
    return p;
  }
}

/** Writes `count` spaces into `o` at `p`. */
function spaces(o: Uint8Array, p: number, count: number): number {
  for (let j = 0; j < count; j++) o[p++] = 0x20;
  return p;
}

/** The hex cell of byte `b` (`1b`) in colour `sgr` (0: none) at `p`; returns the end. */
function hexCell(o: Uint8Array, v: DataView, p: number, b: number, sgr: number): number {
  if (sgr !== 0) p = paint(v, p, sgr);
  o[p++] = HEX_DIGIT[b >> 4];
  o[p++] = HEX_DIGIT[b & 15];
  return sgr !== 0 ? reset(v, p) : p;
}

/** The caret cell of ASCII byte `b` (`^[`, `a`, `\|`) in colour `sgr` (0: none) at `p`; returns the end. */
function caretCell(o: Uint8Array, v: DataView, p: number, b: number, sgr: number): number {
  if (sgr !== 0) p = paint(v, p, sgr);
  o[p++] = CARET_FIRST[b];
  if (CARET_LENGTH[b] === 2) o[p++] = CARET_SECOND[b];
  return sgr !== 0 ? reset(v, p) : p;
}

/** Writes colour `sgr` (an index into SGRS) at `p` through `v`, the output's view; returns the end. */
function paint(v: DataView, p: number, sgr: number): number {
  v.setInt32(p, SGR_WORDS[2 * sgr], true);
  v.setInt32(p + 4, SGR_WORDS[2 * sgr + 1], true);
  return p + SGR_LENGTH[sgr];
}

/** Writes the reset at `p` through `v`; returns the end. */
function reset(v: DataView, p: number): number {
  v.setInt32(p, RESET_WORD, true);
  return p + 4;
}

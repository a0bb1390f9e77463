import { GrowingSink, type ByteSink } from '../../shared/hex/sink';

/**
 * Fitting Airlock's own lines to the terminal. A line wider than the terminal wraps, and the
 * wrapped rest starts a visual row that Airlock did not start: if that rest is a command line, a
 * path or caret text, it could look like one of Airlock's lines. So every line is cut into rows
 * that fit, and every row after the first begins with a continuation prefix that no untrusted
 * text can start a row with.
 */

/**
 * Display columns of one character, counted conservatively (1 for ASCII, 2 for anything else),
 * so a cut comes early rather than late. Callers pass terminal-safe text (no controls).
 */
export function charWidth(ch: string): number {
  return ch.charCodeAt(0) < 0x80 ? 1 : 2;
}

/**
 * Display columns of a terminal-safe string, conservatively (see {@link charWidth}). Airlock's
 * own colour (`ESC [ … m`, see {@link sgrLength}) takes none.
 */
export function textWidth(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) {
      const sgr = u === 0x1b ? sgrLength(s, i) : 0;
      if (sgr > 0) i += sgr - 1;
      else w++;
      continue;
    }
    // One character, one or two code units: 2 columns (as charWidth of it).
    w += 2;
    if (u >= 0xd800 && u <= 0xdbff) {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v <= 0xdfff) i++;
    }
  }
  return w;
}

/**
 * The length of an SGR sequence (`ESC [`, digits and `;`, `m`) at `s[i]`, or 0. Terminal-safe
 * text holds no ESC of its own (input's is shown as `^[`), so one there is Airlock's own colour
 * around a word, which a terminal does not draw: it takes no columns and is never cut.
 */
export function sgrLength(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x1b || s.charCodeAt(i + 1) !== 0x5b) return 0;
  let j = i + 2;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if ((c < 0x30 || c > 0x39) && c !== 0x3b) break;
  }
  return s.charCodeAt(j) === 0x6d ? j + 1 - i : 0;
}

/**
 * {@link textWidth} of the UTF-8 text `buf[start..end)`, counted on its bytes (no string made):
 * 1 per ASCII byte, 2 per other character (at its lead byte; continuation bytes none), none for
 * Airlock's own SGR (see {@link sgrLength}). The text must be well-formed UTF-8.
 */
export function utf8Width(buf: Uint8Array, start: number, end: number): number {
  let w = 0;
  for (let k = start; k < end; k++) {
    const b = buf[k];
    const sgr = b === 0x1b ? utf8SgrLength(buf, k, end) : 0;
    if (sgr > 0) {
      k += sgr - 1;
      continue;
    }
    if (b < 0x80) w++;
    else if (b >= 0xc0) w += 2;
  }
  return w;
}

/** {@link sgrLength} on bytes: the length of Airlock's own SGR at `buf[i]`, ending before `end`, or 0. */
export function utf8SgrLength(buf: Uint8Array, i: number, end: number): number {
  if (buf[i] !== 0x1b || i + 1 >= end || buf[i + 1] !== 0x5b) return 0;
  let j = i + 2;
  while (j < end && ((buf[j] >= 0x30 && buf[j] <= 0x39) || buf[j] === 0x3b)) j++;
  return j < end && buf[j] === 0x6d ? j + 1 - i : 0;
}

/** A piece of a row: the text to print (may carry Airlock's own SGR) and its display width. */
export interface Piece {
  readonly text: string;
  readonly width: number;
}

/**
 * Lays pieces out into rows of at most `columns` columns: the first row as it is, each further
 * row beginning with `continuation`. A piece is never split; one wider than a whole row gets a
 * row of its own (callers keep pieces small: a word, a byte, a cell).
 */
export function fitPieces(pieces: readonly Piece[], columns: number, continuation: string): string[] {
  const out = new GrowingSink();
  const fitter = new RowFitter(out, columns, Buffer.from(continuation, 'utf8'), textWidth(continuation));
  for (const p of pieces) {
    const text = Buffer.from(p.text, 'utf8');
    fitter.piece(text, 0, text.length, p.width, p.text.trim() === '');
  }
  fitter.end();
  return rowsOf(out, fitter.ends);
}

/**
 * Cuts one terminal-safe line (no LF) into rows of at most `columns` columns, breaking after
 * spaces where it can and inside a word only when the word alone is too wide; rows after the
 * first begin with `continuation`.
 */
export function wrapLine(line: string, columns: number, continuation: string): string[] {
  if (columns === Infinity || textWidth(line) <= columns) return [line];
  const out = new GrowingSink();
  const text = Buffer.from(line, 'utf8');
  const ends = wrapUtf8(text, 0, text.length, columns, Buffer.from(continuation, 'utf8'), out);
  return rowsOf(out, ends);
}

/**
 * {@link wrapLine} on the UTF-8 line `src[start..end)`, its rows written to `out`, each ended by
 * LF; returns where each row ends in `out` (before its LF). The one definition of the cut: a line
 * wider than `columns` is cut into tokens (a word and the spaces after it, or spaces at the start),
 * each a piece when it fits a row (`columns` less the continuation's width, at least 8), else one
 * piece per character (Airlock's colour whole, with no width), laid out as {@link RowFitter} does.
 * With `placed`, `placed[k]` is set to where source byte `k` was written in `out.buf` (a space at
 * a row's end may be dropped after).
 */
export function wrapUtf8(src: Uint8Array, start: number, end: number, columns: number, continuation: Uint8Array, out: ByteSink, placed?: Int32Array): number[] {
  const fitter = new RowFitter(out, columns, continuation, utf8Width(continuation, 0, continuation.length), placed);
  if (columns === Infinity || utf8Width(src, start, end) <= columns) {
    fitter.piece(src, start, end, 0, false);
    fitter.end(false);
    return fitter.ends;
  }
  const room = Math.max(8, columns - fitter.indent);
  fitter.columns = Math.max(columns, room);
  for (let i = start; i < end; ) {
    const from = i;
    while (i < end && spaceAt(src, i, end) === 0) i += charLength(src[i]);
    const blank = i === from;
    for (let s = spaceAt(src, i, end); s > 0; s = spaceAt(src, i, end)) i += s;
    const w = utf8Width(src, from, i);
    if (w <= room) {
      fitter.piece(src, from, i, w, blank);
      continue;
    }
    for (let j = from; j < i; ) {
      const sgr = utf8SgrLength(src, j, i);
      const n = sgr > 0 ? sgr : Math.min(charLength(src[j]), i - j);
      fitter.piece(src, j, j + n, sgr > 0 ? 0 : src[j] < 0x80 ? 1 : 2, sgr === 0 && spaceAt(src, j, i) > 0);
      j += n;
    }
  }
  fitter.end();
  return fitter.ends;
}

/**
 * Lays pieces of UTF-8 text into rows of at most `columns` columns: a piece that does not fit
 * where the row stands starts a further row, which begins with the continuation (a blank piece,
 * only spaces, is dropped there); every row ends without its trailing spaces, and with LF.
 */
export class RowFitter {
  /** Where each row ends in the output (before its LF). */
  readonly ends: number[] = [];
  readonly indent: number;
  private rowStart: number;
  private width = 0;
  private empty = true;

  /** With `placed`, each source byte's position in the output is put there (see wrapUtf8). */
  constructor(private readonly out: ByteSink, public columns: number, private readonly continuation: Uint8Array, indent: number, private readonly placed?: Int32Array) {
    this.rowStart = out.p;
    this.indent = indent;
  }

  piece(src: Uint8Array, from: number, to: number, w: number, blank: boolean): void {
    const out = this.out;
    if (!this.empty && this.width + w > this.columns) {
      this.end();
      out.reserve(this.continuation.length);
      out.buf.set(this.continuation, out.p);
      out.p += this.continuation.length;
      this.width = this.indent;
      if (blank) return;
    }
    out.reserve(to - from);
    const buf = out.buf;
    let p = out.p;
    if (this.placed !== undefined) for (let k = from; k < to; k++) this.placed[k] = p + k - from;
    for (let k = from; k < to; k++) buf[p++] = src[k];
    out.p = p;
    this.width += w;
    this.empty = false;
  }

  /** Ends the row (its trailing spaces dropped, unless `trim` is false). */
  end(trim = true): void {
    const out = this.out;
    if (trim) for (let s = spaceBefore(out.buf, out.p, this.rowStart); s > 0; s = spaceBefore(out.buf, out.p, this.rowStart)) out.p -= s;
    this.ends.push(out.p);
    out.reserve(1);
    out.buf[out.p++] = 0x0a;
    this.rowStart = out.p;
  }
}

/** Bytes of the UTF-8 character whose first byte is `b` (1 for a stray continuation byte). */
function charLength(b: number): number {
  return b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
}

/**
 * The length of the white space character (as JavaScript's `\s` and `trim` take it) that starts
 * at `buf[i]`, ending by `end`, or 0.
 */
function spaceAt(buf: Uint8Array, i: number, end: number): number {
  if (i >= end) return 0;
  const b = buf[i];
  if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return 1;
  if (b < 0xc2) return 0;
  if (b === 0xc2) return i + 1 < end && buf[i + 1] === 0xa0 ? 2 : 0;
  if (i + 2 >= end) return 0;
  const c = buf[i + 1];
  const d = buf[i + 2];
  const three =
    (b === 0xe1 && c === 0x9a && d === 0x80) || // U+1680
    (b === 0xe2 && c === 0x80 && (d <= 0x8a || d === 0xa8 || d === 0xa9 || d === 0xaf)) || // U+2000–200A, U+2028, U+2029, U+202F
    (b === 0xe2 && c === 0x81 && d === 0x9f) || // U+205F
    (b === 0xe3 && c === 0x80 && d === 0x80) || // U+3000
    (b === 0xef && c === 0xbb && d === 0xbf); // U+FEFF
  return three ? 3 : 0;
}

/** The length of the white space character that ends at `buf[p - 1]`, starting at or after `from`, or 0. */
function spaceBefore(buf: Uint8Array, p: number, from: number): number {
  for (let n = 1; n <= 3; n++) if (p - n >= from && spaceAt(buf, p - n, p) === n) return n;
  return 0;
}

/** The rows written to `out` that end at `ends`, each after the LF of the one before (the string forms of the fitting). */
function rowsOf(out: GrowingSink, ends: readonly number[]): string[] {
  const text = Buffer.from(out.buf.buffer, 0, out.p);
  return ends.map((e, k) => text.toString('utf8', k === 0 ? 0 : ends[k - 1] + 1, e));
}

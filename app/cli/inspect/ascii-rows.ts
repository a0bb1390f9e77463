import { formatHexRows } from '../../../shared/hex';
import { writeHexNumber } from '../../../shared/hex/row-bytes';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../../shared/parser';
import type { ByteBuffer } from './bytes-out';
import { cellSgr } from './paint';

/** Bytes per hex group: a group starts with an extra space (as in formatRow). */
const GROUP_SIZE = 8;

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

/** An ASCII byte's caret cell as formatRow prints it (`|` as `\|`), as bytes, and its colour outside any span. */
interface AsciiCell {
  readonly text: Uint8Array;
  readonly sgr: number;
}

/** The cells of the 128 ASCII bytes, taken from formatHexRows itself: each is its own cell whatever surrounds it. */
const ASCII_CELLS: readonly AsciiCell[] = Array.from({ length: 0x80 }, (_, b) => {
  const [cell] = formatHexRows(Uint8Array.of(b), 0)[0].cells;
  return { text: encode(cell.text === '|' ? '\\|' : cell.text), sgr: sgrNumber(cellSgr(cell.kind, cell.text, undefined)) };
});

/** The colour of a byte in a span of each class (the same for every cell kind). */
const SPAN_SGR: readonly number[] = SPAN_CLASS_NAMES.map((_, cls) => sgrNumber(cellSgr('printable', 'x', cls as SpanClass)));

const RESET = encode('\x1b[0m');
const HEX_DIGITS = encode('0123456789abcdef');

/** Columns of the row's fixed text for a row of `width` bytes: offset, the hex column, `  |` and `|`. */
function fixedColumns(offsetDigits: number, width: number): number {
  return offsetDigits + width * 3 + Math.ceil(width / GROUP_SIZE) + 3 + 1;
}

/**
 * Rows of ASCII bytes (0x00–0x7F) for a dump on a terminal or in colour, written as bytes: the
 * text formatRow makes of them (cells coloured by span and kind, `|` escaped) when the row fits
 * the terminal. An ASCII byte's cell depends on nothing around it, so a table of the 128 serves;
 * formatRow stays the definition (a property test holds the dump to it), and rows with any other
 * byte, or too wide for the terminal, are its.
 */
export class AsciiRowWriter {
  /** Per byte of the row being written: its span's class, or -1. */
  private readonly spanOf: Int8Array;

  constructor(private readonly width: number, private readonly offsetDigits: number, private readonly color: boolean, private readonly columns: number) {
    this.spanOf = new Int8Array(width);
  }

  /**
   * Writes the row `buf[i..i+n)` (stream offset `at`) and LF into `out`, coloured by `spans`
   * (the first that holds a byte colours it, as formatRow's spanAt), and returns true; returns
   * false and writes nothing when a byte is not ASCII or the row is wider than the terminal.
   */
  write(out: ByteBuffer, buf: Uint8Array, i: number, n: number, at: number, spans: readonly { start: number; end: number; cls: SpanClass }[]): boolean {
    const { width, color, spanOf } = this;
    const digits = at < 0x1_0000_0000 ? this.offsetDigits : Math.max(this.offsetDigits, at.toString(16).length);
    let used = fixedColumns(digits, width);
    for (let k = i; k < i + n; k++) {
      const b = buf[k];
      if (b >= 0x80) return false;
      used += ASCII_CELLS[b].text.length;
    }
    if (used > this.columns) return false;
    if (color) {
      spanOf.fill(-1);
      for (const g of spans) {
        const from = Math.max(g.start, at) - at;
        const to = Math.min(g.end, at + n) - at;
        for (let x = from; x < to; x++) if (spanOf[x] < 0) spanOf[x] = g.cls;
      }
    }
    // At most: the offset, per byte two painted cells (two colours of up to 12 bytes, 4 text bytes) and separators.
    out.reserve(digits + width * 40 + 16);
    const o = out.buf;
    let p = writeHexNumber(o, out.p, at, this.offsetDigits);
    for (let k = 0; k < width; k++) {
      o[p++] = 0x20;
      if (k % GROUP_SIZE === 0) o[p++] = 0x20;
      if (k < n) {
        const b = buf[i + k];
        const sgr = this.sgrOf(b, k);
        if (sgr !== 0) p = copy(o, p, SGRS[sgr]);
        o[p++] = HEX_DIGITS[b >> 4];
        o[p++] = HEX_DIGITS[b & 15];
        if (sgr !== 0) p = copy(o, p, RESET);
      } else {
        o[p++] = 0x20;
        o[p++] = 0x20;
      }
    }
    o[p++] = 0x20;
    o[p++] = 0x20;
    o[p++] = 0x7c;
    for (let k = 0; k < n; k++) {
      const b = buf[i + k];
      const sgr = this.sgrOf(b, k);
      if (sgr !== 0) p = copy(o, p, SGRS[sgr]);
      p = copy(o, p, ASCII_CELLS[b].text);
      if (sgr !== 0) p = copy(o, p, RESET);
    }
    o[p++] = 0x7c;
    o[p++] = 0x0a;
    out.p = p;
    return true;
  }

  /** The colour (an index into SGRS, 0 for none) of byte `b` at row position `k`: its span's, else its cell's. */
  private sgrOf(b: number, k: number): number {
    if (!this.color) return 0;
    const span = this.spanOf[k];
    return span >= 0 ? SPAN_SGR[span] : ASCII_CELLS[b].sgr;
  }
}

/** Copies the few bytes of `bytes` into `o` at `p` (a loop: cheaper than a call to set for so few). */
function copy(o: Uint8Array, p: number, bytes: Uint8Array): number {
  for (let j = 0; j < bytes.length; j++) o[p++] = bytes[j];
  return p;
}

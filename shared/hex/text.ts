import { codeOfCell, formatCells } from './cells';
import { RowWriter } from './row-writer';
import { GrowingSink } from './sink';
import { DEFAULT_ROW_WIDTH, type HexRow } from './rows';
import { utf8Text } from './utf8';

/** Options for {@link formatRowText}. */
export interface RowTextOptions {
  /**
   * Bytes per full row, so a short last row is padded and its caret column lines up with the
   * rows above (default: 16, or the row's length if longer).
   */
  readonly width?: number;
  /** Minimum hex digits of the offset (default 8); longer offsets are never cut. */
  readonly offsetDigits?: number;
}

/** Row writers by layout (each keeps its caches of cell text). */
const writers = new Map<string, RowWriter>();

/**
 * One plain-text line for a row from {@link formatHexRows}, as RowWriter writes it:
 * `00000010  1b 5b 33 31 6d 46 41 49  4c 1b 5b 30 6d 0a 6f 6b  |^[[31mFAIL^[[0m^Jok|`.
 * The line is inert: no C0, DEL, C1, invisible, bidi or right-to-left character, whatever bytes
 * the row came from, so it is safe to print to a terminal or paste anywhere.
 */
export function formatRowText(row: HexRow, options: RowTextOptions = {}): string {
  const width = options.width ?? Math.max(DEFAULT_ROW_WIDTH, row.hex.length);
  const offsetDigits = options.offsetDigits ?? 8;
  const key = `${width}/${offsetDigits}`;
  let writer = writers.get(key);
  if (writer === undefined) writers.set(key, (writer = new RowWriter({ width, offsetDigits })));
  const n = row.hex.length;
  const bytes = Uint8Array.from(row.hex, (h) => parseInt(h, 16));
  const codes = Int32Array.from(row.cells, (cell, k) => codeOfCell(cell, bytes[k]));
  const out = new GrowingSink();
  writer.write(out, row.offset, bytes, 0, n, codes, 0);
  // (Without the LF that ends the row.)
  return utf8Text(out.buf, 0, out.p - 1);
}

/**
 * The caret column of `bytes` as one line, treating them as a complete stream (a sequence cut at
 * either end is invalid, not partial): for short snippets such as `^[]52;c;aGk=^G`. Inert, and
 * uses exactly the cell notation of {@link formatHexRows}.
 */
export function caretString(bytes: Uint8Array): string {
  let text = '';
  for (const cell of formatCells(bytes, 0, { lookahead: new Uint8Array(0) })) text += cell.text;
  return text;
}

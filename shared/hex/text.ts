import type { CellKind } from './cell';
import { formatCells } from './cells';
import { DEFAULT_ROW_WIDTH, type HexRow } from './rows';

/** Bytes per hex group; an extra space between groups helps the eye count columns. */
const GROUP_SIZE = 8;

/** Options for {@link formatRowText}. */
export interface RowTextOptions {
  /**
   * Bytes per full row, so a short last row is padded and its caret column lines up with the
   * rows above (default: 16, or the row's length if longer).
   */
  readonly width?: number;
  /** Minimum hex digits of the offset (default 8); longer offsets are never cut. */
  readonly offsetDigits?: number;
  /**
   * Wraps the text of each hex cell and caret cell, e.g. to colour notation on a TTY. The line is
   * only as inert as what `paint` returns; omit it for plain text.
   */
  readonly paint?: (text: string, kind: CellKind) => string;
}

/**
 * One plain-text line for a row from {@link formatHexRows}:
 * `00000010  1b 5b 33 31 6d 46 41 49  4c 1b 5b 30 6d 0a 6f 6b  |^[[31mFAIL^[[0m^Jok|`.
 * Without `paint` the line is inert: no C0, DEL, C1, invisible, bidi or right-to-left character,
 * whatever bytes the row came from, so it is safe to print to a terminal or paste anywhere.
 */
export function formatRowText(row: HexRow, options: RowTextOptions = {}): string {
  const width = options.width ?? Math.max(DEFAULT_ROW_WIDTH, row.hex.length);
  const paint = options.paint;
  let line = row.offset.toString(16).padStart(options.offsetDigits ?? 8, '0');
  for (let k = 0; k < Math.max(width, row.hex.length); k++) {
    line += k % GROUP_SIZE === 0 ? '  ' : ' ';
    if (k >= row.hex.length) line += '  ';
    else line += paint === undefined ? row.hex[k] : paint(row.hex[k], row.cells[k].kind);
  }
  line += '  |';
  for (const cell of row.cells) line += paint === undefined ? cell.text : paint(cell.text, cell.kind);
  return line + '|';
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

import type { Cell, HexRow } from '../../../shared/hex';
import type { SpanClass } from '../../../shared/parser';
import { charWidth, fitPieces, textWidth, type Piece } from '../../node/fit';
import { cellSgr, painted } from './paint';

/** Bytes per hex group; an extra space between groups helps the eye count columns. */
export const GROUP_SIZE = 8;

/** How `inspect` lays out a row. */
export interface RowLayout {
  /** Bytes per full row (a short last row is padded so its caret column lines up). */
  readonly width: number;
  readonly offsetDigits: number;
  /** Colour with Airlock's own SGR (a TTY); plain text otherwise. */
  readonly color: boolean;
  /** Terminal width, or Infinity when output is not a terminal (rows then stay whole). */
  readonly columns: number;
  /** The span class of the byte at `offset`, if it lies in one (for colouring a span's whole extent). */
  readonly spanAt: (offset: number) => SpanClass | undefined;
}

/**
 * One hex row as printed: `00000010  1b 5b 33 …  |^[[31mFAIL|`. A row wider than the terminal
 * (multi-byte cells like `<U+202E>`, wide --width) is cut into visual rows, each further one
 * beginning with `+` under the offset column, so the terminal never wraps caret text (which shows
 * printable input as it is) onto a row of its own. A literal `|` in the caret column is `\|`, so
 * input cannot fake the column's end.
 */
export function formatRow(row: HexRow, layout: RowLayout): string[] {
  if (layout.columns === Infinity && !layout.color) return [plainRow(row, layout)];
  const sgr = rowSgr(row, layout);
  const line = wholeRow(row, layout, sgr);
  return line !== null ? [line] : cutRow(row, layout, sgr);
}

/**
 * The definition of a painted or cut row: its pieces, fitted to the terminal by {@link fitPieces}.
 * (Exported for the test that holds {@link formatRow}'s one-line path to it.)
 */
export function cutRow(row: HexRow, layout: RowLayout, sgr: readonly string[] = rowSgr(row, layout)): string[] {
  const pieces: Piece[] = [];
  const offset = row.offset.toString(16).padStart(layout.offsetDigits, '0');
  pieces.push({ text: offset, width: offset.length });
  for (let k = 0; k < Math.max(layout.width, row.hex.length); k++) {
    const gap = k % GROUP_SIZE === 0 ? '  ' : ' ';
    pieces.push({ text: gap, width: gap.length });
    pieces.push(k < row.hex.length ? { text: painted(row.hex[k], sgr[k]), width: 2 } : { text: '  ', width: 2 });
  }
  pieces.push({ text: '  ', width: 2 }, { text: '|', width: 1 });
  row.cells.forEach((cell, k) => {
    const text = cell.text === '|' ? '\\|' : cell.text;
    pieces.push({ text: painted(text, sgr[k]), width: cellWidth(cell.kind, text) });
  });
  pieces.push({ text: '|', width: 1 });
  if (layout.columns === Infinity) return [pieces.map((p) => p.text).join('')];
  return fitPieces(pieces, layout.columns, `${' '.repeat(layout.offsetDigits)}+ `);
}

/** The SGR of each cell of `row` ('' each without colour), in one array reused from row to row. */
const sgrOfCell: string[] = [];
function rowSgr(row: HexRow, layout: RowLayout): readonly string[] {
  const { cells } = row;
  sgrOfCell.length = cells.length;
  for (let k = 0; k < cells.length; k++) sgrOfCell[k] = layout.color ? cellSgr(cells[k].kind, cells[k].text, layout.spanAt(row.offset + k)) : '';
  return sgrOfCell;
}

/**
 * The row as one line when it fits the terminal (always when there is none), built as one string
 * as {@link cutRow} would join its pieces (without an object per piece); null when it must be cut.
 */
function wholeRow(row: HexRow, layout: RowLayout, sgr: readonly string[]): string | null {
  const { hex, cells } = row;
  let line = row.offset.toString(16).padStart(layout.offsetDigits, '0');
  let width = line.length;
  for (let k = 0; k < Math.max(layout.width, hex.length); k++) {
    line += k % GROUP_SIZE === 0 ? '  ' : ' ';
    line += k < hex.length ? painted(hex[k], sgr[k]) : '  ';
    width += k % GROUP_SIZE === 0 ? 4 : 3;
  }
  line += '  |';
  width += 3;
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k];
    const text = cell.text === '|' ? '\\|' : cell.text;
    line += painted(text, sgr[k]);
    width += cellWidth(cell.kind, text);
    if (width > layout.columns) return null;
  }
  line += '|';
  return width + 1 <= layout.columns ? line : null;
}

/** Display columns of a caret cell's text (a UTF-8 continuation cell shows one character). */
function cellWidth(kind: Cell['kind'], text: string): number {
  return kind === 'utf8-cont' ? charWidth(text) : textWidth(text);
}

/** The common case (not a terminal, no colour) built as one string: no pieces, little garbage. */
function plainRow(row: HexRow, layout: RowLayout): string {
  let line = row.offset.toString(16).padStart(layout.offsetDigits, '0');
  for (let k = 0; k < Math.max(layout.width, row.hex.length); k++) {
    line += k % GROUP_SIZE === 0 ? '  ' : ' ';
    line += k < row.hex.length ? row.hex[k] : '  ';
  }
  line += '  |';
  for (const cell of row.cells) line += cell.text === '|' ? '\\|' : cell.text;
  return `${line}|`;
}

import type { Cell, HexRow } from '../../../shared/hex';
import type { SpanClass } from '../../../shared/parser';
import { charWidth, textWidth } from '../../node/fit';
import { cellSgr, RESET } from './paint';

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
  /**
   * The colour of continuation cells at the row's start: their character's lead cell's, in the
   * row before ({@link kindSgrs} of it, last cell); '' (none) for the first row shown.
   */
  readonly leadSgr?: string;
}

/**
 * One hex row as printed: `00000010  1b 5b 33 …  |^[[31mFAIL|`. A row wider than the terminal
 * (multi-byte cells like `<U+202E>`, wide --width) is cut into visual rows, each further one
 * beginning with `+` under the offset column, so the terminal never wraps caret text (which shows
 * printable input as it is) onto a row of its own. A literal `|` in the caret column is `\|`, so
 * input cannot fake the column's end.
 *
 * In colour, each byte's hex and caret cell take its colour (its span's, else its cell kind's:
 * cellSgr; a continuation cell's kind takes its lead's: a character is one colour over all its
 * bytes, {@link kindSgrs}), painted by runs: consecutive cells of one colour are one stretch of
 * it, the gaps between their hex cells included (a string's bytes show as one band), so a colour
 * is set where a run begins and reset where it ends, or where the row is cut.
 */
export function formatRow(row: HexRow, layout: RowLayout): string[] {
  if (layout.columns === Infinity && !layout.color) return [plainRow(row, layout)];
  return cutRow(row, layout);
}

/** A piece of a row: its text and columns, its colour ('' none), and whether it is blank (dropped where a cut falls). */
interface RowPiece {
  readonly text: string;
  readonly width: number;
  readonly colour: string;
  readonly blank: boolean;
}

/**
 * The definition of a painted or cut row: its pieces (the offset, each gap and hex cell, `  `,
 * the bars, each caret cell), laid into visual rows that fit the terminal by {@link fitRowPieces}.
 */
export function cutRow(row: HexRow, layout: RowLayout, sgr: readonly string[] = rowSgr(row, layout)): string[] {
  const pieces: RowPiece[] = [];
  const piece = (text: string, width: number, colour = '', blank = false): void => {
    pieces.push({ text, width, colour, blank });
  };
  const offset = row.offset.toString(16).padStart(layout.offsetDigits, '0');
  piece(offset, offset.length);
  const n = row.hex.length;
  for (let k = 0; k < Math.max(layout.width, n); k++) {
    const gap = k % GROUP_SIZE === 0 ? '  ' : ' ';
    // A gap inside a run of one colour is of that colour.
    piece(gap, gap.length, k > 0 && k < n && sgr[k] !== '' && sgr[k] === sgr[k - 1] ? sgr[k] : '', true);
    if (k < n) piece(row.hex[k], 2, sgr[k]);
    else piece('  ', 2, '', true);
  }
  piece('  ', 2, '', true);
  piece('|', 1);
  row.cells.forEach((cell, k) => {
    const text = cell.text === '|' ? '\\|' : cell.text;
    piece(text, cellWidth(cell.kind, text), sgr[k], text === ' ' && sgr[k] === '');
  });
  piece('|', 1);
  return fitRowPieces(pieces, layout.columns, rowContinuation(layout.offsetDigits));
}

/** What begins each further visual row of a row cut to the terminal: under the offset column, `+ `. */
export function rowContinuation(offsetDigits: number): string {
  return `${' '.repeat(offsetDigits)}+ `;
}

/**
 * Lays a row's pieces out into visual rows of at most `columns` columns, as fitPieces does (a
 * piece that does not fit starts a further row beginning with `continuation`; a blank piece is
 * dropped there; a row ends without its trailing spaces), setting each colour where a piece of it
 * follows one of another and resetting it where it ends, and at the end of each visual row: a
 * further row begins uncoloured. Spaces at the end of a row that are inside a colour (a gap in a
 * run) stay.
 */
function fitRowPieces(pieces: readonly RowPiece[], columns: number, continuation: string): string[] {
  const rows: string[] = [];
  const indent = textWidth(continuation);
  let row = '';
  let width = 0;
  let empty = true;
  let open = '';
  const close = (): void => {
    if (open === '') row = row.trimEnd();
    else row += RESET;
    open = '';
  };
  for (const p of pieces) {
    if (!empty && width + p.width > columns) {
      close();
      rows.push(row);
      row = continuation;
      width = indent;
      if (p.blank) continue;
    }
    if (p.colour !== open) {
      if (open !== '') row += RESET;
      row += p.colour;
      open = p.colour;
    }
    row += p.text;
    width += p.width;
    empty = false;
  }
  close();
  rows.push(row);
  return rows;
}

/**
 * The SGR of each cell of `row` outside spans: its kind's (cellSgr), but a UTF-8 continuation
 * cell's is its lead cell's (`leadSgr` at the row's start: the lead is in the row before), so a
 * character shown as notation (`<U+0627>·`) is one run of colour, in the hex column too.
 */
export function kindSgrs(row: HexRow, leadSgr = ''): string[] {
  const sgrs: string[] = [];
  row.cells.forEach((cell, k) => {
    sgrs.push(cell.kind === 'utf8-cont' ? (k === 0 ? leadSgr : sgrs[k - 1]) : cellSgr(cell.kind, cell.text, undefined));
  });
  return sgrs;
}

/** The SGR of each cell of `row` ('' each without colour): its span's, else {@link kindSgrs}'. */
function rowSgr(row: HexRow, layout: RowLayout): readonly string[] {
  if (!layout.color) return row.cells.map(() => '');
  const kinds = kindSgrs(row, layout.leadSgr);
  return row.cells.map((cell, k) => {
    const span = layout.spanAt(row.offset + k);
    return span === undefined ? kinds[k] : cellSgr(cell.kind, cell.text, span);
  });
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

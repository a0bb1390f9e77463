/**
 * Platform-neutral hex and caret formatting for Airlock's byte viewers: the `airlock inspect` CLI
 * and the renderer's virtualized hex view. Nothing here touches Node, the DOM or Electron.
 *
 * Caret column notation, one cell per byte (see {@link CellKind} and {@link splitCaretText}):
 *
 *   `A` ` `             printable ASCII and space as themselves, except `\\` `\^` `\<`
 *   `^@`–`^_`, `^?`     C0 controls (`^[` ESC, `^M` CR, `^J` LF, `^I` TAB) and DEL
 *   `<CSI>`             C1 by its ISO 6429 name: raw 0x80–0x9F no UTF-8 sequence claims, or C2 80–9F
 *   `€··`               a well-formed character in its lead cell, `·` for each further byte
 *   `<U+202E>··`        a character not safe to draw: invisible, bidi, format, combining,
 *                       right-to-left, non-ASCII space, unassigned, private use, look-alikes
 *   `\xff`              a byte of ill-formed UTF-8 (maximal subparts, Unicode §3.9)
 *   `<e2?>`             a byte cut by the window edge whose meaning depends on unseen bytes
 *
 * The text of a caret column is uniquely decodable back into cells, and contains no control,
 * invisible, bidi or right-to-left character, so it is inert on any terminal.
 */
export { CELL_KINDS, type Cell, type CellKind } from './cell';
export { CellCode, MAX_NEIGHBOUR_BYTES, cellOfCode, decodeCells, formatCells, type ByteWindow } from './cells';
export { splitCaretText } from './grammar';
export { ASCII_CELLS, CONTINUATION_MARK, HEX_BYTE, caretForByte } from './notation';
export { RowWriter, rowContinuation, type RowPaint, type RowWriterOptions } from './row-writer';
export { GrowingSink, type ByteSink } from './sink';
export { DEFAULT_ROW_WIDTH, MAX_ROW_WIDTH, formatHexRows, type HexRow, type HexRowOptions } from './rows';
export { caretString, formatRowText, type RowTextOptions } from './text';

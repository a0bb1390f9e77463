/**
 * Platform-neutral hex and caret formatting for Airlock's byte viewers: the `airlock inspect` CLI
 * and the renderer's virtualized hex view. Nothing here touches Node, the DOM or Electron.
 */
export { CELL_KINDS, type Cell, type CellKind } from './cell';
export { MAX_NEIGHBOUR_BYTES, formatCells, type ByteWindow } from './cells';
export { splitCaretText } from './grammar';
export { CONTINUATION_MARK, HEX_BYTE, caretForByte } from './notation';
export { DEFAULT_ROW_WIDTH, MAX_ROW_WIDTH, formatHexRows, type HexRow, type HexRowOptions } from './rows';
export { caretString, formatRowText, type RowTextOptions } from './text';

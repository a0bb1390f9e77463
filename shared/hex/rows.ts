import type { Cell } from './cell';
import { assertWindow, cellOfCode, decodeCells, type ByteWindow } from './cells';
import { HEX_BYTE } from './notation';

/** Bytes per row when the caller does not choose. */
export const DEFAULT_ROW_WIDTH = 16;

/** Upper bound on the row width: a sanity limit against a width taken from untrusted settings. */
export const MAX_ROW_WIDTH = 4096;

/** One row of a hex view: `hex[k]` and `cells[k]` both describe the byte at `offset + k`. */
export interface HexRow {
  /** Absolute stream offset of the row's first byte. */
  readonly offset: number;
  /** Two lowercase hex digits per byte. */
  readonly hex: readonly string[];
  /** Caret-column cells, one per byte (shared frozen objects). */
  readonly cells: readonly Cell[];
}

/** Options for {@link formatHexRows}. */
export interface HexRowOptions extends ByteWindow {
  /** Bytes per row (default 16). Rows start at `baseOffset`, `baseOffset + width`, … */
  readonly width?: number;
}

/**
 * Splits the window `bytes`, which starts at stream offset `baseOffset`, into hex rows. A
 * character that crosses a row boundary shows in the row of its lead byte; the next row starts
 * with its continuation cells. Pass `context`/`lookahead` when the window is a page of a larger
 * stream, so characters cut by the page edges decode as in the whole stream.
 *
 * Linear in `bytes.length`; per row it allocates the row and its two arrays, nothing per byte
 * (lead cells of multi-byte characters come from a bounded cache).
 *
 * @throws RangeError for a width outside 1–4096, a bad `baseOffset`, or a context that reaches
 *   before the stream's start.
 */
export function formatHexRows(bytes: Uint8Array, baseOffset: number, options: HexRowOptions = {}): HexRow[] {
  const width = options.width ?? DEFAULT_ROW_WIDTH;
  if (!Number.isInteger(width) || width < 1 || width > MAX_ROW_WIDTH) {
    throw new RangeError(`width must be an integer in 1–${MAX_ROW_WIDTH}, got ${width}`);
  }
  assertWindow(baseOffset, options);
  const codes = new Int32Array(bytes.length);
  decodeCells(bytes, baseOffset, options, codes, 0);
  const rows: HexRow[] = new Array<HexRow>(Math.ceil(bytes.length / width));
  for (let r = 0, start = 0; start < bytes.length; r++, start += width) {
    const end = Math.min(start + width, bytes.length);
    const hex = new Array<string>(end - start);
    const cells = new Array<Cell>(end - start);
    for (let i = start; i < end; i++) {
      hex[i - start] = HEX_BYTE[bytes[i]];
      const b = bytes[i];
      cells[i - start] = cellOfCode(b < 0x80 ? b : codes[i]);
    }
    rows[r] = { offset: baseOffset + start, hex, cells };
  }
  return rows;
}

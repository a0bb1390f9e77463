import { OffsetMap, SegmentKind } from './offset-map';

/** Cells one emulated line may hold; past it the line is emitted as is and a new one begins. */
export const MAX_LINE_CELLS = 64 * 1024;

/** Columns between tab stops, as on a VT100 with default stops. */
export const TAB_WIDTH = 8;

/**
 * One terminal line for overwrite emulation: CR moves to column 0, BS one column left, TAB to the
 * next tab stop without erasing, and each character overwrites the cell under the cursor, as a
 * terminal shows it. Every cell is one code point (no double-width handling) and remembers the raw
 * offset it came from. Columns skipped by TAB and later written past become spaces, as a terminal
 * shows blank cells; trailing blanks are not emitted.
 */
export class LineBuffer {
  /** UTF-8 bytes of each cell packed little-endian into 32 bits. */
  private cells = new Uint32Array(256);
  private raw = new Float64Array(256);
  private length = 0;
  private col = 0;
  /** Raw bytes copied verbatim into flushed text since the last {@link takeKept}. */
  private kept = 0;

  /**
   * Writes one character (`len` UTF-8 bytes at `bytes[at]`) from raw offset `rawPos`; `replaced`
   * marks a character the sanitizer made (U+FFFD). Returns true when the line is full.
   */
  put(bytes: Uint8Array, at: number, len: number, rawPos: number, replaced = false): boolean {
    let packed = 0;
    for (let k = len - 1; k >= 0; k--) packed = (packed << 8) | bytes[at + k];
    if (this.col >= this.cells.length) this.grow();
    this.cells[this.col] = packed >>> 0;
    // Replaced cells store -(rawPos + 1) so flush can map them as made text, not a copy.
    this.raw[this.col] = replaced ? -(rawPos + 1) : rawPos;
    this.col++;
    // Writing past the written cells also shows the blanks TABs left between them and the cursor.
    if (this.col > this.length) this.length = this.col;
    return this.length >= MAX_LINE_CELLS;
  }

  /** Horizontal tab: to the next tab stop, leaving the cells it passes as they are. */
  tab(rawPos: number): void {
    const next = Math.min(this.col - (this.col % TAB_WIDTH) + TAB_WIDTH, MAX_LINE_CELLS - 1);
    // Blank cells past the written ones belong to this TAB; they show only if a character follows.
    for (let c = Math.max(this.col, this.length); c < next; c++) this.setCell(c, 0x20, -(rawPos + 1));
    this.col = next;
  }

  /** Raw bytes that flushed lines copied verbatim; resets the count. */
  takeKept(): number {
    const kept = this.kept;
    this.kept = 0;
    return kept;
  }

  /** Carriage return: back to column 0. */
  carriageReturn(): void {
    this.col = 0;
  }

  /** Backspace: one column left, stopping at column 0. Returns whether the cursor moved. */
  backspace(): boolean {
    if (this.col === 0) return false;
    this.col--;
    return true;
  }

  /** True when no cell has been written since the last flush. */
  get empty(): boolean {
    return this.length === 0;
  }

  /**
   * Appends the line's cells to `out` at `pos` (capacity ensured by the caller: at most 4 bytes a
   * cell), records them in `map`, clears the line, and returns the new position.
   */
  flush(out: Uint8Array, pos: number, textBase: number, map: OffsetMap | null): number {
    for (let c = 0; c < this.length; c++) {
      const start = pos;
      let packed = this.cells[c];
      do {
        out[pos++] = packed & 0xff;
        packed >>>= 8;
      } while (packed !== 0);
      const raw = this.raw[c];
      if (raw >= 0) {
        this.kept += pos - start;
        map?.add(textBase + start, pos - start, raw, pos - start, SegmentKind.Verbatim);
      } else {
        map?.add(textBase + start, pos - start, -raw - 1, 1, SegmentKind.Replaced);
      }
    }
    this.length = 0;
    this.col = 0;
    return pos;
  }

  /** Upper bound of the bytes {@link flush} will write. */
  get byteBound(): number {
    return this.length * 4;
  }

  private setCell(c: number, packed: number, raw: number): void {
    if (c >= this.cells.length) this.grow();
    this.cells[c] = packed;
    this.raw[c] = raw;
  }

  private grow(): void {
    const cells = new Uint32Array(this.cells.length * 2);
    cells.set(this.cells);
    this.cells = cells;
    const raw = new Float64Array(this.raw.length * 2);
    raw.set(this.raw);
    this.raw = raw;
  }
}

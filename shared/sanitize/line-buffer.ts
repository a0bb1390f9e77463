import { SegmentKind, type SegmentSink } from './offset-map';

/** Cells one emulated line may hold; past it the line is emitted as is and a new one begins. */
export const MAX_LINE_CELLS = 64 * 1024;

/** Columns between tab stops, as on a VT100 with default stops. */
export const TAB_WIDTH = 8;

/**
 * Furthest column a cursor movement (CUF, CHA, HPA, HPR) may reach, and the largest count an
 * erase, insert or delete takes: wide enough for any real terminal, small enough that one short
 * sequence cannot make thousands of blank cells of output or work.
 */
export const MAX_CURSOR_COLUMN = 512;

/**
 * Cells an insert or delete (ICH, DCH) shifts at most. A longer tail is dropped from the line
 * instead of shifted: the text stays out rather than shown where the terminal no longer shows it,
 * and the work per sequence stays bounded.
 */
export const MAX_SHIFT_CELLS = 512;

/** A packed blank cell (one space). */
const BLANK = 0x20;

/**
 * One terminal line for overwrite emulation: CR moves to column 0, BS one column left, TAB to the
 * next tab stop without erasing, cursor movement and erase/insert/delete within the line as a
 * terminal does them, and each character overwrites the cell under the cursor. Every cell is one
 * code point (no double-width handling) and remembers the raw offset it came from. Blank cells
 * (skipped by TAB or a cursor move, or erased) become spaces once text is written past them;
 * trailing blanks are not emitted.
 */
export class LineBuffer {
  /** UTF-8 bytes of each cell packed little-endian into 32 bits. */
  private cells = new Uint32Array(256);
  private raw = new Float64Array(256);
  /** Cells holding content (blanks inside count); the line's visible end. */
  private length = 0;
  /** Cells [length, reach) are valid blanks (made by TABs); beyond reach a gap is filled on write. */
  private reach = 0;
  private col = 0;
  /** Raw offset of the control that last moved the cursor: it owns blanks filled on the next write. */
  private mover = 0;
  /** Cells [0, blankTo) are already blank (an erase made them so): erasing them again costs nothing. */
  private blankTo = 0;
  /** Raw bytes copied verbatim into flushed text since the last {@link takeKept}. */
  private kept = 0;
  /** Cells dropped by an insert or delete whose tail was too long to shift, since the last {@link takeDropped}. */
  private dropped = 0;

  /**
   * Writes one character (`len` UTF-8 bytes at `bytes[at]`) from raw offset `rawPos`; `replaced`
   * marks a character the sanitizer made (U+FFFD). Returns true when the line is full.
   */
  put(bytes: Uint8Array, at: number, len: number, rawPos: number, replaced = false): boolean {
    let packed = 0;
    for (let k = len - 1; k >= 0; k--) packed = (packed << 8) | bytes[at + k];
    // Written past the blanks: the columns a cursor movement skipped show as blank cells.
    if (this.col > this.reach) this.fill(this.reach, this.col, this.mover);
    if (this.col >= this.cells.length) this.grow();
    this.cells[this.col] = packed >>> 0;
    // Replaced cells store -(rawPos + 1) so flush can map them as made text, not a copy.
    this.raw[this.col] = replaced ? -(rawPos + 1) : rawPos;
    if (this.col < this.blankTo) this.blankTo = this.col;
    this.col++;
    // Writing past the written cells also shows the blanks TABs left between them and the cursor.
    if (this.col > this.length) this.length = this.col;
    if (this.length > this.reach) this.reach = this.length;
    return this.length >= MAX_LINE_CELLS;
  }

  /** Horizontal tab: to the next tab stop, leaving the cells it passes as they are. */
  tab(rawPos: number): void {
    const next = Math.min(this.col - (this.col % TAB_WIDTH) + TAB_WIDTH, MAX_LINE_CELLS - 1);
    // Blank cells past the written ones belong to this TAB; they show only if a character follows.
    const from = Math.max(this.col, this.length);
    if (from > this.reach) this.fill(this.reach, from, this.mover);
    for (let c = from; c < next; c++) this.setCell(c, BLANK, -(rawPos + 1));
    if (next > this.reach) this.reach = next;
    this.col = next;
  }

  /** Backward tab (CBT): to the previous tab stop, `count` times. */
  backTab(count: number): void {
    for (let k = 0; k < count && this.col > 0; k++) this.col = (this.col - 1) - ((this.col - 1) % TAB_WIDTH);
  }

  /**
   * Moves the cursor to column `target` (CUF, CUB, CHA, HPA, HPR); a forward move stops at
   * {@link MAX_CURSOR_COLUMN} unless the cursor is already past it.
   */
  moveTo(target: number, rawPos: number): void {
    const limit = Math.max(this.col, MAX_CURSOR_COLUMN);
    this.col = Math.max(0, Math.min(target, limit, MAX_LINE_CELLS - 1));
    this.mover = rawPos;
  }

  /** The cursor column. */
  get column(): number {
    return this.col;
  }

  /** Cells holding content. */
  get cellCount(): number {
    return this.length;
  }

  /** Erase in line (EL): 0 cursor to end, 1 start to cursor, 2 the whole line. The cursor stays. */
  eraseInLine(mode: number, rawPos: number): void {
    if (mode === 0) {
      this.truncate(this.col);
    } else if (mode === 1) {
      if (this.col + 1 >= this.length) this.truncate(0);
      else this.blank(0, this.col + 1, rawPos);
    } else if (mode === 2) {
      this.truncate(0);
    }
    this.mover = rawPos;
  }

  /** Erase characters (ECH): `count` cells from the cursor become blank. The cursor stays. */
  eraseChars(count: number, rawPos: number): void {
    const end = this.col + Math.min(Math.max(count, 1), MAX_CURSOR_COLUMN);
    if (end >= this.length) this.truncate(this.col);
    else this.blank(this.col, end, rawPos);
    this.mover = rawPos;
  }

  /** Delete characters (DCH): the cells right of the cursor shift left over `count` cells. */
  deleteChars(count: number): void {
    const col = this.col;
    if (col >= this.length) return;
    const n = Math.min(Math.max(count, 1), this.length - col);
    const tail = this.length - col - n;
    if (tail > MAX_SHIFT_CELLS) {
      this.dropped += this.length - col;
      this.truncate(col);
      return;
    }
    this.cells.copyWithin(col, col + n, this.length);
    this.raw.copyWithin(col, col + n, this.length);
    this.length -= n;
    this.reach = this.length;
    if (this.blankTo > col) this.blankTo = col;
  }

  /** Insert characters (ICH): `count` blank cells at the cursor push the rest of the line right. */
  insertChars(count: number, rawPos: number): void {
    const col = this.col;
    if (col >= this.length) return;
    const n = Math.min(Math.max(count, 1), MAX_CURSOR_COLUMN);
    const tail = this.length - col;
    if (tail > MAX_SHIFT_CELLS || this.length + n > MAX_LINE_CELLS) {
      this.dropped += tail;
      this.truncate(col);
      return;
    }
    while (this.length + n > this.cells.length) this.grow();
    this.cells.copyWithin(col + n, col, this.length);
    this.raw.copyWithin(col + n, col, this.length);
    for (let c = col; c < col + n; c++) this.setCell(c, BLANK, -(rawPos + 1));
    this.length += n;
    this.reach = this.length;
    if (this.blankTo > col) this.blankTo = col;
  }

  /** Raw bytes that flushed lines copied verbatim; resets the count. */
  takeKept(): number {
    const kept = this.kept;
    this.kept = 0;
    return kept;
  }

  /** Cells dropped by an insert or delete too long to shift; resets the count. */
  takeDropped(): number {
    const dropped = this.dropped;
    this.dropped = 0;
    return dropped;
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

  /** Forgets the line's content without emitting it (text the readings disagree about). Returns the cells dropped. */
  discard(): number {
    const n = this.length;
    this.length = 0;
    this.reach = 0;
    this.col = 0;
    this.blankTo = 0;
    return n;
  }

  /**
   * Appends the line's cells to `out` at `pos` (capacity ensured by the caller: at most 4 bytes a
   * cell), records them in `map`, clears the line, and returns the new position. Trailing blank
   * cells the sanitizer made (an erase) are not emitted, as a terminal shows nothing there.
   */
  flush(out: Uint8Array, pos: number, textBase: number, map: SegmentSink | null): number {
    let end = this.length;
    while (end > 0 && this.cells[end - 1] === BLANK && this.raw[end - 1] < 0) end--;
    for (let c = 0; c < end; c++) {
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
    this.reach = 0;
    this.col = 0;
    this.blankTo = 0;
    return pos;
  }

  /** Upper bound of the bytes {@link flush} will write. */
  get byteBound(): number {
    return this.length * 4;
  }

  /** Ends the line's content at `col` (cells beyond are gone; later writes past it fill blanks). */
  private truncate(col: number): void {
    if (col < this.length) this.length = col;
    this.reach = this.length;
    if (this.blankTo > this.length) this.blankTo = this.length;
  }

  /** Makes cells [from, to) blank, owned by the control at `rawPos`; cells already blank cost nothing. */
  private blank(from: number, to: number, rawPos: number): void {
    const start = from === 0 ? Math.max(this.blankTo, 0) : from;
    for (let c = start; c < to; c++) this.setCell(c, BLANK, -(rawPos + 1));
    if (from <= this.blankTo && to > this.blankTo) this.blankTo = to;
  }

  /** Blank cells [from, to) owned by the control at raw offset `rawPos` (a gap the cursor skipped). */
  private fill(from: number, to: number, rawPos: number): void {
    for (let c = from; c < to; c++) this.setCell(c, BLANK, -(rawPos + 1));
    this.reach = to;
  }

  private setCell(c: number, packed: number, raw: number): void {
    while (c >= this.cells.length) this.grow();
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

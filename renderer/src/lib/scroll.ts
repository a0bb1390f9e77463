// Scroll geometry in rows, never pixels of the whole artifact: a 4 GiB file at 16 bytes a row is
// 268 M rows, far past the ~33 M px an element may be tall. The list renders one bounded window
// of rows (re-based as the position moves) and our own scrollbar maps its track to row numbers.
// All arithmetic is in plain JS numbers (exact integers up to 2^53): no 32-bit operators.

/** Rows one window of the list holds at most (~40 k px at 20 px a row). */
export const WINDOW_ROWS = 2048;
/** Re-base when the visible rows come within this many rows of the window's edge. */
export const REBASE_MARGIN = 256;
/** The thumb never gets smaller than this, however big the artifact. */
export const MIN_THUMB_PX = 24;

export function clamp(n: number, lo: number, hi: number): number {
  return n < lo ? lo : n > hi ? hi : n;
}

/** Rows needed for `size` bytes at `width` bytes a row. */
export function rowCount(size: number, width: number): number {
  return Math.ceil(size / width);
}

/** The row holding byte `offset`. */
export function rowOf(offset: number, width: number): number {
  return Math.floor(offset / width);
}

/** The highest top row: the last page of rows fills the viewport. */
export function maxTop(totalRows: number, visibleRows: number): number {
  return Math.max(0, totalRows - Math.max(1, visibleRows));
}

export interface Track {
  readonly totalRows: number;
  readonly visibleRows: number;
  /** Height of the scrollbar track in px. */
  readonly trackPx: number;
}

/** Thumb height: proportional, but never below {@link MIN_THUMB_PX} nor above the track. */
export function thumbPx(t: Track): number {
  if (t.totalRows <= 0) return t.trackPx;
  const proportional = (t.trackPx * Math.min(t.visibleRows, t.totalRows)) / t.totalRows;
  return clamp(proportional, Math.min(MIN_THUMB_PX, t.trackPx), t.trackPx);
}

/** Pixel top of the thumb for a top row. */
export function thumbTopPx(t: Track, topRow: number): number {
  const range = t.trackPx - thumbPx(t);
  const max = maxTop(t.totalRows, t.visibleRows);
  if (max === 0 || range <= 0) return 0;
  return (range * clamp(topRow, 0, max)) / max;
}

/** The top row for a thumb whose top is at `px` (dragging, clicking the track). */
export function topRowAtThumbPx(t: Track, px: number): number {
  const range = t.trackPx - thumbPx(t);
  const max = maxTop(t.totalRows, t.visibleRows);
  if (range <= 0) return 0;
  return clamp(Math.round((clamp(px, 0, range) / range) * max), 0, max);
}

/** First row of the window that should hold `row`, centring it when possible. */
export function windowBaseFor(row: number, totalRows: number, windowRows = WINDOW_ROWS): number {
  return clamp(row - Math.floor(windowRows / 2), 0, Math.max(0, totalRows - windowRows));
}

/** Rows in the window starting at `base`. */
export function windowCount(base: number, totalRows: number, windowRows = WINDOW_ROWS): number {
  return Math.max(0, Math.min(windowRows, totalRows - base));
}

/** True when rows `[top, top + visible)` sit comfortably inside the window at `base`. */
export function fitsWindow(base: number, top: number, visible: number, totalRows: number, windowRows = WINDOW_ROWS, margin = REBASE_MARGIN): boolean {
  const count = windowCount(base, totalRows, windowRows);
  if (top < base || top + visible > base + count) return false;
  const lowOk = base === 0 || top - base >= margin;
  const highOk = base + count >= totalRows || base + count - (top + visible) >= margin;
  return lowOk && highOk;
}

/** Top row that keeps `row` visible, moving as little as possible from `top`. */
export function revealRow(top: number, row: number, visible: number, totalRows: number): number {
  const v = Math.max(1, visible);
  let next = top;
  if (row < top) next = row;
  else if (row >= top + v) next = row - v + 1;
  return clamp(next, 0, maxTop(totalRows, v));
}

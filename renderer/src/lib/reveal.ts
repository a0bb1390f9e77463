// Keeps a selected piece of a long sanitized line in sight: the text list scrolls sideways (lines
// are never wrapped, so a wrapped row can never pass for the next line) and its line numbers stay
// pinned at the left, so "in sight" means between the line-number column and the right edge.

/** Room kept beside a revealed piece, so what follows it is seen too. */
const MARGIN_PX = 24;

/**
 * Scrolls `list` sideways the least that shows `piece` whole (or its start, if it is wider than
 * the room). Returns false when nothing had to move.
 */
export function revealSideways(list: HTMLElement, piece: HTMLElement, pinnedPx: number): boolean {
  const box = list.getBoundingClientRect();
  const at = piece.getBoundingClientRect();
  const left = box.left + pinnedPx;
  const right = box.left + list.clientWidth;
  let by = 0;
  if (at.left < left) by = at.left - left - MARGIN_PX;
  else if (at.right > right) by = Math.min(at.right - right + MARGIN_PX, at.left - left - MARGIN_PX);
  if (Math.abs(by) < 1) return false;
  list.scrollLeft = Math.max(0, list.scrollLeft + by);
  return true;
}

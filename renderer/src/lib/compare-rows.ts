// Which raw bytes a Compare row shows for a text line. A line's own raw range can end inside an
// escape sequence (a cursor-up that the sanitizer turned into a line break ends one line at its
// ESC and the next line holds the rest): Compare would then draw `notice^[` on one row and
// `[1A…` on the next. Rows are cut at sequence boundaries instead, as the text view cuts them: a
// span that crosses a line edge belongs wholly to the row that shows its chip, else to the row
// where it starts.
import type { SpanInfo, TextLine } from '../../../shared/bridge/types';

/** The outermost span over a byte, null for none, undefined when not known (not loaded). */
export type OuterSpanAt = (offset: number) => SpanInfo | null | undefined;

function holdsChip(line: TextLine | undefined, span: SpanInfo): boolean | undefined {
  if (!line) return undefined;
  return line.pieces.some((p) => p.t === 'chip' && p.span.index === span.index);
}

/** The span that has bytes on both sides of `boundary`, if any. */
function crossing(boundary: number, outerAt: OuterSpanAt): SpanInfo | null {
  if (boundary <= 0) return null;
  const s = outerAt(boundary);
  return s && s.offset < boundary && s.offset + s.length > boundary ? s : null;
}

/**
 * Raw `[start, end)` of the row for `line` (`next`: the line after it, when loaded). Rows of
 * consecutive lines never split a span and, with the next line known, never share a byte.
 */
export function compareRange(line: TextLine, next: TextLine | undefined, outerAt: OuterSpanAt): [number, number] {
  let start = line.rawStart;
  let end = line.rawEnd;
  const atStart = crossing(line.rawStart, outerAt);
  if (atStart) {
    // Ours if our line shows its chip; else the previous row's (where it starts).
    const ours = holdsChip(line, atStart) === true;
    start = ours ? atStart.offset : atStart.offset + atStart.length;
  }
  const atEnd = line.rawEnd > line.rawStart ? crossing(line.rawEnd, outerAt) : null;
  if (atEnd) {
    // Ours unless the next line shows its chip (and we do not).
    const theirs = holdsChip(line, atEnd) !== true && holdsChip(next, atEnd) === true;
    end = theirs ? atEnd.offset : atEnd.offset + atEnd.length;
  }
  return [start, Math.max(start, end)];
}

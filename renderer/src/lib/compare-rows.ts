// Which raw bytes a Compare row shows for a text line. A line's own raw range can end inside an
// escape sequence (a cursor-up that the sanitizer turned into a line break ends one line at its
// ESC and the next line holds the rest): Compare would then draw `notice^[` on one row and
// `[1A…` on the next. Rows are cut at sequence boundaries instead, as the text view cuts them: a
// span that crosses a line edge belongs wholly to the row where it starts, unless that row does
// not show its chip and the next one does (the cursor-up above). A span can also hold several
// line edges (line breaks executed inside an unterminated CSI) and show its chip on each of those
// lines: it still belongs to one row, and the rows after that one start past it.
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
 * Whether `span`, which starts in line `first` and crosses into `second`, belongs to `first`'s
 * row: unless `first` does not show its chip and `second` does (an unknown line, not loaded,
 * shows none).
 */
function ownedByFirst(first: TextLine | undefined, second: TextLine | undefined, span: SpanInfo): boolean {
  return holdsChip(first, span) === true || holdsChip(second, span) !== true;
}

/**
 * Raw `[start, end)` of the row for `line` (`next` and `prev`: the lines after and before it,
 * when loaded). Rows of consecutive lines never split a span and, with both neighbours known,
 * never share a byte and leave none out.
 */
export function compareRange(line: TextLine, next: TextLine | undefined, outerAt: OuterSpanAt, prev?: TextLine): [number, number] {
  let start = line.rawStart;
  let end = line.rawEnd;
  const atStart = crossing(line.rawStart, outerAt);
  if (atStart) {
    // Started in the line before: ours if that one gives it up. Started further back: an earlier row's.
    const startsInPrev = prev === undefined || atStart.offset >= prev.rawStart;
    const ours = startsInPrev && !ownedByFirst(prev, line, atStart);
    start = ours ? atStart.offset : atStart.offset + atStart.length;
  }
  const atEnd = crossing(line.rawEnd, outerAt);
  if (atEnd) {
    // Started in our line: ours unless the next line takes it. Started before: ours or an earlier
    // row's, and either way not the next row's.
    const ours = atEnd.offset < line.rawStart || ownedByFirst(line, next, atEnd);
    end = ours ? atEnd.offset + atEnd.length : atEnd.offset;
  }
  return [start, Math.max(start, end)];
}

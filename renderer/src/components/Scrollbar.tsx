// Our own vertical scrollbar over row numbers: the track maps to [0, maxTop] however many rows
// there are (268 M rows for 4 GiB), so no element ever needs to be that tall.
import { useCallback, useRef, useState, type PointerEvent } from 'react';
import { maxTop, thumbPx, thumbTopPx, topRowAtThumbPx, type Track } from '../lib/scroll';

export interface ScrollbarProps {
  totalRows: number;
  visibleRows: number;
  top: number;
  onTop(row: number): void;
  label: string;
  /** Height of the track in px (measured by the parent). */
  trackPx: number;
  testId?: string;
}

export function Scrollbar({ totalRows, visibleRows, top, onTop, label, trackPx, testId }: ScrollbarProps) {
  const track: Track = { totalRows, visibleRows, trackPx };
  const size = thumbPx(track);
  const y = thumbTopPx(track, top);
  const drag = useRef<{ startY: number; startTop: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const max = maxTop(totalRows, visibleRows);

  const onPointerDown = useCallback((e: PointerEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const at = e.clientY - rect.top;
    if (at >= y && at <= y + size) {
      drag.current = { startY: e.clientY, startTop: y };
      setDragging(true);
      e.currentTarget.setPointerCapture?.(e.pointerId);
    } else {
      // Clicking the track jumps there (like a minimap), centring the thumb on the pointer.
      onTop(topRowAtThumbPx(track, at - size / 2));
    }
    e.preventDefault();
  }, [y, size, onTop, track]);

  const onPointerMove = useCallback((e: PointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    onTop(topRowAtThumbPx(track, drag.current.startY === e.clientY ? drag.current.startTop : drag.current.startTop + (e.clientY - drag.current.startY)));
  }, [onTop, track]);

  const onPointerUp = useCallback(() => {
    drag.current = null;
    setDragging(false);
  }, []);

  return (
    <div
      className={`scrollbar${dragging ? ' dragging' : ''}`}
      role="scrollbar"
      aria-label={label}
      aria-orientation="vertical"
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={top}
      aria-controls={undefined}
      data-testid={testId}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
    >
      <div className="scrollbar-thumb" style={{ top: y, height: size }} />
    </div>
  );
}

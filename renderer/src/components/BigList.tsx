// A list of any number of fixed-height rows. react-window renders ONE bounded window of rows
// (WINDOW_ROWS) starting at `base`; when the visible rows near the window's edge, or the position
// jumps outside it, the window is re-based. The position is a row number held by the caller.
import { useCallback, useLayoutEffect, useRef, useState, type ReactElement, type CSSProperties, type KeyboardEvent, type HTMLAttributes } from 'react';
import { List, type ListImperativeAPI } from 'react-window';
import { REBASE_MARGIN, WINDOW_ROWS, clamp, fitsWindow, maxTop, windowBaseFor, windowCount } from '../lib/scroll';
import { Scrollbar } from './Scrollbar';

export interface RowRenderProps<P> {
  /** Absolute row number. */
  row: number;
  style: CSSProperties;
  props: P;
}

export interface BigListProps<P extends object> {
  totalRows: number;
  rowHeight: number;
  top: number;
  onTop(row: number): void;
  onVisible?(rows: number): void;
  renderRow: (p: RowRenderProps<P>) => ReactElement | null;
  rowProps: P;
  label: string;
  className?: string;
  scrollbarTestId?: string;
  onKeyDown?(e: KeyboardEvent<HTMLDivElement>): void;
  /** Extra attributes for the list element (role, aria, test id, pointer handlers). */
  listAttrs?: HTMLAttributes<HTMLDivElement> & Record<`data-${string}`, string | number>;
  windowRows?: number;
}

interface InnerRowProps<P> {
  base: number;
  renderRow: (p: RowRenderProps<P>) => ReactElement | null;
  props: P;
}

function InnerRow<P>({ index, style, base, renderRow, props }: { index: number; style: CSSProperties; ariaAttributes: unknown } & InnerRowProps<P>) {
  return renderRow({ row: base + index, style, props });
}

export function BigList<P extends object>(p: BigListProps<P>) {
  const { totalRows, rowHeight, top, onTop, onVisible, windowRows = WINDOW_ROWS } = p;
  const listRef = useRef<ListImperativeAPI | null>(null);
  const [base, setBase] = useState(() => windowBaseFor(top, totalRows, windowRows));
  const [height, setHeight] = useState(600);
  const visible = Math.max(1, Math.floor(height / rowHeight));
  const shown = useRef(-1);
  const pending = useRef<number | null>(null);
  const count = windowCount(base, totalRows, windowRows);
  /** A position we set ourselves: row reports that disagree are stale until it lands (or times out). */
  const expect = useRef<{ index: number; until: number } | null>(null);

  /** Puts window row `index` at the top by setting the scroll offset directly (no smooth scroll). */
  const place = (index: number, rows: number) => {
    const el = listRef.current?.element;
    if (!el || index < 0 || index >= Math.max(1, rows)) return;
    if (Math.abs(el.scrollTop - index * rowHeight) < 1) return; // already there: no scroll event will come
    el.scrollTop = index * rowHeight;
    expect.current = { index, until: Date.now() + 400 };
  };

  // The caller moved the position (jump, scrollbar, keyboard): scroll there, re-basing if needed.
  useLayoutEffect(() => {
    const target = clamp(top, 0, maxTop(totalRows, visible));
    if (pending.current !== null) return;
    if (target === shown.current) return;
    if (fitsWindow(base, target, visible, totalRows, windowRows)) {
      place(target - base, count);
      shown.current = target;
    } else {
      // Prefer a base that puts the target where the list is already scrolled: the rows it
      // renders right now become the target's rows, so the jump lands in this commit, not after
      // a scroll event a frame later.
      const here = shown.current - base;
      const keep = target - here;
      const comfy = here >= REBASE_MARGIN && here + visible <= windowRows - REBASE_MARGIN;
      const next = comfy && keep >= 0 && keep + windowRows <= totalRows ? keep : windowBaseFor(target, totalRows, windowRows);
      if (next === base) {
        place(target - base, count);
        shown.current = target;
      } else {
        pending.current = target;
        setBase(next);
      }
    }
  });

  // After a re-base, put the pending row back at the top.
  useLayoutEffect(() => {
    if (pending.current === null) return;
    const target = pending.current;
    pending.current = null;
    place(target - base, count);
    shown.current = target;
  }, [base, count]);

  const onRowsRendered = useCallback((vis: { startIndex: number; stopIndex: number }) => {
    if (pending.current !== null) return;
    const e = expect.current;
    if (e) {
      if (vis.startIndex !== e.index && Date.now() < e.until) return;
      expect.current = null;
    }
    const abs = base + vis.startIndex;
    shown.current = abs;
    if (abs !== top) onTop(abs);
    const nearLow = base > 0 && vis.startIndex < windowRows / 8;
    const nearHigh = base + count < totalRows && count - vis.stopIndex < windowRows / 8;
    if (nearLow || nearHigh) {
      const next = windowBaseFor(abs, totalRows, windowRows);
      if (next !== base) {
        pending.current = abs;
        setBase(next);
      }
    }
  }, [base, top, onTop, count, totalRows, windowRows]);

  const onResize = useCallback((size: { height: number }) => {
    if (size.height > 0) setHeight(size.height);
  }, []);

  useLayoutEffect(() => {
    onVisible?.(visible);
  }, [visible, onVisible]);

  // Wheel over the scrollbar area still moves rows; the list's own overflow handles the rest.
  return (
    <div className={`biglist ${p.className ?? ''}`} onKeyDown={p.onKeyDown}>
      <List
        className="biglist-window"
        listRef={listRef}
        rowComponent={InnerRow as never}
        rowCount={count}
        rowHeight={rowHeight}
        rowProps={{ base, renderRow: p.renderRow, props: p.rowProps } as never}
        onRowsRendered={onRowsRendered}
        onResize={onResize}
        overscanCount={4}
        defaultHeight={600}
        aria-label={p.label}
        {...p.listAttrs}
      />
      <Scrollbar totalRows={totalRows} visibleRows={visible} top={top} onTop={onTop} label={`${p.label} position`} trackPx={height} testId={p.scrollbarTestId} />
    </div>
  );
}

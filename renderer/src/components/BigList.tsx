// A list of any number of fixed-height rows. react-window renders ONE bounded window of rows
// (WINDOW_ROWS) starting at `base`; when the visible rows near the window's edge, or the position
// jumps outside it, the window is re-based. The position is a row number held by the caller.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactElement, type CSSProperties, type KeyboardEvent, type HTMLAttributes } from 'react';
import { List, type ListImperativeAPI } from 'react-window';
import { WINDOW_ROWS, clamp, fitsWindow, maxTop, windowBaseFor, windowCount } from '../lib/scroll';
import { Scrollbar } from './Scrollbar';

/** How long after a jump lands the window is re-based around it (see onRowsRendered). */
const EDGE_CHECK_MS = 100;

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
  /** A jump landed by re-basing where the list is scrolled: its first rows are drawn before any re-base around them. */
  const landing = useRef(false);
  /** The rows last reported, for the re-base check a landing puts off. */
  const lastVis = useRef<{ startIndex: number; stopIndex: number } | null>(null);
  const [edgeCheck, setEdgeCheck] = useState(0);
  /** The put-off re-base check's timer: cleared on unmount, or it would set state after the list is gone. */
  const edgeTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (edgeTimer.current !== null) clearTimeout(edgeTimer.current);
    edgeTimer.current = null;
  }, []);

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
      // A base that puts the target where the list is already scrolled: the rows it renders
      // right now become the target's rows, so the jump lands in this commit, not after a
      // scroll event a frame later (a render of the wrong rows first: 50 ms here on a far jump).
      // The window may then start at the target or end early (near the end of the rows); if the
      // list is near its edge, the next rows reported re-base it around the target as usual.
      const here = shown.current - base;
      const keep = target - here;
      const kept = here >= 0 && here < count && keep >= 0;
      const next = kept ? keep : windowBaseFor(target, totalRows, windowRows);
      // The rows this lands on are drawn before the window is re-based around them.
      landing.current = kept;
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
    lastVis.current = vis;
    if (abs !== top) onTop(abs);
    if (landing.current) {
      // Re-basing now would replace the rows just landed on by others until a scroll event
      // puts them back: they are painted first, and the window re-based a moment later.
      landing.current = false;
      if (edgeTimer.current !== null) clearTimeout(edgeTimer.current);
      edgeTimer.current = setTimeout(() => {
        edgeTimer.current = null;
        setEdgeCheck((n) => n + 1);
      }, EDGE_CHECK_MS);
      return;
    }
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

  // The re-base check a landing put off (see onRowsRendered).
  useEffect(() => {
    if (edgeCheck > 0 && lastVis.current && pending.current === null) onRowsRendered(lastVis.current);
    // Only when the check is due (onRowsRendered is the current one: it is rebuilt each render).
  }, [edgeCheck]);

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

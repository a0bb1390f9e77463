// The hex/caret view: offset | 16 bytes of hex | caret column. Nothing raw shows until a grant;
// every byte inside an annotated span carries its class colour over the span's whole extent.
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type PointerEvent } from 'react';
import type { SecretInfo, SpanInfo } from '../../../shared/bridge/types';
import { bridge } from '../bridge';
import type { Cell } from '../../../shared/hex/cell';
import { formatHexRows, type HexRow } from '../../../shared/hex/rows';
import { ROW_BYTES, copySelection, moveCursor, prefetchView, requestRaw, viewMoved } from '../actions';
import { BigList, type RowRenderProps } from '../components/BigList';
import { CARET_COLUMNS, fitCaret, markerText, notationColumns } from '../lib/caret-fit';
import { PAGE_SIZE, pageOf, type PageCache } from '../lib/page-cache';
import { rowCount } from '../lib/scroll';
import { SPAN_BLOCK } from '../lib/span-cache';
import { clsCss, describeSpan, hexOffset } from '../lib/spans';
import { session } from '../session';
import { useArtifact, useBookmarks, useGrants, useLayout, useSearch, useSelection, useView } from '../stores';

export const HEX_ROW_PX = 20;

interface Formatted {
  rows: HexRow[];
  ctx: boolean;
  look: boolean;
}

const formatted = new WeakMap<Uint8Array, Formatted>();

/** Hex rows of one cached page, decoded with the neighbouring pages' edge bytes when cached. */
export function pageRows(pages: PageCache, index: number, size: number): HexRow[] | null {
  const bytes = pages.peek(index);
  if (!bytes) return null;
  const prev = index > 0 ? pages.peek(index - 1) : undefined;
  const lastPage = (index + 1) * PAGE_SIZE >= size;
  const next = lastPage ? undefined : pages.peek(index + 1);
  const have = formatted.get(bytes);
  const ctx = index === 0 || prev !== undefined;
  const look = lastPage || next !== undefined;
  if (have && (have.ctx || !ctx) && (have.look || !look)) return have.rows;
  const rows = formatHexRows(bytes, index * PAGE_SIZE, {
    width: ROW_BYTES,
    context: index === 0 ? undefined : prev?.subarray(prev.length - 3),
    lookahead: lastPage ? new Uint8Array(0) : next?.subarray(0, 3),
  });
  formatted.set(bytes, { rows, ctx, look });
  return rows;
}

export interface HexRowProps {
  size: number;
  cursor: number;
  range: readonly [number, number] | null;
  hits: readonly number[];
  hitLength: number;
  marks: readonly number[];
  rawVersion: number;
  spanVersion: number;
  granted: boolean;
  /** Columns of the caret column (lib/caret-fit.ts). */
  caretColumns: number;
  /** Raw extents of the suspected secrets in sight (under a grant only), ascending. */
  secrets: readonly SecretInfo[];
}

/** First index in sorted `list` whose value is ≥ `x`. */
function lowerBound(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (list[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function byteClasses(offset: number, span: SpanInfo | null | undefined, p: HexRowProps, hitStart: number, hitEnd: number): string {
  let c = '';
  if (span) {
    c += ` ${clsCss(span.cls)} sp`;
    if (span.offset === offset) c += ' ss';
    if (span.offset + span.length - 1 === offset) c += ' se';
  }
  if (p.range ? offset >= p.range[0] && offset < p.range[1] : false) c += ' sel';
  if (offset === p.cursor) c += ' cur';
  if (offset >= hitStart && offset < hitEnd) c += ' hit';
  if (p.secrets.length > 0 && p.secrets.some((s) => offset >= s.offset && offset < s.offset + s.length)) c += ' secret';
  return c;
}

/** Secrets listed for the hex view's window at most (a window shows a few KiB). */
const MAX_HEX_SECRETS = 200;

/**
 * The suspected secrets whose raw extent overlaps the rows in sight, while this window holds a
 * grant (the hex view shows bytes only then): their bytes are marked so a reader sees which bytes
 * a redaction chip stands for. Places and rule names only (getSecrets): the values are the bytes.
 */
function useSecretsInSight(ref: string | undefined, granted: boolean, top: number, rows: number, size: number): readonly SecretInfo[] {
  const [list, setList] = useState<readonly SecretInfo[]>([]);
  useEffect(() => {
    if (!ref || !granted || size === 0) {
      setList([]);
      return;
    }
    let live = true;
    const start = Math.min(size - 1, top * ROW_BYTES);
    const length = Math.min(size - start, Math.max(1, rows + 1) * ROW_BYTES);
    bridge().getSecrets(ref, start, length)
      .then((found) => live && setList(found.slice(0, MAX_HEX_SECRETS)))
      // No index yet, or it is being rebuilt: no marks until it is.
      .catch(() => live && setList([]));
    return () => {
      live = false;
    };
  }, [ref, granted, top, rows, size]);
  return list;
}

function rowHits(p: HexRowProps, start: number): [number, number] {
  if (p.hits.length === 0) return [-1, -1];
  // The hit that covers bytes of this row (hits are short; the earliest overlapping one wins).
  const i = lowerBound(p.hits, start - p.hitLength + 1);
  if (i >= p.hits.length) return [-1, -1];
  const h = p.hits[i];
  return h < start + ROW_BYTES ? [h, h + p.hitLength] : [-1, -1];
}

function HexRowViewInner({ row, style, props: p }: RowRenderProps<HexRowProps>) {
  const s = session();
  const start = row * ROW_BYTES;
  const end = Math.min(p.size, start + ROW_BYTES);
  const index = pageOf(start);
  const rows = s && p.granted ? pageRows(s.pages, index, p.size) : null;
  const hexRow = rows ? rows[(start - index * PAGE_SIZE) / ROW_BYTES] : null;
  const marked = p.marks.length > 0 && p.marks[lowerBound(p.marks, start)] < end;
  const [hs, he] = rowHits(p, start);
  const hex = [];
  const caret = [];
  /** The row's notation, cell by cell, and each cell's columns (for caret-fit), when its bytes are in. */
  const texts: string[] = [];
  const widths: number[] = [];
  for (let k = 0; k < ROW_BYTES; k++) {
    const o = start + k;
    if (o >= end) {
      hex.push(<span key={k} className={`hx pad${k === 8 ? ' g' : ''}`}>{'  '}</span>);
      continue;
    }
    const span = s?.spans.spanAt(o);
    const c = byteClasses(o, span, p, hs, he);
    const cell: Cell | undefined = hexRow?.cells[k];
    hex.push(
      <span key={k} id={o === p.cursor ? 'hex-cursor' : undefined} className={`hx${k === 8 ? ' g' : ''}${c}`} data-o={o}>
        {hexRow ? hexRow.hex[k] : '··'}
      </span>,
    );
    caret.push(
      <span key={k} className={`ct k-${cell?.kind ?? 'none'}${c}`} data-o={o}>
        {cell ? cell.text : '·'}
      </span>,
    );
    if (cell) {
      texts.push(cell.text);
      widths.push(notationColumns(cell.text));
    }
  }
  // Notation wider than the column is condensed, then cut with a marker (see caret-fit.ts); the
  // row's whole notation is its tooltip.
  const fit = hexRow ? fitCaret(widths, p.caretColumns) : null;
  const shown = fit && fit.cut > 0 ? caret.slice(0, fit.shown) : caret;
  if (fit && fit.cut > 0) {
    shown.push(<span key="more" className="ct more" data-testid="caret-more" title={`${fit.cut} more bytes: ${texts.slice(fit.shown).join('')}`}>{markerText(fit.cut)}</span>);
  }
  return (
    <div style={style} className={`hex-row${marked ? ' marked' : ''}`} data-testid="hex-row" data-offset={start} role="row" aria-rowindex={row + 1}>
      <span className="off" role="rowheader">{hexOffset(start, Math.max(8, p.size.toString(16).length))}</span>
      <span className="hexcells" role="gridcell">{hex}</span>
      <span className="caret" role="gridcell" title={fit && fit.squeeze < 1 ? texts.join('') : undefined}>
        <span className={fit && fit.squeeze < 1 ? 'caret-cells squeezed' : 'caret-cells'} style={fit && fit.squeeze < 1 ? { transform: `scaleX(${fit.squeeze.toFixed(3)})` } : undefined}>{shown}</span>
      </span>
    </div>
  );
}

const HexRowView = memo(HexRowViewInner);
const renderHexRow = (p: RowRenderProps<HexRowProps>) => <HexRowView {...p} />;

/** Offsets under a pointer event (the byte spans carry `data-o`). */
function offsetOf(e: { target: EventTarget | null }): number | null {
  const el = (e.target as HTMLElement | null)?.closest?.('[data-o]');
  if (!el) return null;
  const v = Number((el as HTMLElement).dataset.o);
  return Number.isSafeInteger(v) ? v : null;
}

export function HexView() {
  const artifact = useArtifact((a) => a.artifact);
  const size = artifact?.size ?? 0;
  const hexTop = useView((v) => v.hexTop);
  const hexVisible = useView((v) => v.hexVisible);
  const rawVersion = useView((v) => v.rawVersion);
  const spanVersion = useView((v) => v.spanVersion);
  const cursor = useSelection((s) => s.cursor);
  const range = useSelection((s) => s.range);
  const phase = useGrants((g) => g.phase);
  const grant = useGrants((g) => g.grant);
  const why = useGrants((g) => g.why);
  const hits = useSearch((s) => s.hits);
  const hitLength = useSearch((s) => s.hitLength);
  const bookmarks = useBookmarks((b) => b.list);
  const marks = useMemo(() => bookmarks.map((b) => b.offset), [bookmarks]);
  const totalRows = rowCount(size, ROW_BYTES);
  const granted = grant !== null;

  // Fetch what the visible window needs: raw pages (under a grant), then span blocks.
  useEffect(() => {
    void prefetchView(hexTop, hexVisible)?.done;
  }, [hexTop, hexVisible, size, granted, artifact?.ref]);

  const onTop = useCallback((row: number) => {
    viewMoved();
    useView.setState({ hexTop: row });
  }, []);
  const onVisible = useCallback((rows: number) => useView.setState({ hexVisible: rows }), []);

  const onPointerDown = useCallback((e: PointerEvent<HTMLDivElement>) => {
    const o = offsetOf(e);
    if (o === null) return;
    moveCursor(o, e.shiftKey);
    (e.currentTarget as HTMLElement).focus();
  }, []);
  const onPointerMove = useCallback((e: PointerEvent<HTMLDivElement>) => {
    const o = offsetOf(e);
    if (o === null) return;
    if (e.buttons === 1) moveCursor(o, true, false);
    if (useView.getState().hoverOffset !== o) useView.setState({ hoverOffset: o });
  }, []);

  const onKeyDown = useCallback((e: KeyboardEvent<HTMLDivElement>) => {
    const c = useSelection.getState().cursor;
    const page = Math.max(1, useView.getState().hexVisible - 1) * ROW_BYTES;
    const map: Record<string, number> = {
      ArrowLeft: c - 1, ArrowRight: c + 1, ArrowUp: c - ROW_BYTES, ArrowDown: c + ROW_BYTES,
      PageUp: c - page, PageDown: c + page,
      Home: e.ctrlKey || e.metaKey ? 0 : c - (c % ROW_BYTES),
      End: e.ctrlKey || e.metaKey ? size - 1 : Math.min(size - 1, c - (c % ROW_BYTES) + ROW_BYTES - 1),
    };
    if (e.key in map) {
      e.preventDefault();
      moveCursor(Math.max(0, Math.min(size - 1, map[e.key])), e.shiftKey);
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
      e.preventDefault();
      void copySelection(e.shiftKey ? 'caret' : 'hex');
    }
  }, [size]);

  const caretColumns = useLayout((l) => l.caretColumns);
  const secrets = useSecretsInSight(artifact?.ref, granted, hexTop, hexVisible, size);
  const rowProps = useMemo<HexRowProps>(() => ({ size, cursor, range, hits, hitLength, marks, rawVersion, spanVersion, granted, caretColumns, secrets }),
    [size, cursor, range, hits, hitLength, marks, rawVersion, spanVersion, granted, caretColumns, secrets]);


  // The rows are as wide as their content (offset, 16 cells, caret column, scrollbar): the layout
  // needs that width before the rows exist, so a head with the natural caret column is measured
  // (hidden) whether or not the bytes are shown; its caret column gives the font's column width.
  const measure = useRef<HTMLDivElement | null>(null);
  useLayoutEffect(() => {
    const el = measure.current;
    if (!el) return;
    const update = () => {
      const w = el.offsetWidth + 1; // + the view's right border
      const caretEl = el.querySelector<HTMLElement>('.caret');
      const ch = caretEl ? (caretEl.offsetWidth - 8) / CARET_COLUMNS : 0;
      const s = useLayout.getState();
      if (w > 1 && (Math.abs(s.hexWidth - w) >= 1 || (ch > 0 && Math.abs(s.chPx - ch) > 0.01))) useLayout.setState({ hexWidth: w, chPx: ch > 0 ? ch : s.chPx });
    };
    update();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const headCells = <span className="hexcells">{Array.from({ length: ROW_BYTES }, (_, k) => <span key={k} className={`hx${k === 8 ? ' g' : ''}`}>{k.toString(16).padStart(2, '0')}</span>)}</span>;

  return (
    <section className={`hex-view${granted ? '' : ' locked'}`} id="hex-view" style={{ ['--caret-cols' as string]: caretColumns }} data-testid="hex-view" aria-label="Raw bytes (hex and caret notation)">
      <div className="hex-head measure" aria-hidden="true" ref={measure}>
        <span className="off">offset</span>{headCells}<span className="caret">caret notation</span>
      </div>
      {granted && (
        <div className="hex-head" aria-hidden="true">
          <span className="off">offset</span>{headCells}<span className="caret">caret notation</span>
        </div>
      )}
      {granted ? (
        <BigList
          totalRows={totalRows}
          rowHeight={HEX_ROW_PX}
          top={hexTop}
          onTop={onTop}
          onVisible={onVisible}
          renderRow={renderHexRow}
          rowProps={rowProps}
          label="Hex rows"
          className="hex-list"
          scrollbarTestId="hex-scrollbar"
          onKeyDown={onKeyDown}
          listAttrs={{
            role: 'grid', tabIndex: 0, 'aria-activedescendant': 'hex-cursor', 'aria-describedby': 'span-description', 'aria-rowcount': totalRows,
            onPointerDown, onPointerMove, onPointerLeave: () => useView.setState({ hoverOffset: null }),
            draggable: false, onDragStart: (e) => e.preventDefault(), 'data-testid': 'hex-grid',
            onCopy: (e) => {
              // The menu's Copy too: hex notation through main's inert check, never the bytes.
              e.preventDefault();
              void copySelection('hex');
            },
          }}
        />
      ) : (
        <RawLocked phase={phase} why={why} size={size} available={artifact?.rawAvailable !== false} />
      )}
    </section>
  );
}

/**
 * What shows instead of the bytes: a strip above the text (the text takes the room), saying why
 * and offering the request. The sanitized text and report need no grant.
 */
function RawLocked({ phase, why, size, available }: { phase: string; why: string | null; size: number; available: boolean }) {
  if (!available) {
    return (
      <div className="raw-locked" role="region" aria-label="Raw bytes pruned">
        <div className="lock-icon" aria-hidden="true" />
        <div className="lock-text">
          <h3>Raw bytes were pruned</h3>
          <p>Retention ended this artifact's raw bytes. Its sanitized text, removal report and span index remain.</p>
        </div>
      </div>
    );
  }
  return (
    <div className="raw-locked" role="region" aria-label="Raw bytes locked">
      <div className="lock-icon" aria-hidden="true" />
      <div className="lock-text">
        <h3>Raw bytes are restricted</h3>
        <p>
          The sanitized text and the report need no authorization; showing these {size.toLocaleString('en-US')} bytes, even as hex,
          needs a reviewer's grant, recorded in the audit log.
        </p>
        {phase === 'denied' && (
          <p className="denied" data-testid="raw-denied" role="alert">
            Denied: {why ?? 'the request was not approved'}. No raw byte was sent to this window.
          </p>
        )}
        {phase === 'ended' && why && <p className="ended" data-testid="raw-ended" role="status">{why}</p>}
        {phase === 'asking' && <p className="hint">Main opened its own authorization window. Answer it there.</p>}
      </div>
      <button type="button" className="primary" onClick={() => void requestRaw()} disabled={phase === 'asking'}>
        {phase === 'asking' ? 'Waiting for authorization…' : 'Show raw bytes'}
      </button>
    </div>
  );
}

/** The description of the span covering `offset`, if its block is loaded. */
export function spanDescriptionAt(offset: number): string | null {
  const span = session()?.spans.spanAt(offset);
  return span ? describeSpan(span) : null;
}

export { SPAN_BLOCK };
export type { CSSProperties };

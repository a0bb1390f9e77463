// Raw vs clean for reviewers, aligned through the offset map: every clean line next to (or above)
// the raw bytes it came from, in caret notation coloured by span, with what was removed.
import { memo, useCallback, useEffect, useMemo } from 'react';
import { MAX_RAW_READ } from '../../../shared/bridge/limits';
import type { TextLine } from '../../../shared/bridge/types';
import { formatCells } from '../../../shared/hex/cells';
import { ensureRaw, exportCompare, selectRange } from '../actions';
import { BigList, type RowRenderProps } from '../components/BigList';
import { compareRange } from '../lib/compare-rows';
import { lineRemovalSummary } from '../lib/formats';
import { sliceCached } from '../lib/page-cache';
import { clsCss, hexOffset } from '../lib/spans';
import { session } from '../session';
import { useArtifact, useGrants, useSelection, useView, type CompareMode } from '../stores';
import { LinePieces } from './TextView';

/** Raw bytes of a line shown at most (longer lines end in an ellipsis marker). */
export const MAX_COMPARE_BYTES = 384;
/** Bytes before the first row (and after the last) read so a sequence crossing into them is whole. */
const SEQUENCE_REACH = 4096;

/** The raw bytes a row shows: its line's, cut at sequence boundaries (lib/compare-rows.ts). */
export function rowRange(line: TextLine): [number, number] {
  const s = session();
  if (!s) return [line.rawStart, line.rawEnd];
  const prev = line.line > 0 ? s.text.line(line.line - 1) : undefined;
  return compareRange(line, s.text.line(line.line + 1), (o) => s.spans.outerAt(o), prev);
}

function RawCaret({ line, granted }: { line: TextLine; granted: boolean }) {
  const s = session();
  if (!s) return null;
  const [rawStart, rawEnd] = rowRange(line);
  const end = Math.min(rawEnd, rawStart + MAX_COMPARE_BYTES);
  if (!granted) {
    const chips = line.pieces.filter((p) => p.t === 'chip').length;
    return <span className="muted small">{(rawEnd - rawStart).toLocaleString('en-US')} raw bytes{chips ? `, ${chips} removed spans` : ''} · raw needs authorization</span>;
  }
  const bytes = sliceCached(s.pages, rawStart, end - rawStart);
  if (!bytes) return <span className="muted">…</span>;
  const ctxStart = Math.max(0, rawStart - 3);
  const context = rawStart > 0 ? sliceCached(s.pages, ctxStart, rawStart - ctxStart) ?? undefined : undefined;
  const cells = formatCells(bytes, rawStart, { context, lookahead: end >= s.size ? new Uint8Array(0) : undefined });
  const out = [];
  let whole = '';
  let k = 0;
  while (k < cells.length) {
    const span = s.spans.spanAt(rawStart + k);
    const cls = span ? clsCss(span.cls) : 'kept';
    let text = '';
    const from = k;
    while (k < cells.length) {
      const sp = s.spans.spanAt(rawStart + k);
      if ((sp ? clsCss(sp.cls) : 'kept') !== cls || (sp && span && sp.index !== span.index)) break;
      text += cells[k].text;
      k++;
    }
    out.push(<span key={from} className={`rc ${cls}${span ? ' sp' : ''}`} data-o={rawStart + from}>{text}</span>);
    whole += text;
  }
  if (end < rawEnd) out.push(<span key="more" className="more">… +{(rawEnd - end).toLocaleString('en-US')} bytes</span>);
  // The column cuts a long line with an ellipsis: its notation (as drawn, up to MAX_COMPARE_BYTES) is the tooltip.
  return <span className="rc-line" data-testid="compare-raw" title={whole}>{out}</span>;
}

interface CompareRowProps {
  mode: CompareMode;
  granted: boolean;
  range: readonly [number, number] | null;
  cursor: number;
  versions: string;
}

function CompareRowInner({ row, style, props: p }: RowRenderProps<CompareRowProps>) {
  const line = session()?.text.line(row);
  if (!line) return <div style={style} className="cmp-row" data-testid="compare-row" data-line={row}><span className="ln">{row + 1}</span><span className="muted">…</span></div>;
  const summary = lineRemovalSummary(line);
  const [rawStart, rawEnd] = rowRange(line);
  const jump = () => selectRange(rawStart, Math.max(rawStart + 1, rawEnd));
  const head = (
    <span className="cmp-meta">
      <button type="button" className="link mono" onClick={jump} title="Select this row's raw bytes">0x{hexOffset(rawStart)}</button>
      <span className={`rm${summary ? '' : ' none'}`}>{summary || 'nothing removed'}</span>
    </span>
  );
  if (p.mode === 'interleaved') {
    return (
      <div style={style} className="cmp-row inter" data-testid="compare-row" data-line={row}>
        <span className="ln">{row + 1}</span>
        <div className="cmp-stack">
          <div className="cmp-raw"><span className="lbl">raw</span><RawCaret line={line} granted={p.granted} /></div>
          <div className="cmp-clean"><span className="lbl">clean</span><LinePieces line={line} range={p.range} cursor={p.cursor} showChips={false} /></div>
        </div>
        {head}
      </div>
    );
  }
  return (
    <div style={style} className="cmp-row side" data-testid="compare-row" data-line={row}>
      <span className="ln">{row + 1}</span>
      <div className="cmp-raw"><RawCaret line={line} granted={p.granted} /></div>
      <div className="cmp-clean"><LinePieces line={line} range={p.range} cursor={p.cursor} showChips={false} /></div>
      {head}
    </div>
  );
}

const CompareRow = memo(CompareRowInner);
const renderCompareRow = (p: RowRenderProps<CompareRowProps>) => <CompareRow {...p} />;

export function CompareView() {
  const totalLines = useArtifact((a) => a.totalLines);
  const mode = useView((v) => v.compareMode);
  const textTop = useView((v) => v.textTop);
  const textVisible = useView((v) => v.textVisible);
  const rawVersion = useView((v) => v.rawVersion);
  const spanVersion = useView((v) => v.spanVersion);
  const textVersion = useView((v) => v.textVersion);
  const granted = useGrants((g) => g.grant !== null);
  const range = useSelection((s) => s.range);
  const cursor = useSelection((s) => s.cursor);

  useEffect(() => {
    const s = session();
    if (!s) return;
    const first = s.text.line(textTop);
    const last = s.text.line(Math.min(totalLines - 1, textTop + textVisible + 2));
    if (!first) return;
    // Spans first: a row's edges move to the sequence boundaries they name (a sequence that
    // crosses into the first line starts before it: a little before is read too).
    const start = Math.max(0, first.rawStart - SEQUENCE_REACH);
    const end = Math.min((last ?? first).rawEnd + SEQUENCE_REACH, start + MAX_RAW_READ);
    void s.spans.ensureRange(start, Math.max(1, end - start));
    if (granted) void ensureRaw(Math.max(0, start - 3), end - start + 3);
  }, [textTop, textVisible, granted, textVersion, totalLines]);

  const onTop = useCallback((row: number) => useView.setState({ textTop: row }), []);
  const onVisible = useCallback((rows: number) => useView.setState({ textVisible: rows }), []);
  const rowProps = useMemo<CompareRowProps>(() => ({ mode, granted, range, cursor, versions: `${rawVersion}.${spanVersion}.${textVersion}` }), [mode, granted, range, cursor, rawVersion, spanVersion, textVersion]);

  return (
    <section className={`compare-view ${mode}`} data-testid="compare-view" aria-label="Raw versus clean comparison">
      <div className="pane-head">
        <div className="seg" role="radiogroup" aria-label="Comparison layout">
          <button type="button" role="radio" aria-checked={mode === 'side'} className={mode === 'side' ? 'on' : ''} onClick={() => useView.setState({ compareMode: 'side' })}>Side by side</button>
          <button type="button" role="radio" aria-checked={mode === 'interleaved'} className={mode === 'interleaved' ? 'on' : ''} onClick={() => useView.setState({ compareMode: 'interleaved' })}>Interleaved</button>
        </div>
        <span className="muted small">each clean line beside the raw bytes it came from (offset map) · raw in caret notation</span>
        <button type="button" onClick={() => void exportCompare()}>Export comparison Markdown</button>
      </div>
      {mode === 'side' && <div className="cmp-cols" aria-hidden="true"><span className="ln">line</span><span>raw bytes</span><span>sanitized text</span><span>offset · removed</span></div>}
      <BigList
        key={mode}
        totalRows={totalLines}
        rowHeight={mode === 'side' ? 22 : 44}
        top={textTop}
        onTop={onTop}
        onVisible={onVisible}
        renderRow={renderCompareRow}
        rowProps={rowProps}
        label="Comparison lines"
        className="compare-list"
        onKeyDown={(e) => {
          const step: Record<string, number> = { ArrowUp: -1, ArrowDown: 1, PageUp: -textVisible, PageDown: textVisible };
          if (!(e.key in step)) return;
          e.preventDefault();
          useView.setState({ textTop: Math.max(0, Math.min(Math.max(0, totalLines - textVisible), textTop + step[e.key])) });
        }}
        listAttrs={{ role: 'grid', tabIndex: 0, draggable: false, onDragStart: (e) => e.preventDefault() }}
      />
    </section>
  );
}

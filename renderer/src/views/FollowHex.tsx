// The follow view's hex pane: nothing raw until a grant on the followed stream; then its bytes as
// rows of the viewer's hex (offset | 16 bytes | caret notation, from the same page formatting),
// growing as they arrive, the end kept in view until the user scrolls up. Keyboard: arrows,
// PageUp/PageDown, Home/End move the rows; End follows the end again.
import { memo, useCallback, useMemo, type KeyboardEvent } from 'react';
import { ROW_BYTES } from '../actions';
import { BigList, type RowRenderProps } from '../components/BigList';
import { fitCaret, markerText, notationColumns } from '../lib/caret-fit';
import { PAGE_SIZE, pageOf } from '../lib/page-cache';
import { maxTop, rowCount } from '../lib/scroll';
import { grouped, hexOffset, humanSize } from '../lib/spans';
import { followHexEnd, followHexMoved, followHexPages, followHexVisible, requestFollowRaw, revokeFollowRaw, tickFollowHex, useFollowHex } from '../follow-hex';
import { HEX_ROW_PX, pageRows } from './HexView';
import { GrantStrip } from './GrantBanner';

/** Caret columns of the pane (one a byte: the follow view's side panel leaves less room than the viewer's). */
const CARET_COLUMNS = ROW_BYTES;

interface RowProps {
  size: number;
  version: number;
}

function FollowHexRowInner({ row, style, props: p }: RowRenderProps<RowProps>) {
  const start = row * ROW_BYTES;
  const end = Math.min(p.size, start + ROW_BYTES);
  const index = pageOf(start);
  const rows = pageRows(followHexPages(), index, p.size);
  const hexRow = rows ? rows[(start - index * PAGE_SIZE) / ROW_BYTES] : undefined;
  const hex = [];
  const caret = [];
  const texts: string[] = [];
  const widths: number[] = [];
  for (let k = 0; k < ROW_BYTES; k++) {
    const o = start + k;
    const have = hexRow !== undefined && k < hexRow.hex.length && o < end;
    hex.push(<span key={k} className={`hx${k === 8 ? ' g' : ''}${o >= end ? ' pad' : ''}`}>{have ? hexRow.hex[k] : o < end ? '··' : '  '}</span>);
    if (o >= end) continue;
    const cell = have ? hexRow.cells[k] : undefined;
    caret.push(<span key={k} className={`ct k-${cell?.kind ?? 'none'}`}>{cell ? cell.text : '·'}</span>);
    if (cell) {
      texts.push(cell.text);
      widths.push(notationColumns(cell.text));
    }
  }
  const fit = hexRow ? fitCaret(widths, CARET_COLUMNS) : null;
  const shown = fit && fit.cut > 0 ? caret.slice(0, fit.shown) : caret;
  if (fit && fit.cut > 0) shown.push(<span key="more" className="ct more" title={`${fit.cut} more bytes: ${texts.slice(fit.shown).join('')}`}>{markerText(fit.cut)}</span>);
  return (
    <div style={style} className="hex-row" data-testid="follow-hex-row" data-offset={start} role="row" aria-rowindex={row + 1}>
      <span className="off" role="rowheader">{hexOffset(start, Math.max(8, p.size.toString(16).length))}</span>
      <span className="hexcells" role="gridcell">{hex}</span>
      <span className="caret" role="gridcell" title={fit && fit.squeeze < 1 ? texts.join('') : undefined}>
        <span className={fit && fit.squeeze < 1 ? 'caret-cells squeezed' : 'caret-cells'} style={fit && fit.squeeze < 1 ? { transform: `scaleX(${fit.squeeze.toFixed(3)})` } : undefined}>{shown}</span>
      </span>
    </div>
  );
}

const FollowHexRow = memo(FollowHexRowInner);
const renderRow = (p: RowRenderProps<RowProps>) => <FollowHexRow {...p} />;

const revokeFollow = (): void => void revokeFollowRaw();

/** What the grant covers, when it ends, and Revoke (the viewer's grant strip). */
function FollowGrantBanner() {
  const grant = useFollowHex((h) => h.grant);
  const now = useFollowHex((h) => h.now);
  const sealed = useFollowHex((h) => h.sealed);
  if (!grant) return null;
  const stream = grant.running?.stream ?? '';
  const covers = sealed ? `${stream} · sealed: the grant goes on over its sealed artifact` : `${stream} as it arrives`;
  return <GrantStrip covers={covers} reason={grant.reason} expiresAt={grant.expiresAt} now={now} onTick={tickFollowHex} onRevoke={revokeFollow} testIds="follow-grant-" revokeTestId="follow-hex-revoke" className="follow-grant" />;
}

/** Instead of the bytes: why, and the request. */
function FollowHexLocked() {
  const phase = useFollowHex((h) => h.phase);
  const why = useFollowHex((h) => h.why);
  const stream = useFollowHex((h) => h.target?.stream ?? 'stdout');
  return (
    <div className="raw-locked follow-hex-locked" role="region" aria-label="Raw bytes locked" data-testid="follow-hex-locked">
      <div className="lock-icon" aria-hidden="true" />
      <div className="lock-text">
        <h3>Raw bytes are restricted</h3>
        <p>Showing the {stream} bytes of this running capture as they arrive, even as hex, needs a reviewer's grant in main's prompt, recorded in the audit log. It covers this stream until the capture ends, then its sealed artifact.</p>
        {phase === 'denied' && <p className="denied" data-testid="follow-hex-denied" role="alert">Denied: {why ?? 'the request was not approved'}. No raw byte was sent to this window.</p>}
        {phase === 'ended' && why && <p className="ended" data-testid="follow-hex-ended" role="status">{why}</p>}
        {phase === 'asking' && <p className="hint">Main opened its own authorization window. Answer it there.</p>}
      </div>
      <button type="button" className="primary" onClick={() => void requestFollowRaw()} disabled={phase === 'asking'} data-testid="follow-hex-request">
        {phase === 'asking' ? 'Waiting for authorization…' : 'Request raw access…'}
      </button>
    </div>
  );
}

export function FollowHex() {
  const granted = useFollowHex((h) => h.grant !== null);
  const size = useFollowHex((h) => h.size);
  const top = useFollowHex((h) => h.top);
  const visible = useFollowHex((h) => h.visible);
  const version = useFollowHex((h) => h.version);
  const autoscroll = useFollowHex((h) => h.autoscroll);
  const why = useFollowHex((h) => h.why);
  const totalRows = rowCount(size, ROW_BYTES);
  const rowProps = useMemo<RowProps>(() => ({ size, version }), [size, version]);
  const onTop = useCallback((row: number) => followHexMoved(row), []);
  const onVisible = useCallback((rows: number) => followHexVisible(rows), []);
  const onKeyDown = useCallback((e: KeyboardEvent<HTMLDivElement>) => {
    const s = useFollowHex.getState();
    const last = maxTop(rowCount(s.size, ROW_BYTES), s.visible);
    const page = Math.max(1, s.visible - 1);
    const to: Record<string, number> = { ArrowUp: s.top - 1, ArrowDown: s.top + 1, PageUp: s.top - page, PageDown: s.top + page, Home: 0, End: last };
    if (!(e.key in to)) return;
    e.preventDefault();
    if (e.key === 'End') followHexEnd();
    else followHexMoved(Math.max(0, Math.min(last, to[e.key])));
  }, []);
  const headCells = <span className="hexcells">{Array.from({ length: ROW_BYTES }, (_, k) => <span key={k} className={`hx${k === 8 ? ' g' : ''}`}>{k.toString(16).padStart(2, '0')}</span>)}</span>;
  if (!granted) return <section className="follow-hex" data-testid="follow-hex" aria-label="Raw bytes as they arrive"><FollowHexLocked /></section>;
  const behind = autoscroll ? 0 : Math.max(0, totalRows - (top + visible));
  return (
    <section className="follow-hex hex-view" data-testid="follow-hex" data-size={size} style={{ ['--caret-cols' as string]: CARET_COLUMNS }} aria-label="Raw bytes as they arrive">
      <FollowGrantBanner />
      {why && <p className="error banner" role="alert">{why}</p>}
      <div className="hex-head" aria-hidden="true">
        <span className="off">offset</span>{headCells}<span className="caret">caret</span>
      </div>
      {size === 0 ? (
        <p className="muted fl-empty" data-testid="follow-hex-empty">No raw bytes of this stream are stored yet.</p>
      ) : (
        <BigList
          totalRows={totalRows}
          rowHeight={HEX_ROW_PX}
          top={top}
          onTop={onTop}
          onVisible={onVisible}
          renderRow={renderRow}
          rowProps={rowProps}
          label="Raw rows as they arrive"
          className="hex-list"
          scrollbarTestId="follow-hex-scrollbar"
          onKeyDown={onKeyDown}
          listAttrs={{ role: 'grid', tabIndex: 0, 'aria-rowcount': totalRows, 'data-testid': 'follow-hex-grid' }}
        />
      )}
      <p className="follow-hex-foot small muted mono" data-testid="follow-hex-size">{size < 1024 ? `${grouped(size)} bytes` : `${humanSize(size)} (${grouped(size)} bytes)`} so far{autoscroll ? ' · following the end' : ' · scrolled up: End follows the end'}</p>
      {!autoscroll && (
        <button type="button" className="primary follow-jump" data-testid="follow-hex-jump" onClick={followHexEnd}>
          {behind > 0 ? `${grouped(behind)} new row${behind === 1 ? '' : 's'} ↓` : 'Follow the end ↓'}
        </button>
      )}
    </section>
  );
}

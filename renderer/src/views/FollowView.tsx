// A running capture, followed: its sanitized text as it arrives (the end kept in view until the
// user scrolls up; back at the end, it follows again), what was removed so far and where (the
// minimap over the raw bytes so far), the Hex tab (its raw bytes as they arrive, under a grant on
// the stream), and the Screen tab on what has arrived. When the capture is
// sealed the workspace opens its record instead; one whose Airlock died is marked interrupted.
import { useEffect, useLayoutEffect, useRef, useState, type UIEvent } from 'react';
import { DANGER_LABELS, dangerTier, type DangerCategory } from '../../../shared/parser/danger';
import { TerminalSizeForm } from '../components/TerminalSizeForm';
import { ThemeButton } from '../components/ThemeButton';
import { closeFollow, followText, runFollowScreen, setAutoscroll, switchStream } from '../follow';
import { grouped, humanSize } from '../lib/spans';
import { useFollow } from '../stores/follow';
import { drawClassCounts } from './Minimap';
import { FollowHex } from './FollowHex';
import { useView } from '../stores';

/** Height of one text row (px): the view renders only the rows in sight. */
const ROW_PX = 18;
/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 20;

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** The text so far, one row per display line, the unfinished line (and what shows of it early) last. */
function FollowLines() {
  const version = useFollow((f) => f.textVersion);
  const autoscroll = useFollow((f) => f.autoscroll);
  const unseen = useFollow((f) => f.unseen);
  const pending = useFollow((f) => f.last?.pending ?? '');
  const pastLimit = useFollow((f) => f.last?.textPastLimit ?? null);
  const withheld = useFollow((f) => f.last?.textWithheld ?? false);
  const box = useRef<HTMLDivElement | null>(null);
  const [view, setView] = useState({ top: 0, height: 600 });
  const t = followText();
  const rows = t.lines.length + (t.tail.length > 0 || pending.length > 0 ? 1 : 0);

  // New text: keep the end in view while following.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && autoscroll) el.scrollTop = el.scrollHeight;
  }, [version, autoscroll]);
  useLayoutEffect(() => {
    const el = box.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight || 600 });
  }, [version]);

  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    setView({ top: el.scrollTop, height: el.clientHeight });
    // At the end (within a row): following; anywhere above: the user is reading, leave it there.
    setAutoscroll(el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_PX);
  };
  const first = Math.max(0, Math.floor(view.top / ROW_PX) - OVERSCAN);
  const last = Math.min(rows, Math.ceil((view.top + view.height) / ROW_PX) + OVERSCAN);
  const shown = [];
  for (let i = first; i < last; i++) {
    const n = t.dropped + i + 1;
    const complete = i < t.lines.length;
    shown.push(
      <div key={n} className="fl-row" style={{ top: i * ROW_PX }} data-testid="follow-line">
        <span className="fl-no mono" aria-hidden="true">{n}</span>
        <span className="fl-text mono">
          {complete ? t.lines[i] : t.tail}
          {!complete && pending && <span className="fl-pending" title="Shown early: the line has not ended yet">{pending}</span>}
        </span>
      </div>,
    );
  }
  return (
    <div className="follow-text-wrap">
      <div className="follow-text" ref={box} onScroll={onScroll} tabIndex={0} role="log" aria-live="off" aria-label="Sanitized text as it arrives" data-testid="follow-text" data-lines={t.dropped + t.lines.length}>
        <div className="fl-space" style={{ height: rows * ROW_PX }}>{shown}</div>
        {rows === 0 && <p className="muted fl-empty" data-testid="follow-no-text">{withheld ? 'This capture runs with redaction off: its text is shown once it is sealed, redacted by the viewer. The counts on the right grow as it runs.' : 'No text yet.'}</p>}
      </div>
      {pastLimit !== null && (
        <p className="notice follow-past" role="status" data-testid="follow-past-limit">
          The text went past the capture's --max-text ({humanSize(pastLimit)}): while it runs only its start is stored. The sealed record keeps the start and the end; the counts on the right cover every byte.
        </p>
      )}
      {!autoscroll && (
        <button type="button" className="primary follow-jump" data-testid="follow-jump" onClick={() => setAutoscroll(true)}>
          {unseen > 0 ? `${grouped(unseen)} new line${unseen === 1 ? '' : 's'} ↓` : 'Follow the end ↓'}
        </button>
      )}
    </div>
  );
}

function FollowMinimap() {
  const minimap = useFollow((f) => f.last?.minimap ?? null);
  const theme = useView((v) => v.theme);
  const canvas = useRef<HTMLCanvasElement | null>(null);
  useEffect(() => {
    if (canvas.current && minimap && minimap.buckets > 0) drawClassCounts(canvas.current, minimap);
  }, [minimap, theme]);
  return (
    <div className="minimap follow-minimap" data-testid="follow-minimap" aria-label="Where spans were removed in the bytes so far" role="img">
      <canvas ref={canvas} aria-hidden="true" />
    </div>
  );
}

/** What was removed so far: totals, danger categories, the most dangerous meanings. */
function FollowReport() {
  const last = useFollow((f) => f.last);
  if (!last) return <aside className="follow-side" aria-label="Removed so far"><p className="muted">Waiting for the capture…</p></aside>;
  const r = last.removal;
  const danger = Object.entries(r.danger ?? {}) as Array<[DangerCategory, number]>;
  return (
    <aside className="follow-side" aria-label="Removed so far" data-testid="follow-report">
      <h2>Removed so far</h2>
      <div className="report-totals">
        <div><strong data-testid="follow-removed">{grouped(r.removedSpans)}</strong><span>spans</span></div>
        <div><strong>{humanSize(r.removedBytes)}</strong><span>removed</span></div>
        <div><strong>{humanSize(last.rawBytes)}</strong><span>received</span></div>
      </div>
      {danger.length > 0 && (
        <p className="follow-danger">
          {danger.map(([c, n]) => <span key={c} className={`tag danger-tag tier-${dangerTier(c)}`} data-testid="removal-tag" data-category={c}>{DANGER_LABELS[c]} ×{grouped(n)}</span>)}
        </p>
      )}
      {r.top.length > 0 && (
        <ul className="follow-top">
          {r.top.map((t) => <li key={t.key}><span className="mono">{t.key}</span> <span className="muted">×{grouped(t.count)}</span></li>)}
        </ul>
      )}
      {r.ambiguous > 0 && <p className="tag warn">{grouped(r.ambiguous)} ambiguous</p>}
      <p className="small muted" data-testid="follow-scanned">
        Counted over the {humanSize(last.scannedBytes)} stored so far; the sealed record's report is final.
      </p>
      <p className="small muted">The Hex tab shows this stream's raw bytes as they arrive under a grant on it (approved in main's prompt); it goes on over the sealed record's artifact once the capture is sealed.</p>
    </aside>
  );
}

/** The screen engine on the bytes received so far (run on demand: each run reads them from the start). */
function FollowScreen() {
  const screen = useFollow((f) => f.screen);
  const error = useFollow((f) => f.screenError);
  const received = useFollow((f) => f.last?.rawBytes ?? 0);
  const view = screen?.state === 'done' ? screen.view : null;
  const c = view?.counts;
  return (
    <section className="screen-panel follow-screen" data-testid="follow-screen" aria-label="Screen on what has arrived">
      <TerminalSizeForm idPrefix="follow" initial={{ cols: 80, rows: 24 }} onRun={(c, r) => void runFollowScreen(c, r)} button={`Reconstruct what has arrived (${humanSize(received)})`} buttonTestId="follow-screen-run" />
      {screen?.state === 'running' && <p className="muted" role="status">Running {humanSize(screen.totalBytes)} through the emulator… {Math.floor((100 * screen.bytesDone) / Math.max(1, screen.totalBytes))}%</p>}
      {error && <p className="error" role="alert">{error}</p>}
      {view && c && (
        <>
          <p className="small" data-testid="follow-screen-counts">
            As of {humanSize(screen!.totalBytes)}: <strong>{c.overwritten + c.erased + c.concealed + c.same_colour}</strong> hidden ranges · {c.printed} characters printed · {view.cols}×{view.rows}
          </p>
          <div className="screen-last-box">
            <pre className="screen-last mono" data-testid="follow-screen-last" aria-label="Last screen" style={{ width: `${view.cols}ch`, height: `calc(${view.screen.length} * var(--screen-lh) + 10px)` }}>{view.screen.join('\n')}</pre>
          </div>
        </>
      )}
    </section>
  );
}

export function FollowView() {
  const open = useFollow((f) => f.open);
  const stream = useFollow((f) => f.stream);
  const last = useFollow((f) => f.last);
  const error = useFollow((f) => f.error);
  const tab = useFollow((f) => f.tab);
  if (!open) return null;
  const state = last?.state ?? open.state;
  return (
    <main className="follow-view" data-testid="follow-view" aria-label="Following a running capture">
      <header className="follow-head">
        <button type="button" onClick={closeFollow} aria-label="Back to the vault">← Vault</button>
        <span className={`run-state s-${state}`} data-testid="follow-state">{state === 'running' ? <><span className="running-dot" aria-hidden="true" />running</> : state}</span>
        <span className="follow-title" title={open.title}>{open.title}</span>
        {open.cwd && <span className="muted small follow-cwd">in {open.cwd}</span>}
        <span className="follow-streams" role="tablist" aria-label="Stream">
          {open.streams.map((s) => (
            <button key={s} type="button" role="tab" aria-selected={s === stream} className={`stream s-${s}${s === stream ? ' on' : ''}`} onClick={() => switchStream(s)}>{s}</button>
          ))}
        </span>
        <span className="follow-stats mono small" data-testid="follow-stats">
          {last ? <>{duration(last.elapsedMs)} · {humanSize(last.rawBytes)} raw · {grouped(last.chunks)} chunks · {humanSize(last.textBytes)} text</> : 'connecting…'}
        </span>
        <ThemeButton />
      </header>
      {state === 'interrupted' && (
        <p className="notice banner" role="status" data-testid="follow-interrupted">
          Interrupted: the Airlock process that ran this capture is gone, so nothing more will arrive. The next capture or any <code>airlock vault</code> command seals what it stored as an interrupted record; this view opens it then.
        </p>
      )}
      {state === 'failed' && <p className="error banner" role="alert" data-testid="follow-failed">The capture failed and left no record; the text above is all it stored.</p>}
      {error && <p className="error banner" role="alert">{error}</p>}
      <div className="follow-body">
        <section className="follow-main">
          <div className="side-tabs follow-tabs" role="tablist" aria-label="View">
            <button type="button" role="tab" aria-selected={tab === 'text'} className={tab === 'text' ? 'on' : ''} onClick={() => useFollow.setState({ tab: 'text' })}>Text</button>
            <button type="button" role="tab" aria-selected={tab === 'hex'} className={tab === 'hex' ? 'on' : ''} onClick={() => useFollow.setState({ tab: 'hex' })} data-testid="follow-tab-hex">Hex</button>
            <button type="button" role="tab" aria-selected={tab === 'screen'} className={tab === 'screen' ? 'on' : ''} onClick={() => useFollow.setState({ tab: 'screen' })} data-testid="follow-tab-screen">Screen</button>
          </div>
          {tab === 'text' ? <FollowLines /> : tab === 'hex' ? <FollowHex /> : <FollowScreen />}
        </section>
        <FollowMinimap />
        <FollowReport />
      </div>
    </main>
  );
}

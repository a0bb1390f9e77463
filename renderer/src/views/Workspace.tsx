import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { cancelIndex, gotoHit, retryIndex } from '../actions';
import { Splitter } from '../components/Splitter';
import { CARET_COLUMNS } from '../lib/caret-fit';
import { computeLayout, SIDE_DEFAULT_PX, SPLITTER_PX, type Layout } from '../lib/layout';
import { setPrefs, useArtifact, useGrants, useLayout, useView, type SideTab } from '../stores';
import { BookmarksPanel } from './BookmarksPanel';
import { ScreenPanel } from './ScreenPanel';
import { PayloadsPanel } from './PayloadsPanel';
import { CompareView } from './CompareView';
import { GrantBanner } from './GrantBanner';
import { HexView } from './HexView';
import { Inspector } from './Inspector';
import { Legend } from './Legend';
import { MergedView } from './MergedView';
import { Minimap } from './Minimap';
import { ReportPanel } from './ReportPanel';
import { SearchPanel } from './SearchPanel';
import { StatusBar } from './StatusBar';
import { TextView } from './TextView';
import { Toolbar } from './Toolbar';

/** The most columns the caret column grows by where the stacked layout leaves room. */
const MAX_EXTRA_CARET_COLUMNS = 40;

const SIDE_TABS: ReadonlyArray<[SideTab, string]> = [['report', 'Report'], ['search', 'Search'], ['bookmarks', 'Bookmarks'], ['screen', 'Screen'], ['payloads', 'Payloads']];

/** Opens the side panel on `tab` (unfolding it) and focuses its tab button. */
export function showSideTab(tab: SideTab): void {
  useView.setState({ sideTab: tab });
  if (useLayout.getState().prefs.sideCollapsed) setPrefs({ sideCollapsed: false });
}

function SidePanel({ layout }: { layout: Layout }) {
  const sideTab = useView((v) => v.sideTab);
  if (layout.sideCollapsed) {
    // Folded: a rail of the same tabs; choosing one unfolds the panel on it.
    return (
      <aside className="side folded" id="side-panel" aria-label="Report, search, bookmarks and screen (folded)" style={{ width: layout.sideWidth }}>
        <div className="side-rail" role="toolbar" aria-orientation="vertical" aria-label="Side panel">
          <button type="button" className="icon unfold" aria-label="Unfold the side panel" title={layout.sideForced ? 'No room beside the hex view at this width: fold the hex view (Hex above text) or widen the window' : 'Unfold the side panel'}
            disabled={layout.sideForced} onClick={() => setPrefs({ sideCollapsed: false })}>«</button>
          {SIDE_TABS.map(([t, label]) => (
            <button key={t} type="button" className={`rail-tab${sideTab === t ? ' on' : ''}`} disabled={layout.sideForced} aria-label={`${label} (unfolds the side panel)`} onClick={() => showSideTab(t)}>{label}</button>
          ))}
        </div>
      </aside>
    );
  }
  return (
    <aside className="side" id="side-panel" aria-label="Report, search, bookmarks and screen" style={{ width: layout.sideWidth }}>
      <div className="side-tabs" role="tablist" aria-label="Side panel">
        {SIDE_TABS.map(([t, label]) => (
          <button key={t} type="button" role="tab" id={`side-${t}`} aria-selected={sideTab === t} aria-controls={`side-panel-${t}`} className={sideTab === t ? 'on' : ''} onClick={() => useView.setState({ sideTab: t })}>{label}</button>
        ))}
        <button type="button" className="icon fold" aria-label="Fold the side panel" title="Fold the side panel (Enter on the splitter)" onClick={() => setPrefs({ sideCollapsed: true })}>»</button>
      </div>
      <div className={`side-body${sideTab === 'screen' ? ' fill' : ''}`} role="tabpanel" id={`side-panel-${sideTab}`} aria-labelledby={`side-${sideTab}`}>
        {sideTab === 'report' && <ReportPanel />}
        {sideTab === 'search' && <SearchPanel />}
        {sideTab === 'bookmarks' && <BookmarksPanel />}
        {sideTab === 'screen' && <ScreenPanel />}
        {sideTab === 'payloads' && <PayloadsPanel />}
      </div>
      <Inspector />
    </aside>
  );
}

/** The pane area's size, followed as the window changes. */
function useSize(ref: RefObject<HTMLElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: typeof window !== 'undefined' ? window.innerWidth : 1400, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      // (A DOM without layout, as in unit tests, measures 0: the window's width stands in.)
      const width = el.clientWidth || window.innerWidth;
      setSize((s) => (s.width === width && s.height === el.clientHeight ? s : { width, height: el.clientHeight }));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return size;
}

/** Above the panes: the colour key and the layout switch. */
function LegendRow({ counts, granted, arrangement }: { counts?: readonly number[]; granted: boolean; arrangement: Layout['arrangement'] }) {
  const stacked = useLayout((l) => l.prefs.arrangement === 'stacked');
  return (
    <div className="legend-row">
      <Legend counts={counts} />
      {granted && (
        <button type="button" className={`icon layout-switch${stacked ? ' on' : ''}`} aria-pressed={stacked} title={arrangement === 'stacked' && !stacked ? 'Hex above text: the window is too narrow for them side by side' : 'Hex above text'}
          onClick={() => setPrefs({ arrangement: stacked ? 'auto' : 'stacked' })}>Hex above text</button>
      )}
    </div>
  );
}

export function Workspace() {
  const mainTab = useView((v) => v.mainTab);
  const status = useArtifact((a) => a.status);
  const error = useArtifact((a) => a.error);
  const report = useArtifact((a) => a.report);

  useEffect(() => {
    // Focus moves after this key's own handling; the timer is cleared with the workspace, which
    // may be gone (and with it the document, in tests) before it fires.
    let focusTimer: ReturnType<typeof setTimeout> | undefined;
    const focusSoon = (selector: string) => {
      clearTimeout(focusTimer);
      focusTimer = setTimeout(() => document.querySelector<HTMLElement>(selector)?.focus(), 0);
    };
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 'g') {
        e.preventDefault();
        focusSoon('[data-testid=goto-input]');
      } else if (mod && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        showSideTab('search');
        focusSoon('[data-testid=search-input]');
      } else if (mod && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        showSideTab('bookmarks');
        focusSoon('[data-testid=bookmark-note]');
      } else if (e.key === 'F3') {
        e.preventDefault();
        gotoHit(e.shiftKey ? -1 : 1);
      } else if (e.altKey && ['1', '2', '3'].includes(e.key)) {
        e.preventDefault();
        if (e.key === '3' && useLayout.getState().prefs.sideCollapsed) setPrefs({ sideCollapsed: false });
        focusSoon(['[data-testid=hex-grid], [data-testid=hex-view] button', '[data-testid=text-grid]', '.side-tabs button'][Number(e.key) - 1]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      clearTimeout(focusTimer);
    };
  }, []);

  const granted = useGrants((g) => g.grant !== null);
  const prefs = useLayout((l) => l.prefs);
  const hexWidth = useLayout((l) => l.hexWidth);
  const panes = useRef<HTMLDivElement | null>(null);
  const area = useSize(panes);
  const bytesTab = mainTab === 'bytes';
  const layout = computeLayout({ width: area.width, hexWidth, granted, bytesTab, prefs });
  // Room the stacked layout leaves beside the hex view goes to its caret column (fewer rows condensed or cut).
  const chPx = useLayout((l) => l.chPx);
  const caretColumns = CARET_COLUMNS + Math.max(0, Math.min(MAX_EXTRA_CARET_COLUMNS, Math.floor((layout.hexExtra - 4) / Math.max(1, chPx))));
  useLayoutEffect(() => {
    if (useLayout.getState().caretColumns !== caretColumns) useLayout.setState({ caretColumns });
  }, [caretColumns]);
  const split = useRef<HTMLDivElement | null>(null);
  const [splitPx, setSplitPx] = useState({ hex: 0, total: 0 });
  // The stacked split's pixels, for the splitter's value and range.
  useLayoutEffect(() => {
    if (layout.arrangement !== 'stacked') return;
    const measure = () => {
      const hex = document.querySelector<HTMLElement>('[data-testid=hex-view]');
      const text = document.querySelector<HTMLElement>('[data-testid=text-view]');
      if (hex && text) setSplitPx((s) => (s.hex === hex.offsetHeight && s.total === hex.offsetHeight + text.offsetHeight ? s : { hex: hex.offsetHeight, total: hex.offsetHeight + text.offsetHeight }));
    };
    measure();
    if (typeof ResizeObserver === 'undefined' || !split.current) return;
    const ro = new ResizeObserver(measure);
    ro.observe(split.current.parentElement!);
    return () => ro.disconnect();
  }, [layout.arrangement, layout.hexShare]);

  const classCounts = report ? Object.values(report.classes).map((c) => c.count) : undefined;
  const style = { ['--map-w' as string]: `${layout.mapWidth}px`, ...(layout.arrangement === 'stacked' ? { gridTemplateRows: `auto minmax(96px, ${layout.hexShare}fr) ${SPLITTER_PX}px minmax(96px, ${1 - layout.hexShare}fr)` } : {}) };
  return (
    <div className="workspace" data-testid="workspace" onDragStart={(e) => e.preventDefault()}>
      <Toolbar />
      <GrantBanner />
      {error && <p className="error banner" role="alert">{error}</p>}
      {status && status.state === 'running' && (
        <div className="index-progress" role="progressbar" aria-label="Indexing spans" aria-valuemin={0} aria-valuemax={status.totalBytes} aria-valuenow={status.bytesDone}>
          <span>Indexing spans in main… {Math.floor((100 * status.bytesDone) / Math.max(1, status.totalBytes))}%</span>
          <button type="button" onClick={() => void cancelIndex()}>Cancel</button>
        </div>
      )}
      {status && (status.state === 'failed' || status.state === 'cancelled') && (
        <div className="index-progress error" role="alert">
          <span>Span index {status.state}{status.error ? `: ${status.error}` : ''}. Text, spans and search need it.</span>
          <button type="button" onClick={() => void retryIndex()}>Index again</button>
        </div>
      )}
      <div className={`panes arr-${layout.arrangement}`} ref={panes} data-arrangement={layout.arrangement}>
        <div className={`main-area arr-${layout.arrangement}`} id="main-area" style={style}>
          {bytesTab && (
            <>
              <LegendRow counts={classCounts} granted={granted} arrangement={layout.arrangement} />
              <HexView />
              <Minimap />
              {layout.arrangement === 'stacked' && (
                <div className="split-slot" ref={split}>
                  <Splitter orientation="horizontal" grows={1} label="Height of the hex view" controls="hex-view" testId="hex-splitter"
                    value={splitPx.hex} min={96} max={Math.max(96, splitPx.total - 96)}
                    onChange={(v) => splitPx.total > 0 && setPrefs({ hexShare: v / splitPx.total })} onReset={() => setPrefs({ hexShare: 0.5 })} />
                </div>
              )}
              <TextView />
            </>
          )}
          {mainTab === 'compare' && <CompareView />}
          {mainTab === 'merged' && <MergedView />}
        </div>
        <Splitter orientation="vertical" grows={-1} label="Width of the side panel" controls="side-panel" testId="side-splitter"
          value={layout.sideCollapsed ? 0 : layout.sideWidth} min={layout.sideCollapsed ? 0 : layout.sideMin} max={layout.sideCollapsed ? 0 : layout.sideMax}
          onChange={(v) => (layout.sideCollapsed ? layout.sideForced ? undefined : setPrefs({ sideCollapsed: false }) : setPrefs({ sideWidth: v }))}
          onToggle={() => (layout.sideForced ? undefined : setPrefs({ sideCollapsed: !layout.sideCollapsed }))}
          onReset={() => setPrefs({ sideWidth: SIDE_DEFAULT_PX, sideCollapsed: false })} />
        <SidePanel layout={layout} />
      </div>
      <StatusBar />
    </div>
  );
}

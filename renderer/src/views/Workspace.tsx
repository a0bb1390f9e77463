import { useEffect } from 'react';
import { cancelIndex, gotoHit, retryIndex } from '../actions';
import { useArtifact, useView, type SideTab } from '../stores';
import { BookmarksPanel } from './BookmarksPanel';
import { ScreenPanel } from './ScreenPanel';
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

function SidePanel() {
  const sideTab = useView((v) => v.sideTab);
  const tab = (t: SideTab, label: string) => (
    <button type="button" role="tab" id={`side-${t}`} aria-selected={sideTab === t} aria-controls={`side-panel-${t}`} className={sideTab === t ? 'on' : ''} onClick={() => useView.setState({ sideTab: t })}>{label}</button>
  );
  return (
    <aside className="side" aria-label="Report, search, bookmarks and screen">
      <div className="side-tabs" role="tablist" aria-label="Side panel">
        {tab('report', 'Report')}
        {tab('search', 'Search')}
        {tab('bookmarks', 'Bookmarks')}
        {tab('screen', 'Screen')}
      </div>
      <div className="side-body" role="tabpanel" id={`side-panel-${sideTab}`} aria-labelledby={`side-${sideTab}`}>
        {sideTab === 'report' && <ReportPanel />}
        {sideTab === 'search' && <SearchPanel />}
        {sideTab === 'bookmarks' && <BookmarksPanel />}
        {sideTab === 'screen' && <ScreenPanel />}
      </div>
      <Inspector />
    </aside>
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
        useView.setState({ sideTab: 'search' });
        focusSoon('[data-testid=search-input]');
      } else if (mod && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        useView.setState({ sideTab: 'bookmarks' });
        focusSoon('[data-testid=bookmark-note]');
      } else if (e.key === 'F3') {
        e.preventDefault();
        gotoHit(e.shiftKey ? -1 : 1);
      } else if (e.altKey && ['1', '2', '3'].includes(e.key)) {
        e.preventDefault();
        focusSoon(['[data-testid=hex-grid]', '[data-testid=text-grid]', '.side-tabs button'][Number(e.key) - 1]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      clearTimeout(focusTimer);
    };
  }, []);

  const classCounts = report ? Object.values(report.classes).map((c) => c.count) : undefined;
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
      <div className="panes">
        {mainTab === 'bytes' && (
          <>
            <div className="hex-pane">
              <Legend counts={classCounts} />
              <div className="hex-and-map">
                <HexView />
                <Minimap />
              </div>
            </div>
            <TextView />
          </>
        )}
        {mainTab === 'compare' && <CompareView />}
        {mainTab === 'merged' && <MergedView />}
        <SidePanel />
      </div>
      <StatusBar />
    </div>
  );
}

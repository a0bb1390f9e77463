import { useEffect } from 'react';
import { describeSpan, hexOffset } from '../lib/spans';
import { session } from '../session';
import { useArtifact, useSelection, useView } from '../stores';

/** Cursor, selection, the span under the pointer (or cursor), and the last notice. */
export function StatusBar() {
  const cursor = useSelection((s) => s.cursor);
  const range = useSelection((s) => s.range);
  const hover = useView((v) => v.hoverOffset);
  const notice = useView((v) => v.notice);
  useView((v) => v.spanVersion);
  const status = useArtifact((a) => a.status);
  const at = hover ?? cursor;
  const span = session()?.spans.spanAt(at) ?? null;
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => useView.setState({ notice: null }), 4000);
    return () => clearTimeout(t);
  }, [notice]);
  return (
    <footer className="statusbar" aria-label="Status">
      <span className="mono">cursor 0x{hexOffset(cursor)} ({cursor.toLocaleString('en-US')})</span>
      {range && <span className="mono">sel {(range[1] - range[0]).toLocaleString('en-US')} B</span>}
      <span className="span-desc" id="span-description" data-testid="span-description" aria-live="polite">
        {span ? <><span className="mono muted">0x{hexOffset(at)}</span> {describeSpan(span)}</> : <span className="muted">0x{hexOffset(at)} kept text</span>}
      </span>
      {status && status.state !== 'done' && <span>index: {status.state} {Math.floor((100 * status.bytesDone) / Math.max(1, status.totalBytes))}%</span>}
      {status?.cached && <span className="muted small">index cached</span>}
      <span className="notice" role="status" data-testid="notice">{notice}</span>
    </footer>
  );
}

// Where each class occurs across the whole artifact, in equal byte buckets, with search hits and
// the viewport. Drawn on a canvas (nothing injected into style sheets); a click navigates.
import { useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import type { Minimap as MinimapCounts } from '../../../shared/bridge/types';
import { ROW_BYTES, moveCursor } from '../actions';
import { CLASS_COUNT } from '../lib/spans';
import { session } from '../session';
import { useArtifact, useGrants, useSearch, useView } from '../stores';

/** Drawing colours per class, read from CSS custom properties so themes apply. */
function classColours(el: HTMLElement): string[] {
  const cs = getComputedStyle(el);
  return Array.from({ length: CLASS_COUNT }, (_, c) => cs.getPropertyValue(`--c${c}`).trim() || '#888');
}

/** Bucket under a y position of a `heightPx` tall map of `buckets` rows. */
export function bucketAt(y: number, heightPx: number, buckets: number): number {
  return Math.max(0, Math.min(buckets - 1, Math.floor((y / Math.max(1, heightPx)) * buckets)));
}

/**
 * Draws `minimap` on `c` (sized to its box): one lane per class that occurs, each bucket's count as
 * opacity. Returns the context for more marks, or null without one (a DOM without canvas).
 */
export function drawClassCounts(c: HTMLCanvasElement, minimap: MinimapCounts): CanvasRenderingContext2D | null {
  const rect = c.getBoundingClientRect();
  const w = Math.max(1, Math.round(rect.width || 44));
  const h = Math.max(1, Math.round(rect.height || 400));
  c.width = w;
  c.height = h;
  const g = c.getContext?.('2d');
  if (!g) return null;
  const colours = classColours(c);
  g.clearRect(0, 0, w, h);
  const { buckets, counts } = minimap;
  // One lane per class that occurs at all, so the lanes stay wide enough to read.
  const present = counts.map((row, cls) => (row.some((n) => n > 0) ? cls : -1)).filter((cls) => cls >= 0);
  const laneW = Math.max(2, Math.floor((w - 8) / Math.max(1, present.length)));
  let max = 1;
  for (const row of counts) for (const n of row) if (n > max) max = n;
  for (let b = 0; b < buckets; b++) {
    const y0 = Math.floor((b / buckets) * h);
    const y1 = Math.max(y0 + 1, Math.floor(((b + 1) / buckets) * h));
    present.forEach((cls, lane) => {
      const n = counts[cls][b];
      if (!n) return;
      g.globalAlpha = 0.35 + 0.65 * Math.min(1, Math.log1p(n) / Math.log1p(max));
      g.fillStyle = colours[cls];
      g.fillRect(lane * laneW, y0, laneW - 1, y1 - y0);
    });
  }
  g.globalAlpha = 1;
  return g;
}

export function Minimap() {
  const minimap = useArtifact((a) => a.minimap);
  const size = useArtifact((a) => a.artifact?.size ?? 0);
  const hits = useSearch((s) => s.hits);
  const hexTop = useView((v) => v.hexTop);
  const hexVisible = useView((v) => v.hexVisible);
  const theme = useView((v) => v.theme);
  const granted = useGrants((g) => g.grant !== null);
  const textTop = useView((v) => v.textTop);
  const textVisible = useView((v) => v.textVisible);
  const totalLines = useArtifact((a) => a.totalLines);
  useView((v) => v.textVersion);
  const canvas = useRef<HTMLCanvasElement | null>(null);

  useEffect(() => {
    const c = canvas.current;
    if (!c || !minimap || size === 0) return;
    const g = drawClassCounts(c, minimap);
    if (!g) return;
    const { width: w, height: h } = c;
    g.fillStyle = getComputedStyle(c).getPropertyValue('--hit').trim() || '#ff0';
    const step = Math.max(1, Math.floor(hits.length / 4000));
    for (let i = 0; i < hits.length; i += step) g.fillRect(w - 7, Math.floor((hits[i] / size) * h), 7, 2);
  }, [minimap, size, hits, theme]);

  if (!minimap || size === 0) return <div className="minimap empty" aria-hidden="true" />;
  // The viewport box stays inside the map: an artifact shorter than the view fills it, no more.
  // Without a grant no hex rows show: the box is the raw range of the text lines in view.
  const first = granted ? null : session()?.text.line(textTop);
  const last = granted ? null : session()?.text.line(Math.max(textTop, Math.min(totalLines - 1, textTop + textVisible - 1)));
  const [from, span] = granted || !first ? [hexTop * ROW_BYTES, hexVisible * ROW_BYTES] : [first.rawStart, Math.max(1, (last ?? first).rawEnd - first.rawStart)];
  const viewTop = Math.min(100, (from / size) * 100);
  const viewH = Math.min(100 - viewTop, Math.max(0.4, (span / size) * 100));
  const go = (e: MouseEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const b = bucketAt(e.clientY - rect.top, rect.height, minimap.buckets);
    moveCursor(Math.min(size - 1, b * minimap.bucketBytes));
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const cur = from;
    const step = Math.max(1, Math.floor(size / 20));
    if (e.key === 'ArrowDown') moveCursor(Math.min(size - 1, cur + step));
    else if (e.key === 'ArrowUp') moveCursor(Math.max(0, cur - step));
    else return;
    e.preventDefault();
  };
  return (
    <div className="minimap" data-testid="minimap" role="slider" tabIndex={0} aria-label="Minimap: span classes across the artifact"
      aria-valuemin={0} aria-valuemax={size} aria-valuenow={from} onClick={go} onKeyDown={onKey}>
      <canvas ref={canvas} aria-hidden="true" />
      <div className="minimap-view" style={{ top: `${viewTop}%`, height: `${viewH}%` }} aria-hidden="true" />
    </div>
  );
}

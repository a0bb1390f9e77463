// Splices the runs of a segmented lazy build (parallel.ts) into what one run writes (lazy-build.ts).
// Each later run starts fresh at its segment and is taken from the boundary B where the run before
// it handed over (both snaps neutral and matching: build.ts `matches`). From B on its output is one
// run's shifted by known deltas, so the merge only shifts small things: page records, checkpoints,
// the minimap row B falls in and the report (whose meanings are the index's meaning table). No
// column is copied: a lazy index has none.
import type { RemovalReport } from '../../../shared/sanitize';
import { SPAN_CLASS_COUNT } from '../../../shared/parser';
import { CHECKPOINT_FIELDS, combineReports, ownerOf, type SegmentOutcome, type SegmentRun, type Snap, type SnapshotTable } from './build';
import { CHECKPOINT_RECORD } from './format';
import { oneRun, type LazyParts } from './lazy-build';
import { concatF64, PAGE_FIELDS, PageField } from './pages';

/** Segment 0's run (stopped at its hand-over, or at the end) and the later runs' outcomes: the parts one run would have. */
export function mergeLazy(
  first: SegmentRun, outcomes: readonly (SegmentOutcome | undefined)[], starts: readonly number[], table: SnapshotTable, pageBytes: number,
): LazyParts {
  if (first.stopAt === null) return oneRun(first);
  const mini = first.mini;
  const minimap = first.minimap;
  const records: Float64Array[] = [...first.pages];
  const checkpoints = first.writers['checkpoints.bin'];
  const reportPieces: [RemovalReport, RemovalReport | null][] = [[first.outcome().report, null]];
  // A lazy build sees spans as counts only (build.ts countPiece): their order is the parser's (queries.ts), as stated by the run.
  const endsOrdered = first.endsOrdered;
  let monotonic = first.mapCol.monotonic;
  let prev: Snap = first.stopSnap!;
  let at: number | null = first.stopAt;
  let last: SegmentOutcome | null = null;
  const splices: number[] = [];
  while (at !== null) {
    splices.push(at);
    const k = ownerOf(starts, at);
    const q = outcomes[k];
    const lz = q?.lazy;
    const mine = table.get(at / pageBytes);
    if (!q || !lz || !mine) throw new Error('lazy index segments do not join (internal error)');
    const from = q.reports[at];
    if (!from) throw new Error('lazy index segments do not join: no report at the hand-over (internal error)');
    reportPieces.push([q.report, from]);
    const d = { spans: prev.spans - mine.spans, text: prev.text - mine.text, seg: segments(prev) - segments(mine), lines: prev.lines - mine.lines };
    // Page records from the hand-over on, shifted; the open map segment is the earlier run's while the later run's has not closed.
    const firstPage = q.start / pageBytes;
    const n = lz.pages.length / PAGE_FIELDS;
    for (let i = at / pageBytes - firstPage; i < n; i++) {
      const r = lz.pages.slice(i * PAGE_FIELDS, (i + 1) * PAGE_FIELDS);
      const open = realOpen(r[PageField.MapClosed], r[PageField.HasOpen] === 1, r[PageField.OpenT], r[PageField.OpenR], r[PageField.OpenLen], mine, prev, d.text);
      r[PageField.HasOpen] = open.hasOpen ? 1 : 0;
      r[PageField.OpenT] = open.openT;
      r[PageField.OpenR] = open.openR;
      r[PageField.OpenLen] = open.openLen;
      r[PageField.Spans] += d.spans;
      r[PageField.Text] += d.text;
      r[PageField.MapClosed] += d.seg;
      r[PageField.Lines] += d.lines;
      records.push(r);
    }
    // Checkpoints at and after the hand-over, shifted as the records are.
    for (const chunk of q.kept['checkpoints.bin']) {
      const f = new Float64Array(chunk.buffer, chunk.byteOffset, chunk.byteLength / 8);
      for (let c = 0; c + CHECKPOINT_FIELDS <= f.length; c += CHECKPOINT_FIELDS) {
        if (f[c] < at) continue;
        const w = checkpoints.reserve(CHECKPOINT_RECORD) >> 3;
        for (let j = 0; j < CHECKPOINT_FIELDS; j++) checkpoints.f64[w + j] = f[c + j];
        checkpoints.f64[w + 1] += d.spans;
        checkpoints.f64[w + 3] += d.text;
        checkpoints.f64[w + 4] += d.seg;
        checkpoints.f64[w + 5] += d.lines;
        checkpoints.f64[w + 6] += d.spans;
      }
    }
    // Minimap: the bucket the hand-over falls in takes the later run's spans from there; later buckets are its.
    const bucket = Math.min(mini.buckets - 1, Math.floor(at / mini.bucketBytes));
    const row = (at / pageBytes - firstPage) * SPAN_CLASS_COUNT;
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
      const base = c * mini.buckets;
      minimap[base + bucket] += lz.minimap[base + bucket] - lz.miniAt[row + c];
      for (let b = bucket + 1; b < mini.buckets; b++) minimap[base + b] = lz.minimap[base + b];
    }
    if (lz.mapBrokenAt >= at) monotonic = false;
    const stop = q.stop;
    const open = realOpen(stop.mapClosed, stop.hasOpen, stop.openT, stop.openR, stop.openLen, mine, prev, d.text);
    prev = { ...stop, ...open, spans: stop.spans + d.spans, text: stop.text + d.text, mapClosed: stop.mapClosed + d.seg, lines: stop.lines + d.lines };
    at = q.stopAt;
    last = q;
  }
  const end = records[records.length - 1];
  // The end's record holds counts only (as one run writes it).
  end[PageField.HasOpen] = end[PageField.OpenT] = end[PageField.OpenR] = end[PageField.OpenLen] = 0;
  return {
    size: first.size, mini, minimap, pages: concatF64(records), checkpoints, minimapWriter: first.writers['minimap.bin'],
    counts: { spans: end[PageField.Spans], textBytes: end[PageField.Text], lines: end[PageField.Lines], segments: end[PageField.MapClosed] },
    monotonic, endsOrdered, report: combineReports(reportPieces, last!.start), splices,
  };
}

/** Map segments written plus the one open (what the next text's segment numbering goes on from). */
function segments(s: Snap): number {
  return s.mapClosed + (s.hasOpen ? 1 : 0);
}

/**
 * The map segment open at a later point of a later run, in the spliced index: while the segment
 * the later run had open at the hand-over (`mine`) has not closed, it is the earlier run's (`prev`),
 * grown by what the later one's grew; after that, the later run's own, its text offset shifted.
 */
function realOpen(
  closed: number, hasOpen: boolean, openT: number, openR: number, openLen: number, mine: Snap, prev: Snap, dText: number,
): { hasOpen: boolean; openT: number; openR: number; openLen: number } {
  if (closed === mine.mapClosed && hasOpen === mine.hasOpen) {
    const grown = Math.abs(openLen) - Math.abs(mine.openLen);
    return { hasOpen: prev.hasOpen, openT: prev.openT, openR: prev.openR, openLen: prev.openLen < 0 ? prev.openLen - grown : prev.openLen + grown };
  }
  return { hasOpen, openT: openT + dText, openR, openLen };
}

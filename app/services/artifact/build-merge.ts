// Splices the runs of a segmented build (build-parallel.ts) into what one run writes (build.ts).
// Each later run starts fresh at its segment and is taken from the boundary B where the run before
// it handed over (both snaps neutral and matching: build-snap.ts `matches`). From B on its output
// is one run's shifted by known deltas, so the merge only shifts small things: page records,
// checkpoints, the minimap row B falls in and the report (whose meanings are the index's meaning
// table). No column is copied: a segmented build stores none (its pages are replayed).
import type { RemovalReport } from '../../../shared/sanitize';
import { SPAN_CLASS_COUNT } from '../../../shared/parser';
import type { IndexRun, RunOutcome } from './build-index-run';
import type { SecretRun } from './build-secrets';
import { ownerOf, type Snap, type SnapshotTable } from './build-snap';
import { CHECKPOINT_FIELDS, CHECKPOINT_RECORD } from './format';
import { concatF64, PAGE_FIELDS, PageField } from './pages';

/** What an index's files and manifest are made of: one run's, or the runs of a segmented build spliced. */
export interface RunParts {
  readonly size: number;
  readonly mini: { buckets: number; bucketBytes: number };
  readonly minimap: Uint32Array;
  /** The page table, every page's record and the end's. */
  readonly pages: Float64Array;
  readonly counts: { spans: number; textBytes: number; lines: number; segments: number };
  readonly monotonic: boolean;
  readonly endsOrdered: boolean;
  /** The removal report; its meanings are the meaning table's (build.ts meaningsOf). */
  readonly report: RemovalReport;
  /** Boundaries where a later segment's run took over. */
  readonly splices: readonly number[];
  /** Each run's secrets in the order the text takes them, to be spliced (build-secrets.ts). */
  readonly secrets: readonly SecretRun[];
}

/** The parts of a build that ran in one run (`run` has ended and written its end record). */
export function oneRun(run: IndexRun): RunParts {
  return {
    size: run.size, mini: run.mini, minimap: run.minimap, pages: concatF64(run.pages),
    counts: { spans: run.spans, textBytes: run.textBytes, lines: run.lineCol.count, segments: run.mapCol.count },
    monotonic: run.mapCol.monotonic, endsOrdered: run.endsOrdered, report: run.sanitizer.getReport(), splices: [],
    secrets: [{ ...run.secrets.outcome(), firstPage: 0, shift: 0, from: 0 }],
  };
}

/**
 * Segment 0's run (stopped at its hand-over, or at the end; its checkpoints writer takes the later
 * runs' checkpoints) and the later runs' outcomes: the parts one run would have.
 */
export function mergeRuns(
  first: IndexRun, outcomes: readonly (RunOutcome | undefined)[], starts: readonly number[], table: SnapshotTable, pageBytes: number,
): RunParts {
  if (first.stopAt === null) return oneRun(first);
  const mini = first.mini;
  const minimap = first.minimap;
  const records: Float64Array[] = [...first.pages];
  const checkpoints = first.checkpoints;
  const reportPieces: [RemovalReport, RemovalReport | null][] = [[first.sanitizer.getReport(), null]];
  // Spans are counted, not stored: their order is the parser's (queries.ts), as stated by the run.
  const endsOrdered = first.endsOrdered;
  let monotonic = first.mapCol.monotonic;
  let prev: Snap = first.stopSnap!;
  let at: number | null = first.stopAt;
  let last: RunOutcome | null = null;
  const splices: number[] = [];
  const secrets: SecretRun[] = [{ ...first.secrets.outcome(), firstPage: 0, shift: 0, from: 0 }];
  while (at !== null) {
    splices.push(at);
    const k = ownerOf(starts, at);
    const q = outcomes[k];
    const mine = table.get(at / pageBytes);
    if (!q || !mine) throw new Error('index segments do not join (internal error)');
    const from = q.reports[at];
    if (!from) throw new Error('index segments do not join: no report at the hand-over (internal error)');
    reportPieces.push([q.report, from]);
    const d = { spans: prev.spans - mine.spans, text: prev.text - mine.text, seg: segments(prev) - segments(mine), lines: prev.lines - mine.lines };
    secrets.push({ ...q.secrets, firstPage: q.start / pageBytes, shift: d.text, from: prev.text });
    // Page records from the hand-over on, shifted; the open map segment is the earlier run's while the later run's has not closed.
    const firstPage = q.start / pageBytes;
    const n = q.pages.length / PAGE_FIELDS;
    for (let i = at / pageBytes - firstPage; i < n; i++) {
      const r = q.pages.slice(i * PAGE_FIELDS, (i + 1) * PAGE_FIELDS);
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
    for (const chunk of q.checkpoints) {
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
      minimap[base + bucket] += q.minimap[base + bucket] - q.miniAt[row + c];
      for (let b = bucket + 1; b < mini.buckets; b++) minimap[base + b] = q.minimap[base + b];
    }
    if (q.mapBrokenAt >= at) monotonic = false;
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
    size: first.size, mini, minimap, pages: concatF64(records),
    counts: { spans: end[PageField.Spans], textBytes: end[PageField.Text], lines: end[PageField.Lines], segments: end[PageField.MapClosed] },
    monotonic, endsOrdered, report: combineReports(reportPieces, last!.start), splices, secrets,
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

/**
 * The report of the whole file from its pieces: every count is the sum over the pieces of (count
 * at the piece's end minus count where it began); the rest (mode, limits, what was withheld at
 * the end) comes from the last piece, whose offsets count from its run's start `lastStart`.
 */
function combineReports(pieces: readonly (readonly [RemovalReport, RemovalReport | null])[], lastStart: number): RemovalReport {
  const last = pieces[pieces.length - 1][0];
  const out = structuredClone(last) as unknown as Record<string, unknown>;
  const add = (target: Record<string, unknown>, a: Record<string, unknown>, b: Record<string, unknown> | null, sign: number): void => {
    for (const key of Object.keys(a)) {
      const v = a[key];
      if (typeof v === 'number') target[key] = (target[key] as number) + sign * (v - ((b?.[key] as number | undefined) ?? 0));
      else if (v && typeof v === 'object' && key !== 'limits' && key !== 'meanings') {
        add(target[key] as Record<string, unknown>, v as Record<string, unknown>, (b?.[key] as Record<string, unknown> | undefined) ?? null, sign);
      }
    }
  };
  const zero = (target: Record<string, unknown>): void => {
    for (const key of Object.keys(target)) {
      const v = target[key];
      if (typeof v === 'number') target[key] = 0;
      else if (v && typeof v === 'object' && key !== 'limits' && key !== 'meanings') zero(v as Record<string, unknown>);
    }
  };
  zero(out);
  const meanings = new Map<string, number>();
  for (const [end, from] of pieces) {
    add(out, end as unknown as Record<string, unknown>, from as unknown as Record<string, unknown> | null, 1);
    for (const [key, n] of Object.entries(end.meanings)) meanings.set(key, (meanings.get(key) ?? 0) + n - (from?.meanings[key] ?? 0));
  }
  const r = out as unknown as RemovalReport;
  r.version = last.version;
  r.withheld_from = last.withheld_from === null ? null : last.withheld_from + lastStart;
  const entries = [...meanings].filter(([, n]) => n > 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  r.meanings = Object.fromEntries(entries);
  return r;
}


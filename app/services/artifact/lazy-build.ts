// Builds a lazy index (pages.ts): one run of the real Sanitizer over the raw file that writes the
// checkpoints, the minimap, the removal report and a page table instead of the spans, text, map
// and line columns, which on this class of machine cost as much to write as the parse itself. Pages
// a replay could not reach cheaply are then replayed once, in order, and stored.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SPAN_CLASS_NAMES } from '../../../shared/parser';
import type { RemovalReport } from '../../../shared/sanitize';
import {
  BuildCancelled, closeWriters, hashFile, planSegments, segmentDir, SegmentRun, SnapshotTable, writeManifest, type BuildOptions, type BuildResult,
  type SegmentOutcome,
} from './build';
import { mergeLazy } from './lazy-merge';
import { ColumnWriter } from './columns';
import { LAZY_FILE_ORDER, MAX_LINE_BYTES, MAX_MEANINGS, type LazyIndexFile } from './format';
import { concatF64, MAX_REPLAY_PAGES, PAGE_FIELDS, PAGES_FILE, PageField, PageTable, STORED_FILES } from './pages';
import { replayPages } from './replay';
import { trace } from './trace';

/**
 * Builds a lazy index into `o.outDir`; throws BuildCancelled when `shouldCancel` said so. With
 * `o.segments` > 1 the segments run in this thread one after the other, last first (tests of the
 * merge; parallel.ts runs them in threads).
 */
export function buildLazyIndex(o: BuildOptions): BuildResult {
  const started = performance.now();
  const size = statSync(o.rawPath).size;
  const starts = planSegments(size, o.pageBytes, o.segments ?? 1);
  const table = starts.length > 1 ? new SnapshotTable(Math.ceil(size / o.pageBytes)) : null;
  const runs: SegmentRun[] = [];
  const outcomes: SegmentOutcome[] = [];
  try {
    for (let k = starts.length - 1; k >= 1; k--) {
      const dir = segmentDir(o.outDir, k);
      mkdirSync(dir, { mode: 0o700 });
      const run = new SegmentRun(o, { index: k, starts, dir, mode: 'lazy' }, table, null);
      runs.push(run);
      run.run();
      run.closeFiles();
      outcomes[k] = run.outcome();
    }
    const hash = o.verifyDigest === false ? null : createHash('sha256');
    const first = new SegmentRun(o, { index: 0, starts, dir: o.outDir, mode: 'lazy' }, table, hash);
    runs.push(first);
    first.run((pos) => o.onProgress?.(pos, first.spans));
    if (hash && first.stopAt !== null) hashFile(o.rawPath, first.stopAt, size, hash, o.shouldCancel);
    trace?.('lazy runs done');
    const parts = table ? mergeLazy(first, outcomes, starts, table, o.pageBytes) : oneRun(first);
    const result = finishLazy(o, parts, hash?.digest('hex') ?? null, started);
    for (let k = 1; k < starts.length; k++) rmSync(segmentDir(o.outDir, k), { recursive: true, force: true });
    return result;
  } finally {
    for (const r of runs) r.dispose();
  }
}

/** What a lazy index's files and manifest are made of: one run's, or the runs of a segmented build spliced (lazy-merge.ts). */
export interface LazyParts {
  readonly size: number;
  readonly mini: { buckets: number; bucketBytes: number };
  readonly minimap: Uint32Array;
  /** The page table, every page's record and the end's. */
  readonly pages: Float64Array;
  /** Segment 0's checkpoint writer, holding every checkpoint, and its (empty) minimap writer. */
  readonly checkpoints: ColumnWriter;
  readonly minimapWriter: ColumnWriter;
  readonly counts: { spans: number; textBytes: number; lines: number; segments: number };
  readonly monotonic: boolean;
  readonly endsOrdered: boolean;
  /** The removal report; its meanings are the meaning table's (meaningsOf). */
  readonly report: RemovalReport;
  /** Boundaries where a later segment's run took over. */
  readonly splices?: readonly number[];
}

/** The parts of a lazy build that ran in one run (`run` has ended and written its end record). */
export function oneRun(run: SegmentRun): LazyParts {
  return {
    size: run.size, mini: run.mini, minimap: run.minimap, pages: concatF64(run.pages), checkpoints: run.writers['checkpoints.bin'],
    minimapWriter: run.writers['minimap.bin'],
    counts: { spans: run.spans, textBytes: run.textBytes, lines: run.lineCol.count, segments: run.mapCol.count },
    monotonic: run.mapCol.monotonic, endsOrdered: run.endsOrdered, report: run.outcome().report,
  };
}

/**
 * Stores the pages no replay may serve, then writes the page table, minimap, checkpoints, sums and
 * manifest. The meaning table is sorted (replays and stored pages number meanings by it), so a
 * segmented build, whose runs met the meanings in other orders, writes the files one run writes.
 */
export function finishLazy(o: BuildOptions, parts: LazyParts, digest: string | null, started: number): BuildResult {
  if (digest !== null && digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
  const meanings = meaningsOf(parts.report);
  if (meanings.length > MAX_MEANINGS) throw new Error(`more than ${MAX_MEANINGS} span meanings: not indexing`);
  const table = new PageTable(parts.pages, o.pageBytes);
  const stored = storePages(o, table, meanings);
  const pagesOut = new ColumnWriter(join(o.outDir, PAGES_FILE));
  pagesOut.write(new Uint8Array(table.f.buffer, table.f.byteOffset, table.f.byteLength));
  const minimapOut = parts.minimapWriter;
  minimapOut.write(new Uint8Array(parts.minimap.buffer, parts.minimap.byteOffset, parts.minimap.byteLength));
  const writers: Record<LazyIndexFile, ColumnWriter> = {
    'pages.bin': pagesOut,
    'stored-spans.bin': stored[0], 'stored-text.bin': stored[1], 'stored-map.bin': stored[2], 'stored-lines.bin': stored[3],
    'minimap.bin': minimapOut,
    'checkpoints.bin': parts.checkpoints,
  };
  const { files, sumParts } = closeWriters(LAZY_FILE_ORDER, writers);
  const manifest = writeManifest(o, {
    size: parts.size, minimap: parts.mini, counts: parts.counts, monotonic: parts.monotonic, endsOrdered: parts.endsOrdered, meanings, files,
    lazy: { replayPages: MAX_REPLAY_PAGES },
  }, sumParts, parts.report, digest, started);
  return { manifest, splices: parts.splices ?? [] };
}

/**
 * The meanings spans of the artifact have, sorted: the report counts every span under
 * `class: meaning` (a lazy build does not intern them span by span: the report already did).
 */
export function meaningsOf(report: RemovalReport): string[] {
  const out = new Set<string>();
  for (const [key, n] of Object.entries(report.meanings)) {
    if (n <= 0) continue;
    const cls = SPAN_CLASS_NAMES.find((c) => key.startsWith(`${c}: `));
    if (cls === undefined) throw new Error(`report meaning without a class: ${key} (internal error)`);
    out.add(key.slice(cls.length + 2));
  }
  return [...out].sort();
}

/**
 * Replays each stretch of pages marked stored (Restart -1) from the last page before it a replay can
 * start at, once, and appends their columns to the stored files; the records get where. Stretches
 * never share a replay (the page after a stretch is within reach of a later start), so this reads
 * each page at most MAX_REPLAY_PAGES + 1 times in all: linear.
 */
function storePages(o: BuildOptions, table: PageTable, meanings: readonly string[]): ColumnWriter[] {
  const out = STORED_FILES.map((name) => new ColumnWriter(join(o.outDir, name)));
  const src = {
    rawPath: o.rawPath, sha256: o.sha256, engine: o.engine, sanitizer: o.sanitizer, pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES, meanings, table,
  };
  const n = table.pages;
  let p = 0;
  while (p < n) {
    if (table.get(p, PageField.Restart) >= 0) {
      p++;
      continue;
    }
    let end = p;
    while (end + 1 < n && table.get(end + 1, PageField.Restart) < 0) end++;
    const from = table.replayStart(p);
    if (o.shouldCancel?.()) throw new BuildCancelled();
    const cols = replayPages(src, from, end);
    for (let q = p; q <= end; q++) {
      const page = cols[q - from];
      const parts = [page.spans, page.text, page.map, page.lines];
      for (let c = 0; c < 4; c++) {
        table.f[q * PAGE_FIELDS + PageField.StoredSpans + c] = out[c].bytes;
        out[c].write(parts[c]);
      }
    }
    trace?.(`stored pages ${p}..${end} (replayed from ${from})`);
    p = end + 1;
  }
  return out;
}
